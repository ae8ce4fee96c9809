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
export const AREAS = ['work-events', 'timesheets', 'audit', 'scim', 'organization', 'employees', 'locations', 'materials', 'reports'] as const;
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

  route('GET', '/organization', 'organization', 'getOrganization', ['organization:read'], 'Get the organization'),
  route('GET', '/settings', 'organization', 'getSettings', ['organization:read'], 'Get the organization settings'),
  route('PATCH', '/settings', 'organization', 'updateSettings', ['organization:write'], 'Update the organization settings'),

  route('GET', '/employees', 'employees', 'listEmployees', ['employees:read'], 'List or search employees'),
  route('POST', '/employees', 'employees', 'createEmployee', ['employees:write'], 'Create an employee'),
  route('GET', '/employees/{employeeId}', 'employees', 'getEmployee', ['employees:read'], 'Get one employee'),
  route('PATCH', '/employees/{employeeId}', 'employees', 'updateEmployee', ['employees:write'], 'Update an employee'),
  route('POST', '/employees/{employeeId}/deactivate', 'employees', 'deactivateEmployee', ['employees:write'], 'Deactivate an employee'),
  route('GET', '/employees/{employeeId}/bank-account', 'employees', 'getBankAccount', ['employees:read_financial'], "Get an employee's bank account"),
  route('PUT', '/employees/{employeeId}/bank-account', 'employees', 'putBankAccount', ['employees:write', 'employees:write_financial'], "Set or clear an employee's bank account"),

  route('GET', '/locations', 'locations', 'listLocations', ['locations:read'], 'List or search locations'),
  route('POST', '/locations', 'locations', 'createLocation', ['locations:write'], 'Create a location'),
  route('GET', '/locations/{locationId}', 'locations', 'getLocation', ['locations:read'], 'Get one location'),
  route('PATCH', '/locations/{locationId}', 'locations', 'updateLocation', ['locations:write'], 'Update a location'),
  route('DELETE', '/locations/{locationId}', 'locations', 'archiveLocation', ['locations:write'], 'Archive a location'),
  route('POST', '/locations/{locationId}/qr/rotate', 'locations', 'rotateLocationQr', ['locations:qr'], "Rotate a location's QR secret"),
  route('PUT', '/locations/{locationId}/contacts/{contactId}', 'locations', 'linkLocationContact', ['locations:write', 'contacts:write'], 'Link a contact to a location'),
  route('DELETE', '/locations/{locationId}/contacts/{contactId}', 'locations', 'unlinkLocationContact', ['locations:write', 'contacts:write'], 'Unlink a contact from a location'),
  route('GET', '/contacts', 'locations', 'listContacts', ['contacts:read'], 'List or search reusable contacts'),
  route('POST', '/contacts', 'locations', 'createContact', ['contacts:write'], 'Create a reusable contact'),
  route('GET', '/contacts/{contactId}', 'locations', 'getContact', ['contacts:read'], 'Get one contact'),
  route('PATCH', '/contacts/{contactId}', 'locations', 'updateContact', ['contacts:write'], 'Update a contact'),

  route('GET', '/materials', 'materials', 'listMaterials', ['materials:read'], 'List or search materials'),
  route('POST', '/materials', 'materials', 'createMaterial', ['materials:write'], 'Create a material'),
  route('GET', '/materials/stock-adjustments', 'materials', 'listStockAdjustments', ['materials:read'], 'List stock adjustments'),
  route('POST', '/materials/stock-adjustments', 'materials', 'createStockAdjustment', ['materials:write'], 'Append a stock adjustment'),
  route('GET', '/materials/{materialId}', 'materials', 'getMaterial', ['materials:read'], 'Get one material'),
  route('PATCH', '/materials/{materialId}', 'materials', 'updateMaterial', ['materials:write'], 'Update a material'),
  route('DELETE', '/materials/{materialId}', 'materials', 'archiveMaterial', ['materials:write'], 'Archive a material'),
  route('GET', '/locations/{locationId}/materials', 'materials', 'listLocationMaterials', ['materials:read'], 'Stock of the materials linked to a location'),
  route('PUT', '/locations/{locationId}/materials/{materialId}', 'materials', 'linkLocationMaterial', ['materials:write'], 'Link a material to a location'),
  route('DELETE', '/locations/{locationId}/materials/{materialId}', 'materials', 'unlinkLocationMaterial', ['materials:write'], 'Unlink a material from a location'),

  route('POST', '/reports/generation-jobs', 'reports', 'createReportJob', ['reports:write'], 'Request an export (CSV, PDF, monthly report or payroll dispatch)'),
  route('GET', '/reports/generation-jobs/{jobId}', 'reports', 'getReportJob', ['reports:read'], 'Progress and result of an export request'),
  route('GET', '/reports', 'reports', 'listReports', ['reports:read'], 'Export manifests, newest first'),
  route('GET', '/reports/outbox', 'reports', 'listPayrollOutbox', ['reports:read'], 'Payroll dispatches waiting for the integration job'),
  route('GET', '/reports/{manifestId}', 'reports', 'getReport', ['reports:read'], 'One export manifest with the revisions it contains'),
  route('GET', '/reports/files/{manifestId}', 'reports', 'downloadReport', ['reports:read'], 'The file of an export'),

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
