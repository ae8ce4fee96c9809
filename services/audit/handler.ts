import { AUDIT_AREA } from '../registry';
import { defaultDb } from '../shared/ddb/client';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPosition, nextCursor } from '../shared/http/list';
import { ok } from '../shared/http/request';
import { auditResponse } from './schemas';
import { listAuditEntries } from './store';

export const handler = areaHandler(AUDIT_AREA, {
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
