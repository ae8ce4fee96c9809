import type { z } from 'zod';
import { ValidationError, type FieldError } from '../errors';

type Location = 'body' | 'query' | 'header';

/**
 * Parses input with a zod schema; every issue becomes a FieldError that says where the value
 * is (JSON Pointer into the body, query parameter or header), what was wrong and what is
 * expected. Throws ValidationError (422).
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: Location): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // Only for a refusal, parsed again so that the issues carry the value given (reportInput)
  // and a type issue the schema has no message for gets ZOD_DEFAULT (describe() tells it from
  // the schema's own): every request that passes keeps zod's plain, fastest parse.
  const detailed = schema.safeParse(value, { reportInput: true, error: (issue) => (issue.code === 'invalid_type' ? ZOD_DEFAULT : undefined) });
  const issues = detailed.success ? result.error.issues : detailed.error.issues;
  throw new ValidationError(issues.flatMap((issue) => toFieldErrors(issue, location)));
}

export const parseBody = <S extends z.ZodType>(schema: S, body: unknown): z.infer<S> => {
  if (body === undefined) throw new ValidationError([{ pointer: '', detail: 'A JSON body is required.' }]);
  return parseInput(schema, body, 'body');
};

export const parseQuery = <S extends z.ZodType>(schema: S, query: unknown): z.infer<S> => parseInput(schema, query, 'query');

export const parseHeaders = <S extends z.ZodType>(schema: S, headers: unknown): z.infer<S> => parseInput(schema, headers, 'header');

type Issue = z.core.$ZodIssue;

function toFieldErrors(issue: Issue, location: Location): FieldError[] {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => at(location, [...path, key], 'Unknown field: remove it; strict schemas reject fields they do not define.'));
  }
  return [at(location, path, describe(issue))];
}

function at(location: Location, path: string[], detail: string): FieldError {
  if (location === 'query') return { parameter: path[0] ?? '', detail };
  if (location === 'header') return { header: path[0] ?? '', detail };
  return { pointer: path.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''), detail };
}

function describe(issue: Issue): string {
  if (issue.code === 'invalid_type') return typeDetail(issue);
  return sentence(issue.message);
}

/** The message a type issue gets when its schema has none of its own (see parseInput). */
const ZOD_DEFAULT = 'zod:invalid_type';

const sentence = (message: string): string => (message.endsWith('.') ? message : `${message}.`);
const clause = (message: string): string => message.replace(/\.$/, '');

/** What zod's `expected` names, as a reader says it. */
const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
  bigint: 'an integer',
  date: 'a date',
};
const expectedOf = (expected: string): string => EXPECTED[expected] ?? expected;

const NUMERIC = new Set(['number', 'int', 'bigint']);

/**
 * What kind of value was given, for a detail. The value itself only where it cannot be
 * anything but a number for a number field (4.5 for a whole number); otherwise its kind and
 * size: a field may hold personal, bank or location data, and the detail is a response,
 * so a string's contents, a number sent for a text field and the contents of arrays and
 * objects are never echoed.
 */
export function givenOf(input: unknown, expected?: string): string {
  if (input === null) return 'null';
  if (typeof input === 'boolean') return String(input);
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return Number.isNaN(input) ? 'NaN' : `a number too large to represent (beyond ±1.8e308, it reads as ${input})`;
    return expected !== undefined && NUMERIC.has(expected) ? `the number ${input}` : 'a number';
  }
  if (typeof input === 'string') {
    const length = [...input].length;
    return length === 0 ? 'an empty string' : `a string of ${length} character${length === 1 ? '' : 's'}`;
  }
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'object') return 'an object';
  return `a value of type ${typeof input}`;
}

/**
 * The detail of a value of the wrong type. "Required" only when the member is absent; a value
 * given is named ("rating must be a whole number from 1 to 5; got the number 4.5", "Expected a
 * number, got a string of 1 character."). A schema's own message is kept; one that says "is required"
 * is reworded for a value given, which is not missing but of the wrong type.
 */
export function typeDetail(issue: Pick<z.core.$ZodIssueInvalidType, 'expected' | 'message'> & { readonly input?: unknown }): string {
  const own = issue.message === ZOD_DEFAULT ? undefined : issue.message;
  const outOfRange = typeof issue.input === 'number' && !Number.isFinite(issue.input);
  const expected = outOfRange ? expectedOf(issue.expected).replace(/^(an?) /, '$1 finite ') : expectedOf(issue.expected);
  if (issue.input === undefined) return own ? sentence(own) : `Required: expected ${expected}.`;
  const given = givenOf(issue.input, issue.expected);
  if (!own) return `Expected ${expected}, got ${given}.`;
  const required = /^(\S+) is required(?:: (.+?))?\.?$/.exec(own);
  if (required) return `${required[1]} must be ${expected}${required[2] ? ` (${required[2]})` : ''}; got ${given}.`;
  if (/\brequired\b/i.test(own)) return `Expected ${expected}, got ${given}.`;
  return `${clause(own)}; got ${given}.`;
}
