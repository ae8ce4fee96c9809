import type { AreaDefinition } from '../shared/area';
import { defineArea } from '../shared/area';
import { listRoute } from '../shared/route-shapes';
import { SEARCH_SCOPES } from './domain';
import { activityItemSchema, activityListSchema, activityQuery, dashboardResponseSchema, searchQuery, searchResponseSchema, searchResultSchema } from './schemas';

/** The areas the activity feed filters on (`area`), with the audit entity types each declares. */
export type ActivityAreas = Readonly<Record<string, readonly string[]>>;

/** The activity areas of the areas that write audit entries, in their order. */
export const activityAreasOf = (areas: readonly AreaDefinition[]): ActivityAreas =>
  Object.fromEntries(areas.filter((a) => a.auditEntityTypes.length > 0).map((a) => [a.name, [...new Set(a.auditEntityTypes)]]));

/**
 * The organization overview, read-only: the dashboard's counts, the activity feed over the
 * audit trail and one search over the master data of several areas. It owns no items; every
 * read goes through the owning area's port. Built by the registry from the areas that write
 * audit entries (activityAreasOf), so that `area` and `entityType` of GET /activity name
 * exactly what exists; the handler builds it from the generated copy (activity-areas.ts).
 */
export const overviewArea = (activityAreas: ActivityAreas) => {
  const byArea = new Map(Object.entries(activityAreas));
  const areas = [...byArea.keys()];
  const types = [...new Set([...byArea.values()].flat())];
  if (areas.length === 0 || types.length === 0) throw new Error('overviewArea: no area declares auditEntityTypes.');
  return defineArea({
    name: 'overview',
    api: 'public',
    description: 'The organization overview: dashboard counts, the activity feed and one search across areas.',
    // Bounded Queries (counts, audit pages, word index) and BatchGetItem of search matches; cursors are sealed.
    permissions: { table: ['Query', 'BatchGetItem'], cursorSecret: true, restrictedDataKey: false },
    auditEntityTypes: [],
    schemas: { Dashboard: dashboardResponseSchema, ActivityItem: activityItemSchema, ActivityList: activityListSchema, SearchResult: searchResultSchema, SearchResults: searchResponseSchema },
    routes: {
      getDashboard: listRoute({
        path: '/dashboard',
        scopes: ['dashboard:read'],
        summary: "Today's counts: on shift, open entries, evidence to review, stale exports, unresolved feedback, overdue invoices",
        description:
          'Six counts of the organization at `asOf`, each a bounded read of the owning area (never a table scan); `capped: true` when a count stopped at its bound of 1,000 items read. Counts only, no personal data: dashboard:read is the only scope needed.',
        schema: dashboardResponseSchema,
        returns: 'The figures.',
      }),
      listActivity: listRoute({
        path: '/activity',
        scopes: ['activity:read'],
        summary: 'Recent changes across areas, newest first, as readable lines',
        description:
          'The audit trail (same allowlisted content as GET /audit) with the area of each entry and a readable `summary`. `area` keeps the entries of that area\'s entity types; `entityType` with `entityId` the trail of one entity. With `area`, a page reads at most 500 entries: it may hold fewer than `limit` items (even none) and still have a `nextCursor`.',
        query: activityQuery(areas as [string, ...string[]], types as [string, ...string[]], (area) => byArea.get(area) ?? []),
        schema: activityListSchema,
        returns: 'A page of activity.',
      }),
      search: listRoute({
        path: '/search',
        scopes: [],
        anyOfScopes: Object.values(SEARCH_SCOPES),
        summary: 'Search employees, locations, contacts, customers and materials at once',
        description:
          'Word-prefix search (`q`, like each list\'s own `q`) over the types the key may read: employee (employees:read), location (locations:read), contact (contacts:read), customer (customers:read), material (materials:read); other types are left out (`searchedTypes` says which were searched). Up to `limit` results per type; `nextCursor` continues each type that has more. Never bank data; contact values only on contact results, which need contacts:read. Archived locations, customers and materials are not searched.',
        query: searchQuery,
        schema: searchResponseSchema,
        returns: 'Matches, grouped by type.',
      }),
    },
  });
};
