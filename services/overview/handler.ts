import { defaultDb } from '../shared/ddb/client';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPosition, nextCursor } from '../shared/http/list';
import { ok } from '../shared/http/request';
import { auditResponse } from '../audit/public';
import { ACTIVITY_AREAS } from './activity-areas';
import { overviewArea } from './area';
import { activitySummary, dashboard, searchableKinds, type OverviewPorts, type SearchKind } from './domain';
import { activityPage, overviewStore, searchKind, type KindPosition } from './store';

const DEFAULT_PER_TYPE = 10;
const byArea = new Map(Object.entries(ACTIVITY_AREAS));
const areaOfType = new Map([...byArea].flatMap(([area, types]) => types.map((t) => [t, area] as const)));

/** The area as the registry builds it (OVERVIEW_AREA), from the generated copy of its activity areas. */
export const handler = areaHandler(overviewArea(ACTIVITY_AREAS), {
  ports: (): OverviewPorts => ({ store: overviewStore(defaultDb()), now: () => new Date() }),
  operations: {
    getDashboard: async ({ ports, principal }) => ok(await dashboard(ports, principal.organizationId)),

    async listActivity(request) {
      const { query, principal } = request;
      const { binding, position } = await listPosition<Record<string, unknown>>(request);
      const page = await activityPage(defaultDb(), principal.organizationId, {
        limit: query.limit ?? DEFAULT_LIMIT,
        startKey: position,
        ...(query.entityType && query.entityId ? { entity: { type: query.entityType, id: query.entityId } } : {}),
        ...(query.area ? { entityTypes: byArea.get(query.area) ?? [] } : {}),
      });
      const items = page.items.map((e) => ({ ...auditResponse(e), area: areaOfType.get(e.entity.type) ?? null, summary: activitySummary(e) }));
      return ok({ items, nextCursor: await nextCursor(binding, page.last) });
    },

    async search(request) {
      const { query, principal } = request;
      // The cursor is bound to the key's readable types too: a key with other scopes cannot continue it.
      const kinds = searchableKinds(principal, query.types as SearchKind[] | undefined);
      const { binding, position } = await listPosition<Partial<Record<SearchKind, KindPosition>>>(request, { kinds });
      const limit = query.limit ?? DEFAULT_PER_TYPE;
      // First page: every type from its start; later pages: only the types the cursor continues.
      const pending = position ? kinds.filter((k) => position[k] !== undefined) : kinds;
      const pages = await Promise.all(pending.map((k) => searchKind(defaultDb(), principal.organizationId, k, query.q, limit, position?.[k])));
      const next = Object.fromEntries(pending.flatMap((k, i) => (pages[i].next ? [[k, pages[i].next]] : [])));
      return ok({ items: pages.flatMap((p) => p.items), searchedTypes: kinds, nextCursor: await nextCursor(binding, Object.keys(next).length > 0 ? next : undefined) });
    },
  },
});
