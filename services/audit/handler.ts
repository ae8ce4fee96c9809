import { defaultDb } from '../shared/ddb/client';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPosition, nextCursor } from '../shared/http/list';
import { ok } from '../shared/http/request';
import { auditArea } from './area';
import { AUDIT_ENTITY_TYPES } from './entity-types';
import { auditResponse } from './schemas';
import { listAuditEntries } from './store';

/** The area as the registry builds it (AUDIT_AREA), from the generated copy of its entity types. */
export const handler = areaHandler(auditArea(AUDIT_ENTITY_TYPES), {
  ports: () => ({ db: defaultDb() }),
  operations: {
    async listAuditEntries({ query, principal, route, ports }) {
      const { binding, position } = await listPosition<Record<string, unknown>>({ query, principal, route });
      const page = await listAuditEntries(ports.db, principal.organizationId, {
        limit: query.limit ?? DEFAULT_LIMIT,
        startKey: position,
        ...(query.entityType && query.entityId ? { entity: { type: query.entityType, id: query.entityId } } : {}),
      });
      return ok({ items: page.items.map(auditResponse), nextCursor: await nextCursor(binding, page.last) });
    },
  },
});
