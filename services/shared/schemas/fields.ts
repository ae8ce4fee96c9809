import * as z from 'zod';
import { queryWords } from '../ddb/search';

/**
 * Field schemas shared by the master-data bodies and queries (locations, contacts,
 * materials). Text is trimmed; a nullable text field is cleared with `null` or an empty
 * string, and an empty value is always returned as `null`.
 */

/**
 * The rule of every PATCH body: it changes something, so at least one member is sent (422 at
 * the body otherwise). `.refine(sendsAField, nothingToChange())`; `of` lists the members.
 */
export const sendsAField = (body: object): boolean => Object.values(body).some((v) => v !== undefined);
export const nothingToChange = (of?: string) => ({ message: `Nothing to change: send at least ${of ? `one of ${of}` : 'one field'}.` });

/**
 * What no name, label or title may hold: control characters (C0 with tab and line breaks, DEL
 * and C1: U+0000..U+001F, U+007F..U+009F), the line and paragraph separators (U+2028, U+2029:
 * a name is one line) and the bidirectional embeddings, overrides and
 * isolates (U+202A..U+202E, U+2066..U+2069), which change how the text around them displays
 * ("invoice\u202Efdp.exe" shows as "invoiceexe.pdf"). Bidi marks (U+200E, U+200F, U+061C) stay
 * allowed. Multi-line free texts (nullableText: notes, comments, bodies) keep tabs, line
 * breaks and bidi formatting, and refuse the other control characters (NOT_IN_TEXT):
 * decisions.md says why.
 */
const NAME_REFUSED = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
export const NOT_IN_NAME = new RegExp(`[${NAME_REFUSED}]`, 'u');
/** The same rule as the field's pattern, published in the OpenAPI document. */
const NAME_PATTERN = new RegExp(`^[^${NAME_REFUSED}]*$`);

/** Where the first character `refused` matches is: "; found U+202E at character 8" (counted in characters, from 1), or "" when none is. */
const foundIn = (value: string, refused: RegExp): string => {
  const characters = [...value];
  const at = characters.findIndex((c) => refused.test(c));
  return at < 0 ? '' : `; found U+${characters[at].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at character ${at + 1}`;
};

/** The 422 detail for a name holding what NOT_IN_NAME lists: which character, and where (counted in characters, from 1). */
export const unsafeNameDetail = (field: string, value: string): string =>
  `${field} must not contain control characters (U+0000..U+001F, U+007F..U+009F), line or paragraph separators (U+2028, U+2029) or bidirectional embedding, override or isolate characters (U+202A..U+202E, U+2066..U+2069)${foundIn(value, NOT_IN_NAME)}.`;

/**
 * The character rule of every name, as a check to add after `.trim()` where requiredName and
 * nullableName do not fit (a name whose `""` is refused rather than cleared):
 * `z.string().trim().min(1).max(...).check(nameCharacters('displayName'))`. Published as the
 * field's `pattern`.
 */
export const nameCharacters = (field: string) =>
  z.regex(NAME_PATTERN, { error: (issue) => unsafeNameDetail(field, typeof issue.input === 'string' ? issue.input : '') });

/**
 * What no `userName` may hold, whichever route sets it (POST/PATCH /employees, SCIM): control
 * characters (C0 with tab and line breaks, DEL and C1: U+0000..U+001F, U+007F..U+009F). It is an
 * identifier people type and IdPs match on; unlike a name it may hold bidi formatting, as SCIM
 * has always accepted.
 */
const USER_NAME_REFUSED = '\\u0000-\\u001f\\u007f-\\u009f';
export const NOT_IN_USER_NAME = new RegExp(`[${USER_NAME_REFUSED}]`, 'u');
/** The same rule as the field's pattern, published in the OpenAPI document. */
const USER_NAME_PATTERN = new RegExp(`^[^${USER_NAME_REFUSED}]*$`);

/** The detail for a userName holding what NOT_IN_USER_NAME lists (422 on the API, 400 invalidValue on SCIM): which character, and where. */
export const unsafeUserNameDetail = (value: string): string =>
  `userName must not contain control characters (U+0000..U+001F, U+007F..U+009F: tabs, line breaks, NUL...)${foundIn(value, NOT_IN_USER_NAME)}.`;

