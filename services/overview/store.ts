import { listAuditEntries, listAuditEntriesOfTypes, type AuditPage } from '../audit/public';
import { countOverdueInvoices } from '../commerce/public';
import { countUnresolvedFeedback, listCustomers } from '../customers/public';
import { searchEmployeesPage } from '../employees/public';
import { listContacts, listLocations } from '../locations/public';
import { listMaterials } from '../materials/public';
import { countEmployeesOnShift } from '../planning/public';
import { countStaleManifests } from '../reports/public';
import type { Db } from '../shared/ddb/client';
import type { Page, PagePosition } from '../shared/ddb/paging';
import { countOpenEntries } from '../timesheets/public';
import { countEventsNeedingReview } from '../work-events/public';
import type { OverviewStore, SearchKind } from './domain';
import { contactResult, customerResult, employeeResult, locationResult, materialResult, type SearchResult } from './schemas';

/**
 * The overview's adapter: it owns no keys. Every read goes through the port (public.ts) of the
 * area that owns the data; docs/areas/overview.md lists each with its reads and bound.
 */
export const overviewStore = (db: Db): OverviewStore => ({
  employeesOnShift: (org, now) => countEmployeesOnShift(db, org, now),
  openTimeEntries: (org) => countOpenEntries(db, org),
  evidenceNeedingReview: (org, since) => countEventsNeedingReview(db, org, since),
  staleExports: (org) => countStaleManifests(db, org),
  unresolvedFeedback: (org) => countUnresolvedFeedback(db, org),
  overdueInvoices: (org, today) => countOverdueInvoices(db, org, today),
});

/** One page of the activity feed: one entity's trail, an area's entity types, or everything. */
export function activityPage(db: Db, org: string, q: { limit: number; startKey?: Record<string, unknown>; entity?: { type: string; id: string }; entityTypes?: readonly string[] }): Promise<AuditPage> {
  if (q.entity) return listAuditEntries(db, org, { limit: q.limit, startKey: q.startKey, entity: q.entity });
  if (q.entityTypes) return listAuditEntriesOfTypes(db, org, q.entityTypes, { limit: q.limit, startKey: q.startKey });
  return listAuditEntries(db, org, { limit: q.limit, startKey: q.startKey });
}

/** Where a type's next page starts: the owning list's own position (an opaque value inside the sealed cursor). */
export type KindPosition = PagePosition | { readonly employeesAfter: string };

export interface KindPage {
  readonly items: SearchResult[];
  readonly next?: KindPosition;
}

const mapped = <T>(page: Page<T>, toResult: (t: T) => SearchResult): KindPage => ({ items: page.items.map(toResult), ...(page.next ? { next: page.next } : {}) });

/**
 * One page of `q` matches of one type, through the list search of its area (the word index of
 * services/shared/ddb/search.ts, then a BatchGetItem of the matches): active master data only;
 * employees active and inactive, as GET /employees?q= finds them. Never a bank-account item.
 */
export async function searchKind(db: Db, org: string, kind: SearchKind, q: string, limit: number, after?: KindPosition): Promise<KindPage> {
  const position = after && !('employeesAfter' in after) ? after : undefined;
  switch (kind) {
    case 'employee': {
      const page = await searchEmployeesPage(db, org, q, { limit, ...(after && 'employeesAfter' in after ? { after: after.employeesAfter } : {}) });
      return { items: page.employees.map(employeeResult), ...(page.after !== undefined ? { next: { employeesAfter: page.after } } : {}) };
    }
    case 'location':
      return mapped(await listLocations(db, org, { q, limit, after: position }), locationResult);
    case 'contact':
      return mapped(await listContacts(db, org, { q, limit, after: position }), contactResult);
    case 'customer':
      return mapped(await listCustomers(db, org, { q, limit, after: position }), customerResult);
    case 'material':
      return mapped(await listMaterials(db, org, { q, limit, after: position }), materialResult);
  }
}
