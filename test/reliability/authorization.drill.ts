import { issueApiKey } from '../../services/api-keys/issue';
import { DEMO_IDS } from '../../services/local/seed';
import { PLANNING_IDS } from '../../services/planning/seed';
import { DOCUMENT_IDS } from '../../services/documents/seed';
import { MESSAGE_IDS } from '../../services/messages/seed';
import { SCOPES, type RouteSpec } from '../../services/routes';
import { call, scanTable, startApi, tableFingerprint, type ApiFixture, type ApiResponse } from '../support/api';
import { errorShapeProblems, leaksIn, record } from './support';
import { isSkeleton, pathParamsOf, ROUTES, routeName, urlOf } from './routes';

/**
 * The authorization matrix: every route of ROUTES x every way a caller can lack access, through
 * the local gateway with the real authorizer. Each cell must give the contract's status and
 * error format (decisions.md: 401 for no key and a key of the other environment, 403
 * ACCESS_DENIED for another organization's key, 403 SCOPE_REQUIRED for a missing scope, 404
 * for another organization's resource), never another organization's data, and write nothing.
 */
type Cell = 'no key' | 'wrong environment' | 'other organization' | 'missing scope' | "other organization's ids";

let api: ApiFixture;
let otherIds: Record<string, string>;
let otherEntryEtag: string;
const keysWithout = new Map<string, string>();
const results: { route: string; cell: Cell; status: number | 'skipped' }[] = [];
let tableBefore: string;

/** Text that belongs to the other organization only (its id, names, the e-mail domain). */
const otherOrgSecrets = () => [api.demo.otherOrganizationId, 'Globex', 'Dmitri', 'Volkov', 'globex.example'];

const hashTable = () => tableFingerprint(api.db);

beforeAll(async () => {
  api = await startApi();
  const items = await scanTable(api.db);
  const otherEntry = items.find((i) => i.itemType === 'TimeEntry' && i.organizationId === api.demo.otherOrganizationId);
  if (!otherEntry) throw new Error('The demo seed has no entry of the other organization.');
  otherEntryEtag = `"time-entry:${otherEntry.id}:r${otherEntry.revision}"`;
  otherIds = {
    workEventId: DEMO_IDS.events[4],
    timeEntryId: otherEntry.id,
    employeeId: api.demo.otherOrganizationEmployees[0],
    userId: api.demo.otherOrganizationEmployees[0],
    locationId: api.demo.otherOrganizationLocations[0],
    // No contact or material is seeded: a well-formed id that exists nowhere.
    contactId: '7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d',
    materialId: '8b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d4e',
    resourceTypeId: 'User',
    schemaId: 'urn:ietf:params:scim:schemas:core:2.0:User',
    shiftId: PLANNING_IDS.otherShift,
    taskId: PLANNING_IDS.otherTask,
    visitConfirmationId: PLANNING_IDS.otherVisit,
    documentId: DOCUMENT_IDS.other,
    messageId: MESSAGE_IDS.otherDraft,
    provider: 'payroll',
  };
  // One key per route's scope set: every scope of the catalogue except the route's own.
  for (const route of ROUTES) {
    const name = scopeSetOf(route);
    if (keysWithout.has(name)) continue;
    // A route with anyOfScopes (a search gated per area) is denied only without every one of them.
    const scopes = SCOPES.filter((s) => !route.scopes.includes(s) && !(route.anyOfScopes ?? []).includes(s));
    const { token } = await issueApiKey(api.db, { organizationId: api.demo.organizationId, environment: 'TEST', label: `Drill: all but ${name}`, scopes, now: new Date().toISOString() });
    keysWithout.set(name, token);
  }
  tableBefore = await hashTable();
});

afterAll(async () => {
  await api.close();
  const counts: Record<string, Record<string, number>> = {};
  for (const r of results) {
    counts[r.cell] ??= {};
    counts[r.cell][String(r.status)] = (counts[r.cell][String(r.status)] ?? 0) + 1;
  }
  record('authorization matrix', { routes: ROUTES.length, cells: results.length, byCell: counts });
});

/** The scopes a route needs, as the name of the key that lacks them. */
const scopeSetOf = (route: RouteSpec): string => [...route.scopes, ...(route.anyOfScopes ?? []).map((s) => `anyOf:${s}`)].join(' ');

/** Path parameters of the caller's own organization: real ids where the seed has them. */
const ownIds = (): Record<string, string> => ({
  workEventId: DEMO_IDS.events[0],
  timeEntryId: '00000000-0000-4000-8000-000000000000',
  employeeId: api.demo.employees[0],
  userId: api.demo.employees[0],
  locationId: api.demo.locations[0],
  contactId: '7a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d',
  materialId: '8b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d4e',
  resourceTypeId: 'User',
  schemaId: 'urn:ietf:params:scim:schemas:core:2.0:User',
  shiftId: PLANNING_IDS.shifts[0],
  taskId: PLANNING_IDS.tasks[0],
  visitConfirmationId: PLANNING_IDS.visits[0],
  documentId: DOCUMENT_IDS.welcome,
  messageId: MESSAGE_IDS.draft,
  provider: 'payroll',
});

/** A body the route would accept from an authorized caller, so that only authorization decides. */
function plausibleBody(route: RouteSpec): unknown {
  if (route.area === 'timesheets' && route.method === 'PATCH') return { breakMinutes: 15, reason: 'Matrix' };
  if (route.area === 'timesheets' && route.path.endsWith('/void')) return { reason: 'Matrix' };
  if (route.area === 'timesheets' && route.method === 'POST')
    return { employeeId: api.demo.employees[0], context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[0] }, startedAt: '2031-01-01T08:00:00Z', endedAt: '2031-01-01T09:00:00Z', breakMinutes: 0, reason: 'Matrix' };
  if (route.area === 'scim' && route.method === 'PATCH') return { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] };
  if (route.area === 'scim' && (route.method === 'PUT' || route.method === 'POST')) return { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'matrix@acme.example', externalId: 'matrix-1' };
  return route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
}

