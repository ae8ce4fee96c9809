import { activitySummary, dashboard, searchableKinds, type OverviewStore } from '../../services/overview/domain';
import { searchQuery } from '../../services/overview/schemas';
import type { Principal } from '../../services/shared/auth/principal';

/** The overview's pure rules: the dashboard's instants, activity lines, search gating and its query. */
const key = (...scopes: string[]): Principal => ({ organizationId: 'org', keyId: 'k', keyLabel: 'K', environment: 'TEST', scopes: new Set(scopes) });

describe('dashboard', () => {
  it('counts every figure at one instant: the review window is 7 days, "today" the UTC date', async () => {
    const calls: unknown[][] = [];
    const figure = (n: number) => ({ count: n, capped: false });
    const store: OverviewStore = {
      employeesOnShift: async (...a) => (calls.push(['onShift', ...a]), figure(1)),
      openTimeEntries: async (...a) => (calls.push(['open', ...a]), figure(2)),
      evidenceNeedingReview: async (...a) => (calls.push(['review', ...a]), figure(3)),
      staleExports: async (...a) => (calls.push(['stale', ...a]), figure(4)),
      unresolvedFeedback: async (...a) => (calls.push(['feedback', ...a]), figure(5)),
      overdueInvoices: async (...a) => (calls.push(['overdue', ...a]), { count: 1000, capped: true }),
    };
    const now = new Date('2031-03-10T23:30:00.000Z');
    const d = await dashboard({ store, now: () => now }, 'org');
    expect(d).toEqual({
      asOf: '2031-03-10T23:30:00.000Z',
      employeesOnShiftNow: figure(1),
      openTimeEntries: figure(2),
      evidenceNeedingReview: figure(3),
      reviewSince: '2031-03-03T23:30:00.000Z',
      staleExports: figure(4),
      unresolvedFeedback: figure(5),
      overdueInvoices: { count: 1000, capped: true },
    });
    expect(calls).toEqual(
      expect.arrayContaining([
        ['onShift', 'org', now],
        ['review', 'org', '2031-03-03T23:30:00.000Z'],
        ['overdue', 'org', '2031-03-10'],
      ]),
    );
  });
});

describe('activitySummary', () => {
  it.each([
    [{ action: 'time_entry.corrected', entity: { type: 'time_entry', id: 'x' }, after: { revision: 3, startedAt: '2031-01-01T08:00:00Z' } }, 'Time entry corrected (revision 3)'],
    [{ action: 'customer.created', entity: { type: 'customer', id: 'x' }, after: { version: 1, name: 'Secret Name GmbH' } }, 'Customer created (version 1)'],
    [{ action: 'location.contact_linked', entity: { type: 'location', id: 'x' } }, 'Location contact linked'],
    [{ action: 'candidate.erased', entity: { type: 'candidate', id: 'x' }, after: { email: 'x@y.example' } }, 'Candidate erased'],
    [{ action: 'odd', entity: { type: 'stock_link', id: 'x' } }, 'Stock link odd'],
  ])('%j reads "%s", with no snapshot value but the revision or version', (entry, line) => {
    expect(activitySummary(entry)).toBe(line);
  });
});

describe('searchableKinds', () => {
  it('keeps the asked types (default: all) whose read scope the key holds, in the fixed order', () => {
    expect(searchableKinds(key('materials:read', 'employees:read'))).toEqual(['employee', 'material']);
    expect(searchableKinds(key('materials:read', 'employees:read'), ['material', 'contact'])).toEqual(['material']);
    expect(searchableKinds(key('locations:read'), ['contact'])).toEqual([]);
    expect(searchableKinds(key('employees:read', 'locations:read', 'contacts:read', 'customers:read', 'materials:read'))).toEqual(['employee', 'location', 'contact', 'customer', 'material']);
    // employees:read_financial or sensitive scopes do not open anything more.
    expect(searchableKinds(key('employees:read_financial', 'employees:read_sensitive', 'contacts:write'))).toEqual([]);
  });
});

describe('searchQuery', () => {
  const parse = (q: Record<string, string>) => searchQuery.safeParse(q);
  it('needs q with at least 2 letters or digits, folded like the search index', () => {
    expect(parse({}).success).toBe(false);
    expect(parse({ q: 'a' }).success).toBe(false);
    expect(parse({ q: ' - ' }).success).toBe(false);
    expect(parse({ q: 'é ' }).success).toBe(false);
    expect(parse({ q: 'Łó' }).success).toBe(true);
    expect(parse({ q: 'x'.repeat(101) }).success).toBe(false);
  });
  it('takes types as a comma-separated list of known types, and limit 1..50', () => {
    expect(parse({ q: 'ab', types: 'employee,material' }).data?.types).toEqual(['employee', 'material']);
    expect(parse({ q: 'ab', types: 'employee,bank_account' }).success).toBe(false);
    expect(parse({ q: 'ab', types: '' }).success).toBe(false);
    expect(parse({ q: 'ab', limit: '50' }).data?.limit).toBe(50);
    expect(parse({ q: 'ab', limit: '51' }).success).toBe(false);
    expect(parse({ q: 'ab', limit: '0' }).success).toBe(false);
    expect(parse({ q: 'ab', other: 'x' }).success).toBe(false);
  });
});
