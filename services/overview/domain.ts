import type { AuditEntry } from '../audit/model';
import { hasScope, type Principal } from '../shared/auth/principal';
import type { Scope } from '../shared/auth/scopes';

/**
 * The organization overview: what an office manager opens first. It owns no data: every
 * figure, entry and match is read through the owning area's port (store.ts), and this file
 * holds the rules on top: which counts make the dashboard, how an audit entry reads as a line,
 * and which search results a key may see.
 */

/** A bounded count (services/shared/ddb/count.ts): `capped` when the read bound stopped it. */
export interface Figure {
  readonly count: number;
  readonly capped: boolean;
}

/** The counts, each through the port of its area. */
export interface OverviewStore {
  employeesOnShift(org: string, now: Date): Promise<Figure>;
  openTimeEntries(org: string): Promise<Figure>;
  evidenceNeedingReview(org: string, since: string): Promise<Figure>;
  staleExports(org: string): Promise<Figure>;
  unresolvedFeedback(org: string): Promise<Figure>;
  overdueInvoices(org: string, today: string): Promise<Figure>;
}

export interface OverviewPorts {
  readonly store: OverviewStore;
  readonly now: () => Date;
}

/** How far back "evidence needing review" looks: work events are never re-verified, so the figure is a window. */
export const REVIEW_WINDOW_DAYS = 7;

export interface Dashboard {
  readonly asOf: string;
  readonly employeesOnShiftNow: Figure;
  readonly openTimeEntries: Figure;
  readonly evidenceNeedingReview: Figure;
  readonly reviewSince: string;
  readonly staleExports: Figure;
  readonly unresolvedFeedback: Figure;
  readonly overdueInvoices: Figure;
}

/**
 * The dashboard of the key's organization at one instant. Counts only, no personal data, so
 * dashboard:read alone shows every figure (docs/decisions.md, "Dashboard figures").
 * 1. Take `now`; the review window starts 7 days before it; "today" is its UTC date.
 * 2. Count the six figures at once, each a bounded read of its area's port.
 */
export async function dashboard(ports: OverviewPorts, organizationId: string): Promise<Dashboard> {
  const now = ports.now();
  const asOf = now.toISOString();
  const reviewSince = new Date(now.getTime() - REVIEW_WINDOW_DAYS * 86_400_000).toISOString();
  const s = ports.store;
  const [employeesOnShiftNow, openTimeEntries, evidenceNeedingReview, staleExports, unresolvedFeedback, overdueInvoices] = await Promise.all([
    s.employeesOnShift(organizationId, now),
    s.openTimeEntries(organizationId),
    s.evidenceNeedingReview(organizationId, reviewSince),
    s.staleExports(organizationId),
    s.unresolvedFeedback(organizationId),
    s.overdueInvoices(organizationId, asOf.slice(0, 10)),
  ]);
  return { asOf, employeesOnShiftNow, openTimeEntries, evidenceNeedingReview, reviewSince, staleExports, unresolvedFeedback, overdueInvoices };
}

// ---- activity

/** `time_entry` -> `Time entry`. */
const humanize = (name: string): string => {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/**
 * The readable line of an audit entry, from its action and entity type only (never a value of
 * its snapshots other than the revision or version number): `time_entry.corrected` with
 * after.revision 3 -> "Time entry corrected (revision 3)".
 */
export function activitySummary(entry: Pick<AuditEntry, 'action' | 'entity' | 'after'>): string {
  const dot = entry.action.lastIndexOf('.');
  const subject = humanize(dot > 0 ? entry.action.slice(0, dot) : entry.entity.type);
  const verb = (dot > 0 ? entry.action.slice(dot + 1) : entry.action).replace(/[_-]+/g, ' ').trim();
  const revision = entry.after?.revision;
  const version = entry.after?.version;
  const detail = typeof revision === 'number' ? ` (revision ${revision})` : typeof version === 'number' ? ` (version ${version})` : '';
  return `${subject} ${verb}${detail}`;
}

// ---- search

/** The read scope each search type needs: the scope of its area (services/shared/auth/scopes.ts). */
export const SEARCH_SCOPES = {
  employee: 'employees:read',
  location: 'locations:read',
  contact: 'contacts:read',
  customer: 'customers:read',
  material: 'materials:read',
} as const satisfies Record<string, Scope>;
export type SearchKind = keyof typeof SEARCH_SCOPES;
export const SEARCH_KINDS = Object.keys(SEARCH_SCOPES) as SearchKind[];

/**
 * The types a search covers: the ones asked for (default: all), in the fixed order, that the
 * key may read. A type whose scope the key lacks is left out, never an error: the route itself
 * already refused a key without any of the scopes (403 SCOPE_REQUIRED).
 */
export const searchableKinds = (principal: Principal, asked?: readonly SearchKind[]): SearchKind[] =>
  SEARCH_KINDS.filter((k) => (asked === undefined || asked.includes(k)) && hasScope(principal, SEARCH_SCOPES[k]));
