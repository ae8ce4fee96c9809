import { AREAS, FUNCTIONS } from './registry';
import { resourcePath, routeKey, routeRows, type PublicRouteRow, type RouteRow } from './shared/area';

/**
 * THE route table, derived from the area registry: the flat list of every route with its
 * contract, area and operation. The CDK REST APIs (lib/constructs/api.ts), the local gateway
 * (services/local/gateway.ts), the drills and the OpenAPI document walk it.
 */
export const ROUTES: readonly RouteRow[] = AREAS.flatMap(routeRows);

/**
 * The routes anyone may call (no authorizer, no API key), on the public REST API: the API
 * reference and its OpenAPI document. The stack and the local gateway serve exactly these
 * without a key, with the function that declares them.
 */
export const PUBLIC_ROUTES: readonly PublicRouteRow[] = FUNCTIONS.flatMap((f) => (f.publicRoutes ?? []).map((route) => ({ ...route, function: f.name })));

const byKey = new Map(ROUTES.map((r) => [routeKey(r.method, resourcePath(r)), r]));

/** Finds the route of a proxy event (`httpMethod` + `resource`). */
export const findRoute = (method: string, resource: string): RouteRow | undefined => byKey.get(routeKey(method, resource));

export const routesOf = (area: string): RouteRow[] => ROUTES.filter((r) => r.area === area);

export { ORG_PREFIX, resourcePath, routeKey, SCIM_PREFIX, type ApiName, type HttpMethod, type PublicRouteRow, type RouteRow } from './shared/area';
export { isScope, SCOPES, type Scope } from './shared/auth/scopes';

/** A route of the table (the former name of RouteRow). */
export type RouteSpec = RouteRow;

/** An area's name: the folder under services/ of its handler. */
export type Area = string;

/** The names of the areas, in registry order. */
export const AREA_NAMES: readonly string[] = AREAS.map((a) => a.name);
