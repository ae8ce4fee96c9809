import { randomUUID } from 'node:crypto';
import type { Actor } from '../locations/domain';
import type { PagePosition } from '../locations/pages';
import { committedWrite } from '../shared/http/idempotent';
import { optionalIfMatch } from '../shared/http/preconditions';
import { defaultDb, type Db } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { createHandler } from '../shared/http/handler';
import { cursorBinding, DEFAULT_LIMIT, listRequest, nextCursor, readCursor } from '../shared/http/list';
import { optionalIdempotencyKey, requireIdempotencyKey, requireIfMatch } from '../shared/http/preconditions';
import { created, noContent, ok, type ApiRequest, type HttpResult } from '../shared/http/request';
import { parseBody, parseQuery } from '../shared/http/validation';
import { isUuid } from '../shared/time';
import {
  adjustmentEtag,
  adjustStock,
  archiveMaterial,
  createMaterial,
  linkEtag,
  linkMaterial,
  materialEtag,
  unlinkMaterial,
  updateMaterial,
  type Adjusted,
  type Material,
  type MaterialPorts,
  type StockLink,
  type Unlinked,
} from './domain';
import {
  adjustmentListQuery,
  createAdjustmentBody,
  createMaterialBody,
  emptyBody,
  linkListQuery,
  locationMaterialResponse,
  materialListQuery,
  materialResponse,
  stockAdjustmentResponse,
  updateMaterialBody,
} from './schemas';
import { dynamoMaterialsStore, getMaterial, listAdjustments, listLinks, listMaterials } from './store';

let deps: (MaterialPorts & { readonly db: Db }) | undefined;
const ports = () => {
  if (!deps) {
    const db = defaultDb();
    deps = { db, store: dynamoMaterialsStore(db), now: () => new Date(), newId: randomUUID };
  }
  return deps;
};

const actorOf = (request: ApiRequest): Actor => ({ principal: request.principal, requestId: request.requestId });
const orgPath = (request: ApiRequest) => `/v1/organizations/${request.principal.organizationId}`;

/** A path id that is not a UUID names nothing: 404, as for an unknown id. */
function pathId(request: ApiRequest, name: 'materialId' | 'locationId', what: string): string {
  const id = request.pathParameters[name] ?? '';
  if (!isUuid(id)) throw new NotFoundError(`${what} ${id}`);
  return id.toLowerCase();
}

/** Commands without input accept no body, or `{}`. */
const noInput = (request: ApiRequest) => {
  if (request.body !== undefined) parseBody(emptyBody, request.body);
};

const materialResult = (m: Material, status: 200 | 201, request: ApiRequest): HttpResult =>
  status === 201
    ? created(materialResponse(m), { ETag: materialEtag(m), Location: `${orgPath(request)}/materials/${m.id}` })
    : ok(materialResponse(m), { ETag: materialEtag(m) });

/** Adjustments have no URL of their own: Location is the pair's ledger, where the new line is the newest. */
const adjustedResult = ({ adjustment: a }: Adjusted, request: ApiRequest): HttpResult =>
  created(stockAdjustmentResponse(a), {
    ETag: adjustmentEtag(a),
    Location: `${orgPath(request)}/materials/stock-adjustments?locationId=${a.locationId}&materialId=${a.materialId}`,
  });

export const handler = createHandler({
  area: 'materials',
  operations: {
    async listMaterials(request) {
      const { query, binding, position: after } = await listRequest<typeof materialListQuery, PagePosition>(request, materialListQuery);
      const page = await listMaterials(ports().db, request.principal.organizationId, { archived: query.archived ?? false, q: query.q, limit: query.limit ?? DEFAULT_LIMIT, after });
      return ok({ items: page.items.map(materialResponse), nextCursor: await nextCursor(binding, page.next) });
    },

    async createMaterial(request) {
      const key = requireIdempotencyKey(request);
      const body = parseBody(createMaterialBody, request.body);
      return committedWrite<Material>(ports().db, request, key, (extra) => createMaterial(ports(), actorOf(request), body, extra), (m) => materialResult(m, 201, request));
    },

    async getMaterial(request) {
      const id = pathId(request, 'materialId', 'Material');
      const material = await getMaterial(ports().db, request.principal.organizationId, id);
      if (!material) throw new NotFoundError(`Material ${id}`);
      return materialResult(material, 200, request);
    },

    async updateMaterial(request) {
      const id = pathId(request, 'materialId', 'Material');
      const ifMatch = requireIfMatch(request);
      const key = optionalIdempotencyKey(request);
      const body = parseBody(updateMaterialBody, request.body);
      return committedWrite<Material>(ports().db, request, key, (extra) => updateMaterial(ports(), actorOf(request), id, ifMatch, body, extra), (m) => materialResult(m, 200, request));
    },

    async archiveMaterial(request) {
      const id = pathId(request, 'materialId', 'Material');
      const key = optionalIdempotencyKey(request);
      return committedWrite<Material>(ports().db, request, key, (extra) => archiveMaterial(ports(), actorOf(request), id, optionalIfMatch(request), extra), (m) => materialResult(m, 200, request));
    },

    async listLocationMaterials(request) {
      const locationId = pathId(request, 'locationId', 'Location');
      const query = parseQuery(linkListQuery, request.query);
      const binding = cursorBinding(request, { ...query, locationId });
      const position = await readCursor<{ after: string }>(binding, query.cursor);
      const { db, store } = ports();
      if (!(await store.locationExists(request.principal.organizationId, locationId))) throw new NotFoundError(`Location ${locationId}`);
      const page = await listLinks(db, request.principal.organizationId, locationId, query.limit ?? DEFAULT_LIMIT, position?.after);
      return ok({ items: page.items.map(locationMaterialResponse), nextCursor: await nextCursor(binding, page.after ? { after: page.after } : undefined) });
    },

    async linkLocationMaterial(request) {
      const locationId = pathId(request, 'locationId', 'Location');
      const materialId = pathId(request, 'materialId', 'Material');
      const key = optionalIdempotencyKey(request);
      noInput(request);
      return committedWrite<StockLink>(ports().db, request, key, (extra) => linkMaterial(ports(), actorOf(request), locationId, materialId, extra), (link) =>
        ok(locationMaterialResponse(link), { ETag: linkEtag(link) }),
      );
    },

    async unlinkLocationMaterial(request) {
      const locationId = pathId(request, 'locationId', 'Location');
      const materialId = pathId(request, 'materialId', 'Material');
      const key = optionalIdempotencyKey(request);
      return committedWrite<Unlinked>(ports().db, request, key, (extra) => unlinkMaterial(ports(), actorOf(request), locationId, materialId, optionalIfMatch(request), extra), () => noContent());
    },

    async listStockAdjustments(request) {
      const { query, binding, position: position } = await listRequest<typeof adjustmentListQuery, { after: string }>(request, adjustmentListQuery);
      const page = await listAdjustments(ports().db, request.principal.organizationId, { ...query, limit: query.limit ?? DEFAULT_LIMIT, after: position?.after });
      return ok({ items: page.items.map(stockAdjustmentResponse), nextCursor: await nextCursor(binding, page.after ? { after: page.after } : undefined) });
    },

    async createStockAdjustment(request) {
      const key = requireIdempotencyKey(request);
      const body = parseBody(createAdjustmentBody, request.body);
      return committedWrite<Adjusted>(ports().db, request, key, (extra) => adjustStock(ports(), actorOf(request), body, extra), (adjusted) => adjustedResult(adjusted, request));
    },
  },
});
