import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError, found } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPage, listPosition, nextCursor, pageOf } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import { qualityArea } from './area';
import { addTemplateItem, completeInspection, createInspection, createTemplate, inspectionEtag, removeTemplateItem, scoreItem, templateEtag, updateTemplate, updateTemplateItem, type Inspection, type QualityPorts, type Template } from './domain';
import { inspectionItemResponse, inspectionResponse, templateItemResponse, templateItemsResponse, templateResponse } from './schemas';
import { getInspection, getRevision, getTemplate, listInspections, listTemplates, qualityStore } from './store';

const templateResult = (t: Template): HttpResult => ok(templateResponse(t), { ETag: templateEtag(t) });
const inspectionResult = (i: Inspection): HttpResult => ok(inspectionResponse(i), { ETag: inspectionEtag(i) });

async function existingInspection(org: string, id: string): Promise<Inspection> {
  const inspection = await getInspection(defaultDb(), org, id);
  if (!inspection) throw new NotFoundError(`Inspection ${id}`);
  return inspection;
}

export const handler = areaHandler(qualityArea, {
  ports: (unit): QualityPorts => ({ store: qualityStore(defaultDb(), unit), now: () => new Date(), newId: randomUUID }),
  operations: {
    async listQualityTemplates(request) {
      const { query } = request;
      return ok(await listPage(request, (page) => listTemplates(defaultDb(), request.principal.organizationId, { archived: query.archived ?? false, ...page }), (items) => items.map(templateResponse)));
    },

    async createQualityTemplate(r) {
      const t = await createTemplate(r.ports, r.actor, r.body);
      return created(templateResponse(t), { ETag: templateEtag(t), Location: `${r.orgPath}/quality/templates/${t.id}` });
    },

    getQualityTemplate: async (r) => templateResult(found(await getTemplate(defaultDb(), r.principal.organizationId, r.params.templateId), `Quality template ${r.params.templateId}`)),

    updateQualityTemplate: async (r) => templateResult(await updateTemplate(r.ports, r.actor, r.params.templateId, r.ifMatch, r.body)),

    async listQualityTemplateItems(r) {
      const org = r.principal.organizationId;
      const t = await getTemplate(defaultDb(), org, r.params.templateId);
      if (!t) throw new NotFoundError(`Quality template ${r.params.templateId}`);
      // A cursor continues in the revision its first page read, whatever the template became since.
      const { binding, position } = await listPosition<{ revision: number; after: string }>(r, { templateId: t.id });
      const wanted = position?.revision ?? r.query.revision ?? t.revision;
      const revision = wanted === t.revision ? { templateId: t.id, revision: t.revision, items: t.items } : await getRevision(defaultDb(), org, t.id, wanted);
      if (!revision) throw new NotFoundError(`Revision ${wanted} of quality template ${t.id}`);
      const page = pageOf(revision.items, (i) => i.id, r.query.limit ?? DEFAULT_LIMIT, position?.after);
      return ok(templateItemsResponse({ ...revision, items: page.items }, await nextCursor(binding, page.next ? { revision: wanted, after: page.next } : undefined)));
    },

    async getQualityTemplateItem(r) {
      const t = found(await getTemplate(defaultDb(), r.principal.organizationId, r.params.templateId), `Quality template ${r.params.templateId}`);
      const item = found(t.items.find((i) => i.id === r.params.itemId), `Item ${r.params.itemId} of quality template ${t.id}`);
      return ok(templateItemResponse(item), { ETag: templateEtag(t) });
    },

    async addQualityTemplateItem(r) {
      const { template, item } = await addTemplateItem(r.ports, r.actor, r.params.templateId, r.ifMatch, r.body);
      return created(templateResponse(template), { ETag: templateEtag(template), Location: `${r.orgPath}/quality/templates/${template.id}/items/${item.id}` });
    },

    updateQualityTemplateItem: async (r) => templateResult(await updateTemplateItem(r.ports, r.actor, r.params.templateId, r.params.itemId, r.ifMatch, r.body)),

    removeQualityTemplateItem: async (r) => templateResult(await removeTemplateItem(r.ports, r.actor, r.params.templateId, r.params.itemId, r.ifMatch)),

    async listInspections(request) {
      const { query } = request;
      return ok(await listPage(request, (page) => listInspections(defaultDb(), request.principal.organizationId, { locationId: query.locationId, ...page }), (items) => items.map(inspectionResponse)));
    },

    async createInspection(r) {
      const i = await createInspection(r.ports, r.actor, r.body);
      return created(inspectionResponse(i), { ETag: inspectionEtag(i), Location: `${r.orgPath}/quality/inspections/${i.id}` });
    },

    getInspection: async (r) => inspectionResult(await existingInspection(r.principal.organizationId, r.params.inspectionId)),

    async listInspectionItems(r) {
      const i = await existingInspection(r.principal.organizationId, r.params.inspectionId);
      return ok(await listPage(r, async (page) => pageOf(i.items, (item) => item.itemId, page.limit, page.after), (items) => items.map(inspectionItemResponse), { inspectionId: i.id }));
    },

    scoreInspectionItem: async (r) => inspectionResult(await scoreItem(r.ports, r.actor, r.params.inspectionId, r.params.itemId, r.ifMatch, r.body)),

    completeInspection: async (r) => inspectionResult(await completeInspection(r.ports, r.actor, r.params.inspectionId, r.ifMatch)),
  },
});