/** The userName rule as a check to add after `.trim()`; published as the field's `pattern`. */
export const userNameCharacters = () => z.regex(USER_NAME_PATTERN, { error: (issue) => unsafeUserNameDetail(typeof issue.input === 'string' ? issue.input : '') });

/**
 * What no free text (notes, comments, descriptions, addresses, reasons, message bodies) may
 * hold: the control characters other than tab, line feed and carriage return (U+0000..U+0008,
 * U+000B, U+000C, U+000E..U+001F), DEL (U+007F) and C1 (U+0080..U+009F). NUL and escape
 * sequences (ESC, CSI) mean nothing in a note and break exports, terminals and PDFs. Tabs, line
 * breaks and bidi formatting stay allowed: decisions.md says why.
 */
const TEXT_REFUSED = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f';
export const NOT_IN_TEXT = new RegExp(`[${TEXT_REFUSED}]`, 'u');
/** The same rule as the field's pattern, published in the OpenAPI document. */
const TEXT_PATTERN = new RegExp(`^[^${TEXT_REFUSED}]*$`);

/** The 422 detail for a free text holding what NOT_IN_TEXT lists: which character, and where (counted in characters, from 1). */
export const unsafeTextDetail = (field: string, value: string): string =>
  `${field} must not contain control characters other than tab and line breaks (U+0000..U+0008, U+000B, U+000C, U+000E..U+001F, U+007F..U+009F)${foundIn(value, NOT_IN_TEXT)}.`;

/**
 * The character rule of every free text, as a check to add after `.trim()`:
 * `z.string().trim().max(...).check(freeTextCharacters('reason'))`. nullableText has it; a
 * hand-written free text adds it. Published as the field's `pattern`.
 */
export const freeTextCharacters = (field: string) =>
  z.regex(TEXT_PATTERN, { error: (issue) => unsafeTextDetail(field, typeof issue.input === 'string' ? issue.input : '') });

/** A single-line text for names, labels and titles: trimmed, at most `max` characters, nothing NOT_IN_NAME lists. */
const nameText = (field: string, max: number, error: string) =>
  z
    .string({ error })
    .trim()
    .max(max, { message: `${field} is at most ${max} characters.` })
    .check(nameCharacters(field));

/** A required reason (a correction, a void, a cancellation, a write-off): 1 to 1000 characters after trimming, free-text characters only. */
export const reasonText = (field: string) =>
  z
    .string({ error: `${field} is required: say why.` })
    .trim()
    .min(1, { message: `${field} must not be empty.` })
    .max(1000, { message: `${field} is at most 1000 characters.` })
    .check(freeTextCharacters(field));

