import * as z from 'zod';
import { hasScope, type Principal } from '../shared/auth/principal';
import { queryWords } from '../shared/ddb/search';
import { limitParameter } from '../shared/http/query';
import { nameCharacters, reasonText, userNameCharacters } from '../shared/schemas/fields';
import { isCalendarDate } from '../shared/time';
import { checkBic, checkIban, formatIban, isCountryCode } from './domain-iban';
import type { BankAccountData, Employee, PersonalAddress, StoredBankAccount } from './model';

/**
 * Request and response shapes of the employees area (docs/areas/employees.md).
 * Sensitive fields (dateOfBirth, personalAddress, taxId) are in responses only for keys with
 * employees:read_sensitive, and absent (not null) otherwise. Bank data is never part of an
 * employee; the detail shows at most the masked IBAN.
 */

// ---- request bodies ------------------------------------------------------------------------

/** Trimmed text of 1 to `max` characters; `empty` says what to send instead of an empty value. */
const text = (field: string, max: number, empty = `${field} must not be empty.`) =>
  z
    .string()
    .trim()
    .min(1, { message: empty })
    .max(max, { message: `${field} is at most ${max} characters.` });

/** What a clearable field's empty value is told: null clears it (a required field cannot be cleared). */
const clearWithNull = (field: string) => `${field} must not be empty; send null to clear it.`;
const clearable = (field: string, max: number) => text(field, max, clearWithNull(field)).nullable().optional();

/** A single-line name, label or title: text's rules plus the character rule of every name (decisions.md: no control or bidi formatting characters). */
const name = (field: string, max: number, empty?: string) => text(field, max, empty).check(nameCharacters(field));
const clearableName = (field: string, max: number) => name(field, max, clearWithNull(field)).nullable().optional();

/** A calendar date (RFC 3339 full-date) from 1900-01-01 up to `today`, or undefined. */
export function parseBirthDate(value: string, today: string): string | undefined {
  return isCalendarDate(value) && value >= '1900-01-01' && value <= today ? value : undefined;
}

const dateOfBirth = () =>
  z
    .string()
    .meta({ format: 'date', description: 'RFC 3339 full-date (YYYY-MM-DD), from 1900-01-01 up to today.' })
    .refine((v) => parseBirthDate(v, new Date().toISOString().slice(0, 10)) !== undefined, {
      message: 'dateOfBirth must be a real calendar date YYYY-MM-DD from 1900-01-01 up to today.',
    });

const personalAddress = () =>
  z
    .object({
      streetAddress: text('personalAddress.streetAddress', 200),
      postalCode: clearable('personalAddress.postalCode', 20),
      locality: text('personalAddress.locality', 100),
      region: clearable('personalAddress.region', 100),
      country: z
        .string()
        .regex(/^[A-Za-z]{2}$/, { message: 'personalAddress.country must be an ISO 3166-1 alpha-2 code such as DE.' })
        .meta({ examples: ['DE'] })
        .transform((c) => c.toUpperCase())
        .refine(isCountryCode, { message: 'personalAddress.country names no country: use an ISO 3166-1 alpha-2 code such as DE.' }),
    })
    .strict()
    .meta({ description: 'Replaced as a whole; null clears it.' });

const taxId = () =>
  z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9 ./-]{0,63}$/, { message: 'taxId is 1 to 64 letters, digits, spaces, dots, slashes or hyphens, starting with a letter or digit.' });

const email = z
  .object({
    value: z.email({ message: 'emails[].value must be an e-mail address.' }).max(254),
    type: z.enum(['work', 'home', 'other'], { error: 'emails[].type must be work, home or other.' }).nullable().optional(),
    primary: z.boolean().optional(),
  })
  .strict();

const MAX_EMAILS = 20;

