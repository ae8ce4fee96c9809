import { defineArea, SCIM_PREFIX, type RouteRow } from '../shared/area';
import { READ_WRITE } from '../shared/permissions';
import { SCIM_OPENAPI } from './area-openapi';
import { listQuery, noQuery, projectionQuery, scimBody } from './schemas';

const USER_HEADERS = ['ETag'] as const;

/**
 * SCIM 2.0 provisioning (RFC 7643/7644) on its own REST API and stage: errors in the SCIM error
 * schema, bodies as application/scim+json (handler.ts). SCIM writes employees, so its audit
 * entries are the employees' (`employee`). Every write honours an optional Idempotency-Key
 * and an optional If-Match; bodies are read by the domain with the leniency identity
 * providers need, so the contract shows them as RFC 7643 payloads and never answers 422.
 */
export const scimArea = defineArea({
  name: 'scim',
  api: 'scim',
  description: 'SCIM 2.0 user provisioning (RFC 7643/7644).',
  // Employees with their guards, e-mail lookups and search index (no bank data, no restricted data).
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
  auditEntityTypes: ['employee'],
  // Identity providers send bursts of PATCHes to one user without If-Match: each is applied in
  // turn (retryOnConflict), which needs more than the default 10 s. The public host forwards
  // SCIM to the SCIM stage and waits 29 s for all of it: the SCIM stage's authorizer call and
  // this function, so the function ends (503 Retry-After) before the forward gives up (504)
  // while a write may still commit.
  timeoutSeconds: 25,
  schemas: {},
  openapi: { operation: SCIM_OPENAPI.operation as unknown as (route: RouteRow) => Record<string, unknown>, components: SCIM_OPENAPI.components },
  routes: {
    getServiceProviderConfig: {
      method: 'GET',
      path: `${SCIM_PREFIX}/ServiceProviderConfig`,
      scopes: ['scim:read'],
      summary: 'SCIM service provider configuration',
      description: 'What this service supports: PATCH, filter (eq, and; at most 200 results), ETags; no bulk, sort or password change.',
      query: noQuery,
      success: { status: 200, description: 'RFC 7643 §5 service provider configuration.' },
      problems: [],
    },
    listResourceTypes: {
      method: 'GET',
      path: `${SCIM_PREFIX}/ResourceTypes`,
      scopes: ['scim:read'],
      summary: 'SCIM resource types',
      description: 'The User resource type, with the enterprise extension.',
      query: noQuery,
      success: { status: 200, description: 'RFC 7643 §6 resource types (User).' },
      problems: [],
    },
    getResourceType: {
      method: 'GET',
      path: `${SCIM_PREFIX}/ResourceTypes/{resourceTypeId}`,
      scopes: ['scim:read'],
      summary: 'One SCIM resource type',
      description: 'The resource type by id (case-insensitive): User.',
      textParams: ['resourceTypeId'],
      query: noQuery,
      success: { status: 200, description: 'One resource type.' },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    listSchemas: {
      method: 'GET',
      path: `${SCIM_PREFIX}/Schemas`,
      scopes: ['scim:read'],
      summary: 'SCIM schemas',
      description: 'The attributes this service keeps, as RFC 7643 §7 schemas: core User and the enterprise extension.',
      query: noQuery,
      success: { status: 200, description: 'RFC 7643 §7 schemas we keep.' },
      problems: [],
    },
    getSchema: {
      method: 'GET',
      path: `${SCIM_PREFIX}/Schemas/{schemaId}`,
      scopes: ['scim:read'],
      summary: 'One SCIM schema',
      description: 'One schema by its URN (case-insensitive).',
      textParams: ['schemaId'],
      query: noQuery,
      success: { status: 200, description: 'One schema.' },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    listUsers: {
      method: 'GET',
      path: `${SCIM_PREFIX}/Users`,
      scopes: ['scim:read'],
      summary: 'List or filter SCIM users',
      description: 'Users in creation order (stable across pages), filtered with eq comparisons joined by and (decisions.md; anything else is 400 invalidFilter) and paged with startIndex and count; a startIndex past the end is an empty page with the true totalResults.',
      query: listQuery,
      success: { status: 200, description: 'Users, filtered (eq, and) and paged (startIndex, count).' },
      problems: [],
    },
    createUser: {
      method: 'POST',
      path: `${SCIM_PREFIX}/Users`,
      scopes: ['scim:write'],
      summary: 'Provision a SCIM user',
      description: 'Creates the employee, or re-links the retained one whose SCIM resource was deleted (same externalId, else userName), with its audit entry in one transaction. userName is unique per organization (any case), externalId too (case-exact).',
      body: scimBody,
      bodyOptional: true,
      idempotencyKey: 'optional',
      success: { status: 201, description: 'The created (or re-linked) user, with Location and a weak ETag.', headers: ['ETag', 'Location'] },
      problems: [],
    },
    getUser: {
      method: 'GET',
      path: `${SCIM_PREFIX}/Users/{userId}`,
      scopes: ['scim:read'],
      summary: 'Get one SCIM user',
      description: 'The user; 404 when it does not exist or its SCIM resource was deleted.',
      query: projectionQuery,
      success: { status: 200, description: 'The user, with a weak ETag.', headers: USER_HEADERS },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    replaceUser: {
      method: 'PUT',
      path: `${SCIM_PREFIX}/Users/{userId}`,
      scopes: ['scim:write'],
      summary: 'Replace a SCIM user',
      description: 'Replaces every SCIM attribute of the user (attributes left out are cleared); what SCIM does not manage is kept.',
      body: scimBody,
      bodyOptional: true,
      idempotencyKey: 'optional',
      ifMatch: 'optional',
      success: { status: 200, description: 'The replaced user.', headers: USER_HEADERS },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    patchUser: {
      method: 'PATCH',
      path: `${SCIM_PREFIX}/Users/{userId}`,
      scopes: ['scim:write'],
      summary: 'Patch a SCIM user',
      description: 'Applies add, replace and remove operations in order (schema-aware paths, value filters). Concurrent PATCHes without If-Match are applied one after the other.',
      body: scimBody,
      bodyOptional: true,
      idempotencyKey: 'optional',
      ifMatch: 'optional',
      success: { status: 200, description: 'The patched user.', headers: USER_HEADERS },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    deleteUser: {
      method: 'DELETE',
      path: `${SCIM_PREFIX}/Users/{userId}`,
      scopes: ['scim:write'],
      summary: 'Deprovision a SCIM user',
      description: 'The SCIM resource goes (404 afterwards) and organization access ends; the employee and its history are kept, and a later create with the same externalId or userName re-links it.',
      idempotencyKey: 'optional',
      ifMatch: 'optional',
      success: { status: 204, description: 'Organization access ended; the employee and its history are kept.' },
      problems: ['RESOURCE_NOT_FOUND'],
    },
  },
});
