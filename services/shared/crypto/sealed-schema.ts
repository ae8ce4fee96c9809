import * as z from 'zod';
import { RESTRICTED_PURPOSES } from './purposes';

/**
 * A stored envelope-encrypted value (services/shared/crypto/restricted.ts), parsed on read.
 * The purpose is part of the value: it is the KMS encryption context (the local wrap's
 * authenticated data), so dropping it would make the value unreadable.
 */
export const sealedValueSchema = z
  .object({
    alg: z.literal('AES-256-GCM'),
    iv: z.string().min(1),
    ciphertext: z.string().min(1),
    tag: z.string().min(1),
    encryptedKey: z.string().min(1),
    keyProvider: z.enum(['kms', 'local']),
    purpose: z.enum(RESTRICTED_PURPOSES).optional(),
  })
  .readonly();