const emails = () =>
  z
    .array(email)
    .max(MAX_EMAILS, { message: `At most ${MAX_EMAILS} e-mail addresses.` })
    .superRefine((list, ctx) => {
      if (list.filter((e) => e.primary === true).length > 1) ctx.addIssue({ code: 'custom', message: 'At most one e-mail address is primary.' });
      const seen = new Set<string>();
      list.forEach((e, i) => {
        const lower = e.value.toLowerCase();
        if (seen.has(lower)) ctx.addIssue({ code: 'custom', path: [i, 'value'], message: `${e.value} is listed twice.` });
        seen.add(lower);
      });
    })
    .meta({ description: 'Replaced as a whole.' });

/** The fields both create and update accept; `null` clears an optional one. */
const profileFields = {
  externalId: clearable('externalId', 256).meta({ description: "The employee's id in the client's system; unique in the organization (case-exact)." }),
  displayName: clearableName('displayName', 200),
  givenName: clearableName('givenName', 200),
  familyName: clearableName('familyName', 200),
  title: clearableName('title', 200),
  department: clearableName('department', 200),
  employeeNumber: clearableName('employeeNumber', 100),
  emails: emails().optional(),
  dateOfBirth: dateOfBirth().nullable().optional(),
  personalAddress: personalAddress().nullable().optional(),
  taxId: taxId().nullable().optional(),
};

const userName = () => text('userName', 256).check(userNameCharacters()).meta({ description: 'Login name; unique in the organization, case-insensitively (the same value SCIM manages).' });

const BANK_FIELDS_DETAIL = 'Bank data is not part of the employee: set it with PUT /employees/{employeeId}/bank-account.';

/** Members of responses a client may send back but never change through this body (422 pointing at them). */
const READ_ONLY: Readonly<Record<string, string>> = {
  id: 'id is read-only.',
  createdAt: 'createdAt is read-only.',
  updatedAt: 'updatedAt is read-only.',
  maskedIban: BANK_FIELDS_DETAIL,
  iban: BANK_FIELDS_DETAIL,
  bic: BANK_FIELDS_DETAIL,
  bankAccount: BANK_FIELDS_DETAIL,
};

const CREATE_READ_ONLY: Readonly<Record<string, string>> = { ...READ_ONLY, active: 'New employees are active; deactivate with POST /employees/{employeeId}/deactivate.' };

/**
 * Read-only members get a precise 422 each (and nothing else is reported) before the strict
 * schema would call them unknown.
 */
const refuseReadOnly =
  (table: Readonly<Record<string, string>>) =>
  (body: unknown, ctx: z.RefinementCtx): unknown => {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
    for (const [field, message] of Object.entries(table)) {
      if (field in body) ctx.addIssue({ code: 'custom', path: [field], message, input: body });
    }
    return body;
  };

export const createBodySchema = z.preprocess(refuseReadOnly(CREATE_READ_ONLY), z.object({ userName: userName(), ...profileFields }).strict());
export type CreateBody = z.output<typeof createBodySchema>;

export const updateBodySchema = z.preprocess(
  refuseReadOnly(READ_ONLY),
  z
    .object({
      userName: userName().optional(),
      ...profileFields,
      active: z
        .literal(true, { error: 'active: only true (reactivation) is accepted here; deactivate with POST /employees/{employeeId}/deactivate and a reason.' })
        .optional()
        .meta({ description: 'true reactivates a deactivated employee.' }),
    })
    .strict()
    .superRefine((body, ctx) => {
      if (Object.keys(body).length === 0) ctx.addIssue({ code: 'custom', path: [], message: 'Nothing to change: send at least one field.' });
    }),
);
export type UpdateBody = z.output<typeof updateBodySchema>;

export const deactivateBodySchema = z
  .object({
    reason: reasonText('reason'),
  })
  .strict();

/**
 * PUT bank-account: the whole account. `iban: null` clears it (then bic and accountHolder
 * must be absent or null). An IBAN is validated (characters, country, length, mod-97) and
 * normalized to its electronic format; a BIC (optional: SEPA needs none) to upper case.
 */
