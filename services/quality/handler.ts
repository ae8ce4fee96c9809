import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError, found } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { listPage } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import { qualityArea } from './area';
import {
  addTemplateItem,
  completeInspection,
  createInspection,
  createTemplate,
  inspectionEtag,
  removeTemplateItem,
  scoreItem,
  templateEtag,
  updateTemplate,
  updateTemplateItem,
  type Inspection,
  type QualityPorts,
  type Template,
} from './domain';
import { inspectionItemResponse, inspectionResponse, templateItemsResponse, templateResponse } from './schemas';
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
      if (r.query.revision === undefined || r.query.revision === t.revision) return ok(templateItemsResponse({ templateId: t.id, revision: t.revision, items: t.items }));
      const revision = await getRevision(defaultDb(), org, t.id, r.query.revision);
      if (!revision) throw new NotFoundError(`Revision ${r.query.revision} of quality template ${t.id}`);
      return ok(templateItemsResponse(revision));
    },

    async addQualityTemplateItem(r) {
      const { template } = await addTemplateItem(r.ports, r.actor, r.params.templateId, r.ifMatch, r.body);
      return created(templateResponse(template), { ETag: templateEtag(template), Location: `${r.orgPath}/quality/templates/${template.id}` });
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
      return ok({ items: i.items.map(inspectionItemResponse), nextCursor: null });
    },

    scoreInspectionItem: async (r) => inspectionResult(await scoreItem(r.ports, r.actor, r.params.inspectionId, r.params.itemId, r.ifMatch, r.body)),

    completeInspection: async (r) => inspectionResult(await completeInspection(r.ports, r.actor, r.params.inspectionId, r.ifMatch)),
  },
});
