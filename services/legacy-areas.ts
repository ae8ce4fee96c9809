import type { z } from 'zod';
import { employeesDocs } from './employees/openapi';
import { locationsDocs } from './locations/openapi';
import { SCIM_SCHEMAS } from './openapi/scim';
import type { AreaDocs, OperationDoc } from './openapi/types';
import { organizationDocs } from './organization/openapi';
import { SCIM_PREFIX, type AreaDefinition, type FunctionDefinition, type HttpMethod, type RouteContract, type RouteRow } from './shared/area';
import type { Scope } from './shared/auth/scopes';
import type { ErrorCode } from './shared/errors';
import { READ_WRITE, type FunctionPermissions } from './shared/permissions';

/**
 * TEMPORARY, while the area kit is rolled out (issue 10): the areas not yet declared in
 * their own `area.ts`, built from their old route rows and OpenAPI docs so that the registry
 * already drives the stack, the local gateway and the OpenAPI document. Each migrated area
 * replaces its entry here with its `area.ts`; this file goes when the list is empty.
 */

type Row = readonly [HttpMethod, string, string, readonly Scope[], string];

function legacyArea(name: string, options: { api?: 'public' | 'scim'; description: string; permissions: FunctionPermissions; auditEntityTypes: string[]; docs?: AreaDocs; rows: Row[]; textParams?: string[]; functions?: FunctionDefinition[] }): AreaDefinition {
  const schemaByRef = options.docs?.schemas ?? {};
  const routes: Record<string, RouteContract> = {};
  for (const [method, path, operation, scopes, summary] of options.rows) {
    const doc: OperationDoc | undefined = options.docs?.operations[operation];
    routes[operation] = {
      method,
      path,
      scopes,
      summary,
      description: doc?.description ?? summary,
      ...(options.textParams ? { textParams: options.textParams } : {}),
      ...(doc?.query ? { query: doc.query } : {}),
      ...(doc?.body ? { body: doc.body } : {}),
      ...(doc?.headers?.['Idempotency-Key'] ? { idempotencyKey: doc.headers['Idempotency-Key'] } : {}),
      ...(doc?.headers?.['If-Match'] ? { ifMatch: doc.headers['If-Match'] } : {}),
      success: doc
        ? {
            status: doc.success.status,
            description: doc.success.description,
            ...(doc.success.ref ? { schema: schemaByRef[doc.success.ref] as z.ZodType } : {}),
            ...(doc.success.headers ? { headers: doc.success.headers } : {}),
            ...(doc.success.content ? { content: doc.success.content } : {}),
          }
        : { status: 200, description: summary },
      problems: (doc?.problems ?? []) as ErrorCode[],
    };
  }
  return {
    name,
    api: options.api ?? 'public',
    description: options.description,
    permissions: options.permissions,
    auditEntityTypes: options.auditEntityTypes,
    schemas: schemaByRef,
    routes,
    ...(options.functions ? { functions: options.functions } : {}),
    ...(options.api === 'scim' ? { openapi: { operation: SCIM_SCHEMAS.operation as unknown as (route: RouteRow) => Record<string, unknown>, components: SCIM_SCHEMAS.components } } : {}),
  };
}

const scim = (method: HttpMethod, path: string, operation: string, scope: Scope, summary: string): Row => [method, `${SCIM_PREFIX}${path}`, operation, [scope], summary];

export const LEGACY_AREAS: readonly AreaDefinition[] = [
  legacyArea('scim', {
    api: 'scim',
    description: 'SCIM 2.0 user provisioning (RFC 7643/7644).',
    permissions: { table: READ_WRITE, cursorSecret: false, restrictedDataKey: false },
    auditEntityTypes: ['employee'],
    textParams: ['resourceTypeId', 'schemaId'],
    rows: [
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
    ],
  }),
  legacyArea('organization', {
    description: 'The organization, its settings and capability facts.',
    // Organization record and settings (updated with their audit entry in one transaction;
    // DeleteItem releases the idempotency lock of a failed PATCH /settings).
    permissions: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'], cursorSecret: false, restrictedDataKey: false },
    auditEntityTypes: ['organization'],
    docs: organizationDocs,
    rows: [
      ['GET', '/organization', 'getOrganization', ['organization:read'], 'Get the organization'],
      ['GET', '/settings', 'getSettings', ['organization:read'], 'Get the organization settings'],
      ['PATCH', '/settings', 'updateSettings', ['organization:write'], 'Update the organization settings'],
    ],
  }),
  legacyArea('employees', {
    description: 'Employees (the records SCIM provisions) and their bank accounts.',
    // Employees with their guards, search index and bank account (sealed; decrypted only by GET bank-account).
    permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: true, restrictedDataDecrypt: true },
    auditEntityTypes: ['employee'],
    docs: employeesDocs,
    rows: [
      ['GET', '/employees', 'listEmployees', ['employees:read'], 'List or search employees'],
      ['POST', '/employees', 'createEmployee', ['employees:write'], 'Create an employee'],
      ['GET', '/employees/{employeeId}', 'getEmployee', ['employees:read'], 'Get one employee'],
      ['PATCH', '/employees/{employeeId}', 'updateEmployee', ['employees:write'], 'Update an employee'],
      ['POST', '/employees/{employeeId}/deactivate', 'deactivateEmployee', ['employees:write'], 'Deactivate an employee'],
      ['GET', '/employees/{employeeId}/bank-account', 'getBankAccount', ['employees:read_financial'], "Get an employee's bank account"],
      ['PUT', '/employees/{employeeId}/bank-account', 'putBankAccount', ['employees:write', 'employees:write_financial'], "Set or clear an employee's bank account"],
    ],
  }),
  legacyArea('locations', {
    description: 'Locations, reusable contacts and QR rotation.',
    // Locations, reusable contacts, QR secrets (hashed) and their search index.
    permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
    auditEntityTypes: ['location', 'contact'],
    docs: locationsDocs,
    rows: [
      ['GET', '/locations', 'listLocations', ['locations:read'], 'List or search locations'],
      ['POST', '/locations', 'createLocation', ['locations:write'], 'Create a location'],
      ['GET', '/locations/{locationId}', 'getLocation', ['locations:read'], 'Get one location'],
      ['PATCH', '/locations/{locationId}', 'updateLocation', ['locations:write'], 'Update a location'],
      ['DELETE', '/locations/{locationId}', 'archiveLocation', ['locations:write'], 'Archive a location'],
      ['POST', '/locations/{locationId}/qr/rotate', 'rotateLocationQr', ['locations:qr'], "Rotate a location's QR secret"],
      ['PUT', '/locations/{locationId}/contacts/{contactId}', 'linkLocationContact', ['locations:write', 'contacts:write'], 'Link a contact to a location'],
      ['DELETE', '/locations/{locationId}/contacts/{contactId}', 'unlinkLocationContact', ['locations:write', 'contacts:write'], 'Unlink a contact from a location'],
      ['GET', '/contacts', 'listContacts', ['contacts:read'], 'List or search reusable contacts'],
      ['POST', '/contacts', 'createContact', ['contacts:write'], 'Create a reusable contact'],
      ['GET', '/contacts/{contactId}', 'getContact', ['contacts:read'], 'Get one contact'],
      ['PATCH', '/contacts/{contactId}', 'updateContact', ['contacts:write'], 'Update a contact'],
    ],
  }),
];

/** The declaration of a legacy area, for its createHandler. */
export function legacyAreaNamed(name: string): AreaDefinition {
  const area = LEGACY_AREAS.find((a) => a.name === name);
  if (!area) throw new Error(`No legacy area ${name}.`);
  return area;
}
