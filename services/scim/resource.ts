import type { Employee } from '../employees/public';
import { ORG_PREFIX, SCIM_PREFIX } from '../routes';
import type { ApiRequest } from '../shared/http/request';
import { documentOf } from './document';
import { plusAsSpace } from './filter';
import { CORE_USER_URN, ENTERPRISE_USER_URN, LIST_RESPONSE_URN } from './schema';

/** The weak ETag of a user (RFC 7644 §3.14): `W/"<version>"`. */
export const etagOf = (e: Pick<Employee, 'version'>): string => `W/"${e.version}"`;

/**
 * Whether an If-Match header admits the current version: absent, `*`, or any listed tag
 * whose opaque value is the version (weak comparison, RFC 9110 §13.1.1).
 */
export function ifMatchHolds(header: string | undefined, e: Pick<Employee, 'version'>): boolean {
  if (header === undefined || header.trim() === '') return true;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//i, '').replace(/^"(.*)"$/, '$1') === String(e.version);
  });
}

/** The absolute SCIM base URL of the request (…/v1/organizations/<org>/scim/v2). */
export function scimBase(request: ApiRequest): string {
  const at = request.instance.indexOf(SCIM_PREFIX);
  const path = at >= 0 ? request.instance.slice(0, at + SCIM_PREFIX.length) : `${ORG_PREFIX.replace('{organizationId}', request.principal.organizationId)}${SCIM_PREFIX}`;
  const host = request.headers.host;
  if (!host) return path;
  const proto = request.headers['x-forwarded-proto']?.split(',')[0].trim() || 'http';
  return `${proto}://${host}${path}`;
}

export const userLocation = (base: string, id: string): string => `${base}/Users/${id}`;

/** The SCIM User resource of an employee (RFC 7643 §4.1, with the enterprise extension when it has values). */
export function toScimUser(e: Employee, base: string): Record<string, unknown> {
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