export const bankAccountBodySchema = z
  .object({
    iban: z.string().max(64, { message: 'iban is at most 34 characters (64 with spaces).' }).nullable().meta({ description: 'Spaces and hyphens between groups are accepted; null clears the account.', examples: ['DE89 3704 0044 0532 0130 00'] }),
    bic: z.string().max(20).nullable().optional().meta({ description: 'BIC (ISO 9362), 8 or 11 characters; optional.', examples: ['COBADEFFXXX'] }),
    accountHolder: z.string().trim().max(70, { message: 'accountHolder is at most 70 characters (SEPA).' }).check(nameCharacters('accountHolder')).nullable().optional().meta({ description: 'Required with an IBAN.', examples: ['Ada Lindqvist'] }),
  })
  .strict()
  .transform((body, ctx): BankAccountData | null => {
    if (body.iban === null) {
      for (const field of ['bic', 'accountHolder'] as const) {
        if (body[field] !== undefined && body[field] !== null) ctx.addIssue({ code: 'custom', path: [field], message: `${field} must be null or absent when iban is null (the account is cleared).` });
      }
      return null;
    }
    const iban = checkIban(body.iban);
    if (!iban.ok) ctx.addIssue({ code: 'custom', path: ['iban'], message: iban.problem });
    const bic = body.bic === undefined || body.bic === null ? undefined : checkBic(body.bic);
    if (bic && !bic.ok) ctx.addIssue({ code: 'custom', path: ['bic'], message: bic.problem });
    if (!body.accountHolder) ctx.addIssue({ code: 'custom', path: ['accountHolder'], message: 'accountHolder is required with an IBAN: the name on the account, 1 to 70 characters.' });
    if (!iban.ok || (bic && !bic.ok) || !body.accountHolder) return z.NEVER;
    return { iban: iban.iban, bic: bic?.ok ? bic.bic : null, accountHolder: body.accountHolder };
  });

// ---- query ---------------------------------------------------------------------------------

export const listQuerySchema = z
  .object({
    q: z
      .string()
      .max(100, { message: 'q is at most 100 characters.' })
      .refine((q) => queryWords(q).length > 0, { message: 'q needs at least one letter or digit.' })
      .optional()
      .meta({ description: 'Word-prefix search over names, userName, externalId and e-mail addresses; every word must match.' }),
    active: z
      .enum(['true', 'false'], { error: 'active must be true or false.' })
      .transform((v) => v === 'true')
      .optional()
      .meta({ description: 'Only active (true) or deactivated (false) employees.' }),
    limit: limitParameter(),
    cursor: z.string().max(2048).optional(),
  })
  .strict();
export type ListQuery = z.infer<typeof listQuerySchema>;

// ---- responses -----------------------------------------------------------------------------

const utc = () => z.string().meta({ format: 'date-time', description: 'RFC 3339, UTC' });
const SENSITIVE = 'Only for keys with employees:read_sensitive; absent otherwise.';

const addressSchema = z.object({
  streetAddress: z.string(),
  postalCode: z.string().nullable(),
  locality: z.string(),
  region: z.string().nullable(),
  country: z.string().meta({ description: 'ISO 3166-1 alpha-2' }),
});

/** What every route answering an employee says of it: appended to those routes' descriptions (area.ts). */
export const SENSITIVE_NOTE = 'dateOfBirth, personalAddress and taxId are present only for keys with employees:read_sensitive (absent otherwise).';

