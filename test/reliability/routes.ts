import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ROUTES, type Area, type RouteSpec } from '../../services/routes';
import type { ApiFixture } from '../support/api';

/**
 * ROUTES as the drills walk them: every route of the route table, its URL with chosen path
 * parameters, and whether its area is still a skeleton (answers 500 "not implemented").
 */
export const pathParamsOf = (route: RouteSpec): string[] => [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

/** The id a drill uses for a path parameter it has no real id for: well-formed, and nowhere in any table. */
export const UNKNOWN_ID = '9c3d4e5f-6a7b-4c8d-9e0f-a1b2c3d4e5f6';

export function urlOf(api: ApiFixture, route: RouteSpec, params: Readonly<Record<string, string>>, organizationId?: string): string {
  // A parameter no drill knows yet (a new area's): a well-formed id that exists nowhere, so the
  // route's own checks answer (404 for an unknown id), not the UUID check.
  const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? UNKNOWN_ID));
  return `${api.orgUrl(organizationId)}${path}`;
}

/**
 * An area whose handler is still the temporary skeleton of the change series that builds it
 * (`// TEMPORARY skeleton` at the top of services/<area>/handler.ts). The drills still walk
 * its routes (authorizer, scopes, media types, body limits run before the handler), but they
 * cannot expect its operations to answer yet; they list what they skipped.
 */
export function isSkeleton(area: Area): boolean {
  const source = readFileSync(resolve(process.cwd(), `services/${area}/handler.ts`), 'utf8');
  return /TEMPORARY skeleton/.test(source.slice(0, 500));
}

export const routeName = (r: RouteSpec) => `${r.method} ${r.path}`;

export { ROUTES };
