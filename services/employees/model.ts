import { sealedValueSchema } from '../shared/crypto/sealed-schema';
import { versionedFields } from '../shared/schemas/stored';
import { createHash } from 'node:crypto';
import * as z from 'zod';

/**
 * The entities of the employees area as stored: each type is the output of its item schema,
 * and items are parsed with it on read (keys and unknown attributes are dropped, a malformed
 * item fails loudly instead of flowing on as a cast). Keys live here too
 * (docs/areas/employees.md and docs/scim.md list the access patterns):
 *   employee       PK ORG#<org>#EMP#<id>                          SK EMP
 *   bank account   PK ORG#<org>#EMP#<id>                          SK BANK       (no GSI keys: never listed)
 *   unique guard   PK ORG#<org>#EMPUNIQUE#<attribute>#<digest>     SK GUARD      (userName lower-cased, externalId as is)
 *   email lookup   PK ORG#<org>#EMPEMAIL#<digest of lower email>   SK EMP#<id>
 *   GSI1 ORG#<org>#EMPLOYEES                         / <createdAt>#<id>   every employee, creation order
 *   GSI2 ORG#<org>#EMPDISPLAYNAME#<digest of lower>  / <createdAt>#<id>   by displayName (sparse)
 *   search index scope `employee`: names, userName, externalId, e-mail addresses
 * Values inside keys are SHA-256 digests: no name or e-mail address ever appears in a key
 * (keys end up in logs and error messages), and long values never hit the key size limit.
 */

const text = z.string();

export const employeeEmailSchema = z.object({ value: text, type: text.optional(), primary: z.boolean().optional() }).readonly();
export type EmployeeEmail = z.output<typeof employeeEmailSchema>;

export const employeePhoneNumberSchema = z.object({ value: text, type: text.optional(), primary: z.boolean().optional() }).readonly();
export type EmployeePhoneNumber = z.output<typeof employeePhoneNumberSchema>;

export const employeeAddressSchema = z
  .object({
    formatted: text.optional(),
    streetAddress: text.optional(),
    locality: text.optional(),
    region: text.optional(),
    postalCode: text.optional(),
    country: text.optional(),
    type: text.optional(),
    primary: z.boolean().optional(),
  })
  .readonly();
export type EmployeeAddress = z.output<typeof employeeAddressSchema>;

/** The employee's private address (sensitive), apart from SCIM's `addresses`. `country`: ISO 3166-1 alpha-2. */
export const personalAddressSchema = z
  .object({ streetAddress: text, postalCode: text.optional(), locality: text, region: text.optional(), country: text })
  .readonly();
export type PersonalAddress = z.output<typeof personalAddressSchema>;

/**
 * An employee of one organization: the record time entries and work events refer to, and
 * the one SCIM provisions (services/scim). The same person in another organization is
 * another record. Bank data never lives on this item.
 */
export const employeeItemSchema = z
  .object({
    id: text,
    organizationId: text,
    userName: text,
    displayName: text.optional(),
    givenName: text.optional(),
    familyName: text.optional(),
    /** SCIM name.formatted. */
    formattedName: text.optional(),
    title: text.optional(),
    emails: z.array(employeeEmailSchema).readonly().default([]),
    phoneNumbers: z.array(employeePhoneNumberSchema).readonly().optional(),
    addresses: z.array(employeeAddressSchema).readonly().optional(),
    externalId: text.optional(),
    /** Organization access; false after deactivation (this API or SCIM). History is kept either way. */
    active: z.boolean(),
    /** The SCIM resource was deleted (RFC 7644 §3.6): 404 over SCIM, employee kept. */
    scimDeleted: z.boolean().optional(),
    employeeNumber: text.optional(),
    department: text.optional(),
    managerId: text.optional(),
    /**
     * Sensitive fields, kept by the employees API only (never SCIM, search or audit); served
     * only to keys with employees:read_sensitive. RFC 3339 full-date.
     */
    dateOfBirth: text.optional(),
    personalAddress: personalAddressSchema.optional(),
    taxId: text.optional(),
    ...versionedFields,
  })
  .readonly();
export type Employee = z.output<typeof employeeItemSchema>;

/** What the sealed value holds: the IBAN in electronic format, the BIC (optional) and the holder. */
export const bankAccountDataSchema = z.object({ iban: text, bic: text.nullable(), accountHolder: text }).readonly();
export type BankAccountData = z.output<typeof bankAccountDataSchema>;

/**
 * An employee's bank account: restricted payroll data, one item beside the employee, never
 * on the employee item (which SCIM, lists and search read) and never in an index. The account
 * (IBAN, BIC, holder) is stored only sealed; the masked IBAN is kept in clear for the
 * employee detail. `version` increases with every set and clear, so a cleared account keeps
 * its history of ETags; an employee never given one is version 0.
 */
export const storedBankAccountSchema = z
  .object({
    organizationId: text,
    employeeId: text,
    version: z.number().int(),
    /** Absent when cleared. */
    sealed: sealedValueSchema.optional(),
    /** `DE89 **** **** **** **** 00`; absent when cleared. */
    maskedIban: text.optional(),
    updatedAt: text,
  })
  .readonly();
export type StoredBankAccount = z.output<typeof storedBankAccountSchema>;

// ---- uniqueness ------------------------------------------------------------------------------

/** The attributes unique per organization (uniqueness guards). */
export type UniqueAttribute = 'userName' | 'externalId';

export interface UniqueValue {
  readonly attribute: UniqueAttribute;
  readonly value: string;
}

/**
 * The value a uniqueness guard is keyed on: userName is case-insensitive (RFC 7643
 * caseExact false), externalId case-exact.
 */
