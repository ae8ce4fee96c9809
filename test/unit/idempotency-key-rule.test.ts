import { AREAS } from '../../services/registry';
import type { HeaderNeed, RouteContract } from '../../services/shared/area';

/**
 * Where a write takes Idempotency-Key (docs/decisions.md, Idempotency): required on every
 * create and every command, and on the PATCHes and PUTs of the areas whose writes owe a retry the
 * stored answer (payroll, money, provider data); optional on the other PATCH, PUT and DELETE
 * routes, on archive and read-report commands, and on SCIM. A new route follows the rule, or the
 * rule (and decisions.md) changes with it.
 */
const REPLAY_OWED = new Set(['timesheets', 'employees', 'organization', 'commerce', 'integrations']);
/** Decided apart: a download session is not stored, so there is nothing to replay (decisions.md, Documents). */
const READS_NO_KEY = new Set(['documents.createDownloadSession']);

function expected(area: string, op: string, r: RouteContract): HeaderNeed | undefined {
  if (area === 'scim') return 'optional';
  if (READS_NO_KEY.has(`${area}.${op}`)) return undefined;
  if (r.method === 'POST') {
    if (r.success.status === 201 || r.success.status === 202) return 'required';
    return /\/(archive|read)$/.test(r.path) ? 'optional' : 'required';
  }
  if (r.method === 'DELETE') return 'optional';
  return REPLAY_OWED.has(area) ? 'required' : 'optional';
}

describe('the Idempotency-Key rule', () => {
  const writes = AREAS.flatMap((a) => Object.entries(a.routes as Record<string, RouteContract>).filter(([, r]) => r.method !== 'GET').map(([op, r]) => ({ area: a.name, op, r })));

  it('covers the catalogue', () => {
    expect(writes.length).toBeGreaterThan(80);
  });

  it.each(writes.map((w) => [`${w.area}.${w.op}`, w] as const))('%s', (_, { area, op, r }) => {
    expect({ route: `${r.method} ${r.path}`, idempotencyKey: r.idempotencyKey }).toEqual({ route: `${r.method} ${r.path}`, idempotencyKey: expected(area, op, r) });
  });
});