/** For a range query's `.superRefine`: `to` must be after `from` (from inclusive, to exclusive), else 422 at `to`. */
export function fromBeforeTo(q: { readonly from?: string; readonly to?: string }, ctx: z.RefinementCtx): void {
  if (q.from !== undefined && q.to !== undefined && q.from >= q.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be after from (from is inclusive, to exclusive).' });
}

/** A required name, label or title: 1 to `max` characters after trimming, no control or bidi formatting characters. */
export const requiredName = (field: string, max = 200) => nameText(field, max, `${field} is required: a non-empty string.`).min(1, { message: `${field} must not be empty.` });

const emptyToNull = (value: string | null): string | null => (value === '' ? null : value);

/** An optional, nullable single-line label (an article number, a role, a subject): requiredName's characters; `""` and `null` both clear it. */
export const nullableName = (field: string, max: number) => nameText(field, max, `${field} must be a string or null.`).nullable().transform(emptyToNull).optional();

/**
 * Optional, nullable free text, possibly multi-line (tabs, line breaks and bidi formatting
 * allowed, no other control characters: NOT_IN_TEXT); `""` and `null` both clear it.
 */
export const nullableText = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string or null.` })
    .trim()
    .max(max, { message: `${field} is at most ${max} characters.` })
    .check(freeTextCharacters(field))
    .nullable()
    .transform(emptyToNull)
    .optional();

/** Optional, nullable text that must match `valid` when not empty; `example` is a valid value (the reference shows it). */
const checkedText = (field: string, max: number, valid: (value: string) => boolean, expected: string, example: string) =>
  z
    .string({ error: `${field} must be a string or null.` })
    .trim()
    .max(max, { message: `${field} is at most ${max} characters.` })
    .refine((v) => v === '' || valid(v), { message: `${field} must be ${expected}.` })
    .meta({ examples: [example] })
    .nullable()
    .transform(emptyToNull)
    .optional();

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ()./-]+$/;

export const nullableEmail = (field: string) => checkedText(field, 254, (v) => EMAIL.test(v), 'an e-mail address such as name@example.com', 'name@example.com');

export const nullablePhone = (field: string) =>
  checkedText(field, 40, (v) => PHONE.test(v) && v.replace(/\D/g, '').length >= 3, 'a phone number: digits, spaces and + ( ) . / - only, at least 3 digits', '+49 30 1234567');

export const nullableUrl = (field: string) =>
  checkedText(
    field,
    2048,
    (v) => {
      try {
        const url = new URL(v);
        return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
      } catch {
        return false;
      }
    },
    'an absolute http or https URL such as https://shop.example.com/item/42',
    'https://shop.example.com/item/42',
  );

/**
 * A number with at most `decimals` decimals, exactly: the value the JSON text parsed to is the
 * one nearest to some k / 10^decimals (0.3 and 1.005 pass with 3; 0.30000000000001, 0.3000001
 * and 0.1 + 0.2 do not). Nothing is rounded away: a value kept as integer milli-units
 * (`Math.round(n * 1000)`) is then exactly the value sent. Use as `.refine(hasAtMostDecimals(3), ...)`.
 */
export const hasAtMostDecimals = (decimals: number) => {
  const factor = 10 ** decimals;
  return (n: number): boolean => Number.isFinite(n) && Math.round(n * factor) / factor === n;
};

/** `q`: word-prefix search; at least one letter or digit. */
export const searchParameter = () =>
  z
    .string()
    .max(100, { message: 'q is at most 100 characters.' })
    .refine((v) => queryWords(v).length > 0, { message: 'q needs at least one letter or digit.' })
    .meta({ description: 'Word-prefix search, case- and accent-insensitive; every word must match.' })
    .optional();

/** A boolean query parameter: `true` or `false`. */
export const booleanParameter = (name: string, description: string) =>
  z
    .enum(['true', 'false'], { error: `${name} must be true or false.` })
    .transform((v) => v === 'true')
    .meta({ description })
    .optional();

export const cursorParameter = () => z.string().max(2048).meta({ description: 'A nextCursor, exactly as returned, with the same filters.' }).optional();

/** A response time: RFC 3339 UTC. */
export const utc = () => z.string().meta({ format: 'date-time', description: 'RFC 3339, UTC' });

/** `{ items, nextCursor }`: the response of a cursor-paged list. */
const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable().meta({ description: 'Opaque; pass it back as `cursor` with the same filters. null on the last page.' }) });
const pages = new WeakMap<z.ZodType, z.ZodType>();
/**
 * The page of a list of `item`s. One schema per item schema, so the route that answers it and
 * the area's `schemas` (its OpenAPI component) name the same object: `pageSchema(x)` where used.
 */
export function pageSchema<T extends z.ZodType>(item: T): ReturnType<typeof pageOf<T>> {
  const known = pages.get(item) as ReturnType<typeof pageOf<T>> | undefined;
  if (known) return known;
  const page = pageOf(item);
  pages.set(item, page);
  return page;
}

/** A presigned S3 request handed to a client (documents, export files): a secret until it expires. */
export const presignedRequest = (method: 'PUT' | 'GET') =>
  z.object({
    method: z.literal(method),
    url: z.string().meta({ description: 'A presigned URL: a secret until it expires. Never a permanent link.' }),
    headers: z.record(z.string(), z.string()).meta({ description: 'Headers to send exactly as given (they are signed).' }),
    expiresAt: utc(),
  });
