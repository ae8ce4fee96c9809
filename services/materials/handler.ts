import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError, found } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPage, listPosition, nextCursor } from '../shared/http/list';
import { created, noContent, ok, type HttpResult } from '../shared/http/request';
import { materialsArea } from './area';
import { adjustmentEtag, adjustStock, archiveMaterial, createMaterial, linkEtag, linkMaterial, materialEtag, unlinkMaterial, updateMaterial, type Adjusted, type Material, type MaterialPorts } from './domain';
import { locationMaterialResponse, materialResponse, stockAdjustmentResponse } from './schemas';
import { getMaterial, listAdjustments, listLinks, listMaterials, materialsStore } from './store';

const materialResult = (m: Material, status: 200 | 201, orgPath: string): HttpResult =>
  status === 201
    ? created(materialResponse(m), { ETag: materialEtag(m), Location: `${orgPath}/materials/${m.id}` })
    : ok(materialResponse(m), { ETag: materialEtag(m) });

/** Adjustments have no URL of their own: Location is the pair's ledger, where the new line is the newest. */
const adjustedResult = ({ adjustment: a }: Adjusted, orgPath: string): HttpResult =>
  created(stockAdjustmentResponse(a), {
    ETag: adjustmentEtag(a),
    Location: `${orgPath}/materials/stock-adjustments?locationId=${a.locationId}&materialId=${a.materialId}`,
  });

export const handler = areaHandler(materialsArea, {
  ports: (unit): MaterialPorts => ({ store: materialsStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID }),
  operations: {
    async listMaterials(request) {
      const { query } = request;
      return ok(await listPage(request, (page) => listMaterials(defaultDb(), request.principal.organizationId, { archived: query.archived ?? false, q: query.q, ...page }), (items) => items.map(materialResponse)));
    },

    createMaterial: async (request) => materialResult(await createMaterial(request.ports, request.actor, request.body), 201, request.orgPath),

    getMaterial: async (request) => materialResult(found(await getMaterial(defaultDb(), request.principal.organizationId, request.params.materialId), `Material ${request.params.materialId}`), 200, request.orgPath),

    updateMaterial: async (request) => materialResult(await updateMaterial(request.ports, request.actor, request.params.materialId, request.ifMatch, request.body), 200, request.orgPath),

    archiveMaterial: async (request) => materialResult(await archiveMaterial(request.ports, request.actor, request.params.materialId, request.ifMatch), 200, request.orgPath),

    async listLocationMaterials(request) {
      const { locationId } = request.params;
      const { query } = request;
      const { binding, position } = await listPosition<{ after: string }>(request, { locationId });
      if (!(await request.ports.store.locationExists(request.principal.organizationId, locationId))) throw new NotFoundError(`Location ${locationId}`);
      const page = await listLinks(defaultDb(), request.principal.organizationId, locationId, query.limit ?? DEFAULT_LIMIT, position?.after);
      return ok({ items: page.items.map(locationMaterialResponse), nextCursor: await nextCursor(binding, page.after ? { after: page.after } : undefined) });
    },

    async linkLocationMaterial(request) {
      const link = await linkMaterial(request.ports, request.actor, request.params.locationId, request.params.materialId, request.ifMatch);
      return ok(locationMaterialResponse(link), { ETag: linkEtag(link) });
    },

    async unlinkLocationMaterial(request) {
      await unlinkMaterial(request.ports, request.actor, request.params.locationId, request.params.materialId, request.ifMatch);
      return noContent();
    },

    async listStockAdjustments(request) {
      const { query } = request;
      const { binding, position } = await listPosition<{ after: string }>(request);
      const page = await listAdjustments(defaultDb(), request.principal.organizationId, { ...query, limit: query.limit ?? DEFAULT_LIMIT, after: position?.after });
      return ok({ items: page.items.map(stockAdjustmentResponse), nextCursor: await nextCursor(binding, page.after ? { after: page.after } : undefined) });
    },

    createStockAdjustment: async (request) => adjustedResult(await adjustStock(request.ports, request.actor, request.body), request.orgPath),
  },
});