export const employeeSummarySchema = z.object({
  id: z.uuid(),
  userName: z.string(),
  externalId: z.string().nullable(),
  displayName: z.string().nullable(),
  givenName: z.string().nullable(),
  familyName: z.string().nullable(),
  title: z.string().nullable(),
  department: z.string().nullable(),
  employeeNumber: z.string().nullable(),
  emails: z.array(z.object({ value: z.string(), type: z.string().nullable(), primary: z.boolean() })),
  active: z.boolean().meta({ description: 'Organization access; false after deactivation (over this API or SCIM). The employee and its history stay.' }),
  createdAt: utc(),
  updatedAt: utc(),
  dateOfBirth: z.string().meta({ format: 'date' }).nullable().optional().meta({ description: SENSITIVE }),
  personalAddress: addressSchema.nullable().optional().meta({ description: SENSITIVE }),
  taxId: z.string().nullable().optional().meta({ description: SENSITIVE }),
});
export type EmployeeSummaryResponse = z.infer<typeof employeeSummarySchema>;

export const employeeSchema = employeeSummarySchema.extend({
  maskedIban: z.string().nullable().meta({ description: 'The bank account, masked: leading and trailing groups visible, middle groups masked (`DE89 **** **** **** **** 00`); null when none is set. The full account is only at /bank-account.' }),
});

export const employeeListSchema = z.object({
  items: z.array(employeeSummarySchema).meta({ description: 'Never bank data.' }),
  nextCursor: z.string().nullable().meta({ description: 'Opaque; pass it back as `cursor` with the same filters. A page may hold fewer than `limit` items; only null means the end.' }),
});

export const bankAccountSchema = z.object({
  employeeId: z.uuid(),
  iban: z.string().nullable().meta({ description: 'The full IBAN in print format (groups of four); null when none is set.' }),
  bic: z.string().nullable(),
  accountHolder: z.string().nullable(),
  updatedAt: utc().nullable().meta({ description: 'null when never set.' }),
});

export const bankAccountReceiptSchema = z.object({
  employeeId: z.uuid(),
  maskedIban: z.string().nullable().meta({ description: 'The account just set, masked; null after a clear. GET returns the full account.' }),
  updatedAt: utc(),
});

/** The summary of an employee (lists), with sensitive fields only for keys that may read them. */
export function employeeSummary(e: Employee, principal: Principal): EmployeeSummaryResponse {
  return {
    id: e.id,
    userName: e.userName,
    externalId: e.externalId ?? null,
    displayName: e.displayName ?? null,
    givenName: e.givenName ?? null,
    familyName: e.familyName ?? null,
    title: e.title ?? null,
    department: e.department ?? null,
    employeeNumber: e.employeeNumber ?? null,
    emails: e.emails.map((m) => ({ value: m.value, type: m.type ?? null, primary: m.primary === true })),
    active: e.active,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    ...(hasScope(principal, 'employees:read_sensitive')
      ? { dateOfBirth: e.dateOfBirth ?? null, personalAddress: e.personalAddress ? addressOf(e.personalAddress) : null, taxId: e.taxId ?? null }
      : {}),
  };
}

const addressOf = (a: PersonalAddress): z.infer<typeof addressSchema> => ({
  streetAddress: a.streetAddress,
  postalCode: a.postalCode ?? null,
  locality: a.locality,
  region: a.region ?? null,
  country: a.country,
});

/** The detail of an employee: the summary plus the masked IBAN. */
export const employeeDetail = (e: Employee, maskedIban: string | null, principal: Principal): z.infer<typeof employeeSchema> => ({
  ...employeeSummary(e, principal),
  maskedIban,
});

/** PUT answers with a receipt, never the account: replayable responses are stored for 24 hours. */
export const bankAccountReceipt = (account: StoredBankAccount): z.infer<typeof bankAccountReceiptSchema> => ({
  employeeId: account.employeeId,
  maskedIban: account.maskedIban ?? null,
  updatedAt: account.updatedAt,
});

export const bankAccountResponse = (employeeId: string, account: BankAccountData | null, updatedAt: string | null): z.infer<typeof bankAccountSchema> => ({
  employeeId,
  iban: account ? formatIban(account.iban) : null,
  bic: account?.bic ?? null,
  accountHolder: account?.accountHolder ?? null,
  updatedAt,
});
