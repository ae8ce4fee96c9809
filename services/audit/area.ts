import { defineArea } from '../shared/area';
import { listRoute } from '../shared/route-shapes';
import { pageSchema } from '../shared/schemas/fields';
import { auditListQuery, auditResponseSchema } from './schemas';

/**
 * The audit trail, read-only: entries are written by every other area's changes, in their
 * transactions (model.ts). Built by the registry with the entity types the areas declare, so
 * that GET /audit filters on exactly the types that exist.
 */
export const auditArea = (entityTypes: readonly string[]) => {
  const types = [...new Set(entityTypes)];
  if (types.length === 0) throw new Error('auditArea: no area declares auditEntityTypes.');
  return defineArea({
    name: 'audit',
    api: 'public',
    description: 'The organization audit trail.',
    permissions: { table: ['Query'], cursorSecret: true, restrictedDataKey: false },
    auditEntityTypes: [],
    schemas: { AuditEntry: auditResponseSchema, AuditEntryList: pageSchema(auditResponseSchema) },
    routes: {
      listAuditEntries: listRoute({
        path: '/audit',
        scopes: ['audit:read'],
        summary: 'List audit entries, newest first',
        description: 'The organization audit trail, newest first; allowlisted content only. With `entityType` and `entityId`: the trail of one entity.',
        query: auditListQuery(types as [string, ...string[]]),
        schema: pageSchema(auditResponseSchema),
        returns: 'A page of audit entries.',
      }),
    },
  });
};
