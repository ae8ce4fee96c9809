/**
 * The dashboard's figures recounted from the table's items (a full Scan: tests only), the
 * way "counter = recount" is checked (test/data/overview-counts.test.ts, test/api/overview.test.ts).
 * Each rule restates the figure's definition from docs/areas/overview.md.
 */
type Item = Record<string, any>;

export interface Recount {
  readonly employeesOnShiftNow: number;
  readonly openTimeEntries: number;
  readonly evidenceNeedingReview: number;
  readonly staleExports: number;
  readonly unresolvedFeedback: number;
  readonly overdueInvoices: number;
}

export function recount(items: readonly Item[], org: string, asOf: string, reviewSince: string): Recount {
  const of = (type: string) => items.filter((i) => i.itemType === type && i.organizationId === org);
  const onShift = of('Shift').filter((s) => s.state === 'PUBLISHED' && typeof s.employeeId === 'string' && s.startsAt <= asOf && s.endsAt > asOf);
  return {
    employeesOnShiftNow: new Set(onShift.map((s) => s.employeeId)).size,
    openTimeEntries: of('TimeEntry').filter((e) => e.state === 'OPEN').length,
    evidenceNeedingReview: of('WorkEvent').filter((e) => e.verificationState === 'REVIEW_REQUIRED' && e.serverTimestamp >= reviewSince).length,
    staleExports: of('ExportManifest').filter((m) => m.status === 'PUBLISHED' && m.stale != null && m.replacedByManifestId == null).length,
    unresolvedFeedback: of('Feedback').filter((f) => f.state === 'OPEN' || f.state === 'ACKNOWLEDGED').length,
    overdueInvoices: of('Invoice').filter((i) => i.state === 'ISSUED' && typeof i.dueDate === 'string' && i.dueDate < asOf.slice(0, 10)).length,
  };
}

/** The counts of a dashboard response (or of `dashboard()`), in the shape of a Recount. */
export const countsOf = (d: Record<string, any>): Recount => ({
  employeesOnShiftNow: d.employeesOnShiftNow.count,
  openTimeEntries: d.openTimeEntries.count,
  evidenceNeedingReview: d.evidenceNeedingReview.count,
  staleExports: d.staleExports.count,
  unresolvedFeedback: d.unresolvedFeedback.count,
  overdueInvoices: d.overdueInvoices.count,
});
