import * as z from 'zod';
import { documentOf } from './domain-document';
import { plusAsSpace } from './domain-filter';
import { CORE_USER_URN, ENTERPRISE_USER_URN, etagOf, LIST_RESPONSE_URN, type ScimUser } from './model';
import { MAX_FILTER_RESULTS } from './schemas-discovery';

/**
 * The SCIM wire (RFC 7643/7644): query parameters, the request bodies as the contract shows
 * them (read leniently by domain-patch.ts, as Entra ID and Okta need), and the User resource
 * and ListResponse the API answers with. Query parameters other than these are ignored on
 * SCIM routes, as SCIM clients expect (sortBy, sortOrder: sort is not supported).
 */
export const DEFAULT_COUNT = 100;

/** A whole number of any length: one past the end of the set is an empty page, not an error (RFC 7644 §3.4.2.4). */
const integer = (name: string) =>
  z
    .string()
    .trim()
    .regex(/^[+-]?\d+$/, { message: `${name} must be a whole number.` })
    .transform(Number);

/**
 * GET /Users (RFC 7644 §3.4.2): `filter`, `startIndex` (1-based; below 1 counts as 1),
 * `count` (default 100, at most 200; negative counts as 0), `attributes`, `excludedAttributes`.
 */
export const listQuery = z.object({
  filter: z.string().optional().meta({ description: 'eq comparisons joined by and, e.g. userName eq "a@b.example" (decisions.md)' }),
  startIndex: integer('startIndex').optional().meta({ description: '1-based index of the first result; past the end: an empty page' }),
  count: integer('count').optional().meta({ description: `Results per page: default ${DEFAULT_COUNT}, at most ${MAX_FILTER_RESULTS}` }),
  attributes: z.string().optional().meta({ description: 'Attributes to return (RFC 7644 §3.4.2.5)' }),
  excludedAttributes: z.string().optional().meta({ description: 'Attributes to leave out (RFC 7644 §3.4.2.5)' }),
});

export interface ListParameters {
  readonly filter?: string;
  readonly startIndex: number;
  readonly count: number;
  readonly attributes?: string;
  readonly excludedAttributes?: string;
}

/** The list query with its defaults and bounds applied. */
export const listParameters = (q: z.output<typeof listQuery>): ListParameters => ({
  ...(q.filter !== undefined ? { filter: q.filter } : {}),
  startIndex: Math.max(1, Math.min(q.startIndex ?? 1, Number.MAX_SAFE_INTEGER)),
  count: Math.min(MAX_FILTER_RESULTS, Math.max(0, q.count ?? DEFAULT_COUNT)),
  ...(q.attributes !== undefined ? { attributes: q.attributes } : {}),
  ...(q.excludedAttributes !== undefined ? { excludedAttributes: q.excludedAttributes } : {}),
});

/** `attributes` / `excludedAttributes` of GET /Users/{id}. */
export const projectionQuery = z.object({
  attributes: z.string().optional().meta({ description: 'Attributes to return (RFC 7644 §3.4.2.5)' }),
  excludedAttributes: z.string().optional().meta({ description: 'Attributes to leave out (RFC 7644 §3.4.2.5)' }),
});

/** Discovery routes take no parameters of their own; any sent are ignored, as SCIM clients expect. */
export const noQuery = z.object({});

/** A SCIM body: read by the domain with the leniency identity providers need (never 422). */
export const scimBody = z.unknown();

/** The absolute SCIM base URL of an organization (…/v1/organizations/<org>/scim/v2), from configuration. */
export const scimBase = (orgUrl: string): string => `${orgUrl}/scim/v2`;

export const userLocation = (base: string, id: string): string => `${base}/Users/${id}`;

/** The SCIM User resource of an employee (RFC 7643 §4.1, with the enterprise extension when it has values). */
export function toScimUser(e: ScimUser, base: string): Record<string, unknown> {
  const { core, enterprise } = documentOf(e);
  const hasEnterprise = Object.keys(enterprise).length > 0;
  return {
    schemas: hasEnterprise ? [CORE_USER_URN, ENTERPRISE_USER_URN] : [CORE_USER_URN],
    id: e.id,
    ...core,
    ...(hasEnterprise ? { [ENTERPRISE_USER_URN]: enterprise } : {}),
    meta: { resourceType: 'User', created: e.createdAt, lastModified: e.updatedAt, location: userLocation(base, e.id), version: etagOf(e) },
  };
}

export interface Projection {
  readonly attributes?: string;
  readonly excludedAttributes?: string;
}

/** Attributes that are always returned (RFC 7643 §7 `returned: always`, plus `schemas`). */
const ALWAYS = new Set(['id', 'schemas']);

/**
 * Applies `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5) at the level of top-level
 * attributes: a sub-attribute or a value filter (`emails[type eq "work"]`) selects its whole
 * attribute. `attributes` wins when both are given.
 */
export function project(resource: Record<string, unknown>, projection: Projection): Record<string, unknown> {
  const pick = projection.attributes !== undefined ? 'attributes' : projection.excludedAttributes !== undefined ? 'excludedAttributes' : undefined;
  if (!pick) return resource;
  const names = new Set(attributeNames(projection[pick]!));
  const selected = (key: string) => names.has(key.toLowerCase());
  return Object.fromEntries(Object.entries(resource).filter(([key]) => ALWAYS.has(key) || (pick === 'attributes' ? selected(key) : !selected(key))));
}
/** Top-level attribute names (lower case) of a comma-separated attribute list. */
function attributeNames(list: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (const ch of plusAsSpace(list)) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && ch === '[') depth += 1;
    if (!quoted && ch === ']') depth -= 1;
    if (!quoted && depth === 0 && ch === ',') {
      names.push(current);
      current = '';
    } else current += ch;
  }
  names.push(current);
  return names.map(topLevelName).filter((n) => n !== '');
}

function topLevelName(raw: string): string {
  const name = raw.trim().toLowerCase();
  const enterprise = ENTERPRISE_USER_URN.toLowerCase();
  if (name === enterprise || name.startsWith(`${enterprise}:`)) return enterprise;
  const core = CORE_USER_URN.toLowerCase();
  const unqualified = name.startsWith(`${core}:`) ? name.slice(core.length + 1) : name;
  return unqualified.split(/[.[]/)[0];
}

/** RFC 7644 §3.4.2 ListResponse of one page. */
export function listResponse(resources: readonly Record<string, unknown>[], totalResults: number, startIndex: number) {
  return { schemas: [LIST_RESPONSE_URN], totalResults, startIndex, itemsPerPage: resources.length, Resources: resources };
}
