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
  throw new ValidationError(result.error.issues.flatMap((issue) => toFieldErrors(issue, location)));
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
  if (issue.code === 'invalid_type') {
    const received = (issue as { input?: unknown }).input;
    if (received === undefined) return `Required: expected ${issue.expected}.`;
    return `Expected ${issue.expected}, got ${received === null ? 'null' : Array.isArray(received) ? 'array' : typeof received}.`;
  }
  return issue.message.endsWith('.') ? issue.message : `${issue.message}.`;
}
