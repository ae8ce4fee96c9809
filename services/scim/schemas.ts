import { z } from 'zod';
import { MAX_FILTER_RESULTS } from './discovery';
import { parseUserFilter, type UserClause } from './filter';

/**
 * Query parameters of GET /Users (RFC 7644 §3.4.2): `filter`, `startIndex` (1-based; below
 * 1 counts as 1), `count` (default 100, at most 200; negative counts as 0), `attributes`,
 * `excludedAttributes`. Other parameters (sortBy, sortOrder: sort is not supported) are
 * ignored, as SCIM clients expect.
 */
export const DEFAULT_COUNT = 100;

const integer = (name: string) =>
  z
    .string()
    .trim()
    .regex(/^[+-]?\d{1,9}$/, { message: `${name} must be a whole number.` })
    .transform(Number);

export const listQuerySchema = z
  .object({
    filter: z.string().optional(),
    startIndex: integer('startIndex').optional(),
    count: integer('count').optional(),
    attributes: z.string().optional(),
    excludedAttributes: z.string().optional(),
  })
  .transform((q) => ({
    filter: q.filter,
    startIndex: Math.max(1, q.startIndex ?? 1),
    count: Math.min(MAX_FILTER_RESULTS, Math.max(0, q.count ?? DEFAULT_COUNT)),
    ...(q.attributes !== undefined ? { attributes: q.attributes } : {}),
    ...(q.excludedAttributes !== undefined ? { excludedAttributes: q.excludedAttributes } : {}),
  }));

export type ListQueryInput = z.infer<typeof listQuerySchema>;

/** The clauses of a `filter` parameter; none for an absent or blank one. */
export const filterClauses = (filter: string | undefined): UserClause[] => (filter === undefined || filter.trim() === '' ? [] : parseUserFilter(filter));

/** `attributes` / `excludedAttributes` of GET /Users/{id}. */
export const projectionQuerySchema = z.object({
  attributes: z.string().optional(),
  excludedAttributes: z.string().optional(),
});
