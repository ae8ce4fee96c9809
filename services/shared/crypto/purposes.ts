/**
 * The purposes restricted data is sealed for. Each seal carries `{ purpose }` as its KMS
 * encryption context; IAM grants decryption per purpose (lib/constructs/area-function.ts).
 */
export const RESTRICTED_PURPOSES = ['evidence', 'bank-account'] as const;
export type RestrictedPurpose = (typeof RESTRICTED_PURPOSES)[number];

/** The only purpose the API ever decrypts (GET /employees/{id}/bank-account). */
export const READABLE_PURPOSES: readonly RestrictedPurpose[] = ['bank-account'];
