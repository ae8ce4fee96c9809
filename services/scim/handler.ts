import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { created, noContent, ok, type HttpResult } from '../shared/http/request';
import { scimArea } from './area';
import type { BusinessMetric, MetricsRecorder } from '../shared/observability';
import { createUser, deleteUser, getUser, listUsers, updateUser, type ScimPorts, type WriteOutcome } from './domain';
import { documentOf, fieldsOf } from './domain-document';
import { invalidSyntax } from './domain-errors';
import { parseUserFilter, type UserClause } from './domain-filter';
import { applyPatch, documentFromResource, parsePatchBody } from './domain-patch';
import { renderScimError } from './handler-errors';
import { etagOf, type ScimUser } from './model';
import { listParameters, listResponse, project, scimBase, toScimUser, userLocation } from './schemas';
import { listOf, schemaDocuments, serviceProviderConfig, USER_RESOURCE_TYPE_ID, userResourceType } from './schemas-discovery';
import { scimUserStore } from './store';

/**
 * The SCIM 2.0 API (RFC 7644) of one organization: discovery, and Users backed by the
 * organization's employees. Errors in the SCIM error schema, bodies as application/scim+json,
 * request bodies as application/scim+json or application/json. Absolute URLs (meta.location,
 * Location) are built from the stage's configured public base URL (`orgUrl`), never from
 * request headers.
 */
const bodyOf = (body: unknown): unknown => {
  if (body === undefined) throw invalidSyntax('A JSON body is required.');
  return body;
};

/** The clauses of a `filter` parameter; none for an absent or blank one. */
const filterClauses = (filter: string | undefined): UserClause[] => (filter === undefined || filter.trim() === '' ? [] : parseUserFilter(filter));

/** The provisioning figure of each write outcome (docs/operations.md). */
const OUTCOME_METRIC: Readonly<Record<WriteOutcome, BusinessMetric | undefined>> = {
  created: 'ScimUsersCreated',
  relinked: 'ScimUsersRelinked',
  updated: 'ScimUsersUpdated',
  deactivated: 'ScimUsersDeactivated',
  reactivated: 'ScimUsersReactivated',
  unchanged: undefined,
};

const userResult = (base: string, user: ScimUser, status: 200 | 201): HttpResult => {
  const body = toScimUser(user, base);
  return status === 201 ? created(body, { ETag: etagOf(user), Location: userLocation(base, user.id) }) : ok(body, { ETag: etagOf(user) });
};

const countOutcome = (metrics: MetricsRecorder, outcome: WriteOutcome): void => {
  const name = OUTCOME_METRIC[outcome];
  if (name) metrics.count(name);
};

export const handler = areaHandler(scimArea, {
  ports: (unit): ScimPorts => ({ store: scimUserStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID }),
  mediaType: 'application/scim+json',
  bodyMediaTypes: ['application/scim+json', 'application/json'],
  renderError: renderScimError,
  operations: {
    getServiceProviderConfig: async (r) => ok(serviceProviderConfig(scimBase(r.orgUrl))),

    listResourceTypes: async (r) => ok(listOf([userResourceType(scimBase(r.orgUrl))])),

    async getResourceType(r) {
      const id = r.params.resourceTypeId;
      if (id.toLowerCase() !== USER_RESOURCE_TYPE_ID.toLowerCase()) throw new NotFoundError(`Resource type ${id}`);
      return ok(userResourceType(scimBase(r.orgUrl)));
    },

    listSchemas: async (r) => ok(listOf(schemaDocuments(scimBase(r.orgUrl)))),

    async getSchema(r) {
      const id = r.params.schemaId;
      const schema = schemaDocuments(scimBase(r.orgUrl)).find((s) => s.id.toLowerCase() === id.toLowerCase());
      if (!schema) throw new NotFoundError(`Schema ${id}`);
      return ok(schema);
    },

    async listUsers(r) {
      const query = listParameters(r.query);
      const page = await listUsers(r.ports, r.principal.organizationId, { filter: filterClauses(query.filter), startIndex: query.startIndex, count: query.count });
      const base = scimBase(r.orgUrl);
      return ok(listResponse(page.users.map((u) => project(toScimUser(u, base), query)), page.totalResults, query.startIndex));
    },

    async createUser(r) {
      const fields = fieldsOf(documentFromResource(bodyOf(r.body), {}), true);
      const { user, outcome } = await createUser(r.ports, r.actor, fields);
      countOutcome(r.metrics, outcome);
      return userResult(scimBase(r.orgUrl), user, 201);
    },

    async getUser(r) {
      const user = await getUser(r.ports, r.principal.organizationId, r.params.userId);
      return ok(project(toScimUser(user, scimBase(r.orgUrl)), r.query), { ETag: etagOf(user) });
    },

    async replaceUser(r) {
      const id = r.params.userId;
      const fields = fieldsOf(documentFromResource(bodyOf(r.body), { currentId: id }), true);
      const { user, outcome } = await updateUser(r.ports, r.actor, id, r.ifMatch, () => fields);
      countOutcome(r.metrics, outcome);
      return userResult(scimBase(r.orgUrl), user, 200);
    },

    async patchUser(r) {
      const id = r.params.userId;
      const operations = parsePatchBody(bodyOf(r.body));
      const { user, outcome } = await updateUser(r.ports, r.actor, id, r.ifMatch, (before) => fieldsOf(applyPatch(documentOf(before), operations, { currentId: id }), before.active));
      countOutcome(r.metrics, outcome);
      return userResult(scimBase(r.orgUrl), user, 200);
    },

    async deleteUser(r) {
      await deleteUser(r.ports, r.actor, r.params.userId, r.ifMatch);
      r.metrics.count('ScimUsersDeleted');
      return noContent();
    },
  },
});
