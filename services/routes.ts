/**
 * THE route table: plain data that drives the CDK REST APIs (lib/constructs/api.ts), the
 * local gateway (services/local/gateway.ts), the handlers' dispatch and scope checks, and
 * the OpenAPI document. Paths are API Gateway resource paths relative to ORG_PREFIX.
 */

/** Every scope of the resource catalogue (organization-api.md, "Resource catalogue"). */
export const SCOPES = [
  'organization:read',
  'organization:write',
  'audit:read',
  'dashboard:read',
  'activity:read',
  'employees:read',
  'employees:write',
  'employees:read_sensitive',
  'employees:read_financial',
  'employees:write_financial',
  'locations:read',
  'locations:write',
  'locations:qr',
  'contacts:read',
  'contacts:write',
  'tasks:read',
  'tasks:write',
  'documents:read',
  'documents:write',
  'documents:download',
  'work_events:read',
  'timesheets:read',
  'timesheets:write',
  'planning:read',
  'planning:write',
  'materials:read',
  'materials:write',
  'customers:read',
  'customers:write',
  'customer_access:read',
  'customer_access:write',
  'feedback:read',
  'feedback:write',
  'messages:read',
  'messages:write',
  'quality:read',
  'quality:write',
  'recruitment:read',
  'recruitment:write',
  'commerce:read',
  'commerce:write',
  'integrations:read',
  'integrations:write',
  'reports:read',
  'reports:write',
  'scim:read',
  'scim:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** Lambda functions behind the public and SCIM APIs: one per resource area. */
export const AREAS = ['work-events', 'timesheets', 'audit', 'scim'] as const;
export type Area = (typeof AREAS)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Which REST API serves the route: `public` (problem+json errors) or `scim` (its own REST
 * API and stage, with gateway responses in the SCIM error schema).
 */
export type ApiName = 'public' | 'scim';

export interface RouteSpec {
  readonly method: HttpMethod;
  /** Resource path relative to ORG_PREFIX, API Gateway style (`/timesheets/{timeEntryId}`). */
  readonly path: string;
  readonly area: Area;
  /** Name of the operation in the area's handler. */
  readonly operation: string;
  /** Every scope listed is required. */
  readonly scopes: readonly Scope[];
  readonly api: ApiName;
  readonly summary: string;
}

export const ORG_PREFIX = '/v1/organizations/{organizationId}';
export const SCIM_PREFIX = '/scim/v2';

const route = (
  method: HttpMethod,
  path: string,
  area: Area,
  operation: string,
  scopes: Scope[],
  summary: string,
  api: ApiName = 'public',
): RouteSpec => ({ method, path, area, operation, scopes, api, summary });

const scim = (method: HttpMethod, path: string, operation: string, scope: Scope, summary: string) =>
  route(method, `${SCIM_PREFIX}${path}`, 'scim', operation, [scope], summary, 'scim');

export const ROUTES: readonly RouteSpec[] = [
  route('GET', '/work-events', 'work-events', 'listWorkEvents', ['work_events:read'], 'List work events'),
  route('GET', '/work-events/{workEventId}', 'work-events', 'getWorkEvent', ['work_events:read'], 'Get one work event'),
  route('GET', '/timesheets', 'timesheets', 'listTimeEntries', ['timesheets:read'], 'List time entries'),
  route('POST', '/timesheets', 'timesheets', 'createTimeEntry', ['timesheets:write'], 'Add a manual time entry'),
  route('GET', '/timesheets/{timeEntryId}', 'timesheets', 'getTimeEntry', ['timesheets:read'], 'Get one time entry'),
  route('PATCH', '/timesheets/{timeEntryId}', 'timesheets', 'correctTimeEntry', ['timesheets:write'], 'Correct a time entry'),
  route('POST', '/timesheets/{timeEntryId}/void', 'timesheets', 'voidTimeEntry', ['timesheets:write'], 'Void a time entry'),
  route('GET', '/audit', 'audit', 'listAuditEntries', ['audit:read'], 'List audit entries, newest first'),

  scim('GET', '/ServiceProviderConfig', 'getServiceProviderConfig', 'scim:read', 'SCIM service provider configuration'),
  scim('GET', '/ResourceTypes', 'listResourceTypes', 'scim:read', 'SCIM resource types'),
  scim('GET', '/ResourceTypes/{resourceTypeId}', 'getResourceType', 'scim:read', 'One SCIM resource type'),
  scim('GET', '/Schemas', 'listSchemas', 'scim:read', 'SCIM schemas'),
  scim('GET', '/Schemas/{schemaId}', 'getSchema', 'scim:read', 'One SCIM schema'),
  scim('GET', '/Users', 'listUsers', 'scim:read', 'List or filter SCIM users'),
  scim('POST', '/Users', 'createUser', 'scim:write', 'Provision a SCIM user'),
  scim('GET', '/Users/{userId}', 'getUser', 'scim:read', 'Get one SCIM user'),
  scim('PUT', '/Users/{userId}', 'replaceUser', 'scim:write', 'Replace a SCIM user'),
  scim('PATCH', '/Users/{userId}', 'patchUser', 'scim:write', 'Patch a SCIM user'),
  scim('DELETE', '/Users/{userId}', 'deleteUser', 'scim:write', 'Deprovision a SCIM user'),
];

/** The full API Gateway resource path of a route. */
export const resourcePath = (r: Pick<RouteSpec, 'path'>): string => `${ORG_PREFIX}${r.path}`;

/** `GET /v1/organizations/{organizationId}/timesheets` */
export const routeKey = (method: string, resource: string): string => `${method.toUpperCase()} ${resource}`;

const byKey = new Map(ROUTES.map((r) => [routeKey(r.method, resourcePath(r)), r]));

/** Finds the route of a proxy event (`httpMethod` + `resource`). */
export const findRoute = (method: string, resource: string): RouteSpec | undefined => byKey.get(routeKey(method, resource));

export const routesOf = (area: Area): RouteSpec[] => ROUTES.filter((r) => r.area === area);