async function send(route: RouteSpec, token: string | undefined, params: Record<string, string>, organizationId?: string): Promise<ApiResponse> {
  const body = plausibleBody(route);
  const contentType = route.api === 'scim' ? 'application/scim+json' : 'application/json';
  return call(route.method, urlOf(api, route, params, organizationId), {
    ...(token !== undefined ? { token } : {}),
    ...(body !== undefined ? { rawBody: JSON.stringify(body) } : {}),
    headers: {
      ...(body !== undefined ? { 'Content-Type': contentType } : {}),
      ...(route.method !== 'GET' ? { 'Idempotency-Key': `matrix-${Math.random()}` } : {}),
      ...(route.method === 'PATCH' || route.path.endsWith('/void') ? { 'If-Match': route.area === 'timesheets' ? otherEntryEtag : 'W/"1"' } : {}),
    },
  });
}

function expectDenied(res: ApiResponse, route: RouteSpec, status: number, code: string): void {
  expect({ route: routeName(route), status: res.status, wrong: errorShapeProblems(res, route.api), leaks: leaksIn(res.text, otherOrgSecrets()) }).toEqual({
    route: routeName(route),
    status,
    wrong: [],
    leaks: [],
  });
  if (route.api === 'public') expect(res.body.code).toBe(code);
  if (status === 401) expect(res.headers.get('www-authenticate')).toBe('Bearer');
}

describe.each(ROUTES.map((r) => [routeName(r), r] as const))('%s', (_name, route) => {
  it('answers 401 without a key', async () => {
    const res = await send(route, undefined, ownIds());
    results.push({ route: routeName(route), cell: 'no key', status: res.status });
    expectDenied(res, route, 401, 'UNAUTHENTICATED');
  });

  it('answers 401 to a LIVE key on the TEST host', async () => {
    const res = await send(route, api.demo.keys.live, ownIds());
    results.push({ route: routeName(route), cell: 'wrong environment', status: res.status });
    expectDenied(res, route, 401, 'UNAUTHENTICATED');
  });

  it("answers 403 ACCESS_DENIED to another organization's key", async () => {
    const res = await send(route, api.demo.keys.otherOrganization, ownIds());
    results.push({ route: routeName(route), cell: 'other organization', status: res.status });
    expectDenied(res, route, 403, 'ACCESS_DENIED');
  });

  it('answers 403 SCOPE_REQUIRED to a key with every scope but the route’s', async () => {
    const res = await send(route, keysWithout.get(scopeSetOf(route)), ownIds());
    results.push({ route: routeName(route), cell: 'missing scope', status: res.status });
    expectDenied(res, route, 403, 'SCOPE_REQUIRED');
  });

  const orgScoped = pathParamsOf(route).some((p) => !['resourceTypeId', 'schemaId'].includes(p));
  const pending = isSkeleton(route.area);
  // Reads, deletes and the writes whose body the drill knows must answer 404. Other writes may
  // reject the drill's generic body first (422, 428): then they must still be a 4xx problem
  // without the other organization's data, and the table must not change (checked at the end).
  const strict = route.method === 'GET' || route.method === 'DELETE' || route.area === 'timesheets' || route.area === 'scim';
  // Routes without a resource id in their path (lists, creates) have no foreign id to try.
  if (orgScoped && !pending) it(`answers ${strict ? '404' : 'a 4xx'} to the other organization's resource ids, with none of its data`, async () => {
    const res = await send(route, route.api === 'scim' ? api.demo.keys.scim : api.demo.keys.admin, otherIds);
    results.push({ route: routeName(route), cell: "other organization's ids", status: res.status });
    if (strict) return expectDenied(res, route, 404, 'RESOURCE_NOT_FOUND');
    expect({ route: routeName(route), clientError: res.status >= 400 && res.status < 500, wrong: errorShapeProblems(res, route.api), leaks: leaksIn(res.text, otherOrgSecrets()) }).toEqual({
      route: routeName(route),
      clientError: true,
      wrong: [],
      leaks: [],
    });
  });
  if (orgScoped && pending) results.push({ route: routeName(route), cell: "other organization's ids", status: 'skipped' });
});

describe('resource ids of another organization in a body', () => {
  it('rejects a time entry for the other organization’s employee and location with 422, writing nothing', async () => {
    const res = await call('POST', `${api.orgUrl()}/timesheets`, {
      token: api.demo.keys.admin,
      idempotencyKey: 'matrix-body-ids',
      body: { employeeId: otherIds.employeeId, context: { kind: 'REGISTERED_LOCATION', locationId: otherIds.locationId }, startedAt: '2031-02-01T08:00:00Z', endedAt: '2031-02-01T09:00:00Z', breakMinutes: 0, reason: 'Matrix' },
    });
    expect({ status: res.status, code: res.body.code, leaks: leaksIn(res.text, otherOrgSecrets().filter((s) => s !== api.demo.otherOrganizationId)) }).toEqual({ status: 422, code: 'VALIDATION_ERROR', leaks: [] });
  });
});

describe('the whole matrix', () => {
  it('wrote nothing to the table', async () => {
    expect(await hashTable()).toBe(tableBefore);
  });
});