export const uniqueValueOf = (attribute: UniqueAttribute, value: string): string => (attribute === 'userName' ? value.toLowerCase() : value);

/** The key of a value in the map `readGuardHolders` answers. */
export const holderKey = (u: UniqueValue): string => `${u.attribute}\u0000${uniqueValueOf(u.attribute, u.value)}`;

/** A change of a uniqueness guard in an employee's write transaction. */
export type GuardAction =
  | { readonly kind: 'claim'; readonly attribute: UniqueAttribute; readonly value: string }
  | { readonly kind: 'keep'; readonly attribute: UniqueAttribute; readonly value: string }
  | { readonly kind: 'takeOver'; readonly attribute: UniqueAttribute; readonly value: string; readonly from: { readonly id: string; readonly version?: number } }
  | { readonly kind: 'release'; readonly attribute: UniqueAttribute; readonly value: string };

type UniqueFields = { readonly userName?: string; readonly externalId?: string };

/**
 * The guard actions that move employee `me` from `before` to `after` (pure), attribute by
 * attribute in the order given: a free value is claimed, a value `me` holds is kept (checked in
 * the transaction), a value `me` gave up is released if `me` holds it. A value somebody else
 * holds is the caller's rule (`heldByOther`): a conflict in this API, a take-over in SCIM.
 */
export function planGuardMoves<H>(
  attributes: readonly UniqueAttribute[],
  me: string,
  change: { readonly before: UniqueFields | undefined; readonly after: UniqueFields },
  holders: ReadonlyMap<string, H>,
  holderId: (holder: H) => string,
  heldByOther: (attribute: UniqueAttribute, value: string, holder: H) => GuardAction | undefined,
): GuardAction[] {
  const actions: GuardAction[] = [];
  for (const attribute of attributes) {
    const next = change.after[attribute];
    const previous = change.before?.[attribute];
    if (next !== undefined) {
      const holder = holders.get(holderKey({ attribute, value: next }));
      if (holder === undefined) actions.push({ kind: 'claim', attribute, value: next });
      else if (holderId(holder) === me) actions.push({ kind: 'keep', attribute, value: next });
      else {
        const action = heldByOther(attribute, next, holder);
        if (action) actions.push(action);
      }
    }
    if (previous !== undefined && (next === undefined || uniqueValueOf(attribute, previous) !== uniqueValueOf(attribute, next))) {
      const holder = holders.get(holderKey({ attribute, value: previous }));
      if (holder !== undefined && holderId(holder) === me) actions.push({ kind: 'release', attribute, value: previous });
    }
  }
  return actions;
}

// ---- keys and items --------------------------------------------------------------------------

const digest = (value: string): string => createHash('sha256').update(value, 'utf8').digest('base64url');

export const employeeKeys = {
  employee: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#EMP#${id}`, SK: 'EMP' }),
  /** The bank account beside the employee, in its partition. */
  bankAccount: (organizationId: string, employeeId: string) => ({ PK: `ORG#${organizationId}#EMP#${employeeId}`, SK: 'BANK' }),
  /** GSI1: the employees of an organization in creation order (stable paging). */
  byOrganization: (organizationId: string, createdAt?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#EMPLOYEES`,
    ...(createdAt && id ? { GSI1SK: `${createdAt}#${id}` } : {}),
  }),
  /** GSI2 (sparse): employees with this displayName, case-insensitive. */
  byDisplayName: (organizationId: string, displayName: string, createdAt?: string, id?: string) => ({
    GSI2PK: `ORG#${organizationId}#EMPDISPLAYNAME#${digest(displayName.toLowerCase())}`,
    ...(createdAt && id ? { GSI2SK: `${createdAt}#${id}` } : {}),
  }),
  /** One item per organization and unique value; `employeeId` names its owner. */
  uniqueGuard: (organizationId: string, attribute: UniqueAttribute, value: string) => ({
    PK: `ORG#${organizationId}#EMPUNIQUE#${attribute}#${digest(uniqueValueOf(attribute, value))}`,
    SK: 'GUARD',
  }),
  /** One item per employee and e-mail address (lower-cased); several employees may share one. */
  emailLookup: (organizationId: string, email: string, id: string) => ({ PK: employeeKeys.emailPartition(organizationId, email), SK: `EMP#${id}` }),
  emailPartition: (organizationId: string, email: string) => `ORG#${organizationId}#EMPEMAIL#${digest(email.toLowerCase())}`,
};

/** The bank account's key (kept by this name for the callers of the former bank store). */
export const bankAccountKey = employeeKeys.bankAccount;

export const EMPLOYEE_ENTITY = 'Employee';
export const BANK_ACCOUNT_ENTITY = 'EmployeeBankAccount';
export const GUARD_ENTITY = 'EmployeeUniqueGuard';
export const EMAIL_LOOKUP_ENTITY = 'EmployeeEmailLookup';

export const employeeToItem = (e: Employee): Record<string, unknown> => ({
  ...employeeKeys.employee(e.organizationId, e.id),
  ...employeeKeys.byOrganization(e.organizationId, e.createdAt, e.id),
  ...(e.displayName ? employeeKeys.byDisplayName(e.organizationId, e.displayName, e.createdAt, e.id) : {}),
  itemType: EMPLOYEE_ENTITY,
  ...e,
});

export const bankAccountToItem = (a: StoredBankAccount): Record<string, unknown> => ({
  ...employeeKeys.bankAccount(a.organizationId, a.employeeId),
  itemType: BANK_ACCOUNT_ENTITY,
  ...a,
});

export const employeeFromItem = (item: Record<string, unknown>): Employee => employeeItemSchema.parse(item);
export const bankAccountFromItem = (item: Record<string, unknown>): StoredBankAccount => storedBankAccountSchema.parse(item);
