import fc from 'fast-check';
import { DEMO_IDS } from '../../services/local/seed';
import { DOCUMENT_IDS } from '../../services/documents/seed';
import { MESSAGE_IDS } from '../../services/messages/seed';
import type { RouteSpec } from '../../services/routes';
import { call, startApi, tableFingerprint, type ApiFixture, type ApiResponse } from '../support/api';
import { errorShapeProblems, leaksIn, record } from './support';
import { isSkeleton, pathParamsOf, ROUTES, routeName, urlOf } from './routes';

/**
 * Property-based fuzzing (fast-check) of every route of ROUTES through the local gateway with
 * an all-scopes key: random path parameters, query strings, headers and bodies, and tampered
 * cursors. Properties: never a 5xx; no answer holds a lone surrogate; every error is a
 * well-formed problem+json (SCIM error on SCIM routes) with X-Request-Id and no internal text;
 * an error writes nothing (the table's content hash is unchanged). FUZZ_RUNS sets the runs per
 * route (default 25); a failure prints fast-check's seed and the shrunk request.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

let api: ApiFixture;
const stats = { requests: 0, byStatus: {} as Record<string, number>, skeleton5xx: 0, knownBugInputsSkipped: 0 };

const tableHash = () => tableFingerprint(api.db);

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
  record('fuzzing', { routes: ROUTES.length, runsPerRoute: RUNS, ...stats });
});

// ---- arbitraries ------------------------------------------------------------------------

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const nasty = fc.constantFrom('', ' ', '%', '%00', '..', '../..', "' OR 1=1 --", '${jndi:x}', '{{7*7}}', '<script>', '\u0000', 'null', 'undefined', '-1', '0', '1e309', 'NaN', '9'.repeat(40), 'a'.repeat(300), '\u202e', '😀', 'ORG#x#TE#y');
const anyText = fc.oneof(fc.string({ maxLength: 60 }), printable, nasty, fc.uuid().map(String));
const instant = fc.oneof(
  fc.date({ min: new Date('1960-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2030-01-01T08:00:00+02:00', '2030-02-30T08:00:00Z', '2030-01-01', '2030-01-01T25:00:00Z', '1969-12-31T23:59:59Z', '10000-01-01T00:00:00Z'),
  anyText,
);

/** Path parameter: the caller's real ids, ids of nothing, the other organization's, or junk. */
const pathValue = (name: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...realIds(name)) },
    { weight: 2, arbitrary: fc.uuid().map(String) },
    { weight: 2, arbitrary: anyText.filter((s) => s !== '' && s !== '.' && s !== '..') },
  );

function realIds(name: string): string[] {
  switch (name) {
    case 'employeeId':
    case 'userId':
      return [api.demo.employees[0], api.demo.employees[1], api.demo.otherOrganizationEmployees[0]];
    case 'locationId':
      return [api.demo.locations[0], api.demo.otherOrganizationLocations[0]];
    case 'workEventId':
      return [DEMO_IDS.events[0], DEMO_IDS.events[4]];
    case 'resourceTypeId':
      return ['User', 'Group'];
    case 'schemaId':
      return ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'];
    case 'messageId':
      return [MESSAGE_IDS.draft, MESSAGE_IDS.sent, MESSAGE_IDS.otherDraft];
    case 'documentId':
      return [DOCUMENT_IDS.welcome, DOCUMENT_IDS.other];
    case 'provider':
      return ['payroll', 'accounting', 'hr'];
    default:
      return ['00000000-0000-4000-8000-000000000000'];
  }
}

const QUERY_NAMES = ['limit', 'cursor', 'from', 'to', 'employeeId', 'state', 'q', 'filter', 'startIndex', 'count', 'attributes', 'excludedAttributes', 'sortBy', 'locationId', 'entityType', 'entityId', 'active', 'area', 'types'];
const queryValue = fc.oneof(anyText, instant, fc.integer({ min: -5, max: 500 }).map(String), fc.constantFrom('OPEN', 'CLOSED', 'VOIDED', 'userName eq "ada.lindqvist@acme.example"', 'externalId eq x', 'emails[type eq "work"].value eq "a@b"', 'userName sw "a"', 'name.givenName eq "x" or id pr', 'timesheets', 'employee,contact', 'ada', 'time_entry'));
const query = fc.dictionary(fc.oneof(fc.constantFrom(...QUERY_NAMES), printable.filter((s) => s.length > 0)), queryValue, { maxKeys: 4 });

/** `route` stands for the route's own media type, so that most bodies get past the media-type check. */
const contentType = fc.oneof(
  { weight: 4, arbitrary: fc.constant('route') },
  { weight: 2, arbitrary: fc.constantFrom('application/json', 'application/scim+json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/problem+json', 'multipart/form-data', '') },
);
const headers = fc.record(
  {
    'Content-Type': contentType,
    'Idempotency-Key': fc.oneof(printable, fc.constant('a'.repeat(300)), fc.uuid().map(String)),
    'If-Match': fc.oneof(printable, fc.constant('*'), fc.constant('W/"1"'), fc.uuid().map((u) => `"time-entry:${u}:r1"`)),
    // Mostly what every route answers, so that most requests get past the 406 check to the route.
    Accept: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('application/json', '*/*', 'application/json, text/plain, */*', 'application/json; charset=utf-8') },
      { weight: 1, arbitrary: fc.constantFrom('application/scim+json', 'text/html', 'application/xml', 'application/json;q=0') },
    ),
    'X-Request-Id': printable,
  },
  { requiredKeys: [] },
);

/**
 * Text for bodies only: also lone surrogates, which JSON.stringify writes as `\ud800` escapes
 * (a black-box finding: they were stored and came back in pages strict parsers refuse). Not in
 * paths and queries: encodeURIComponent throws on them (test/api/well-formed-text.test.ts sends
 * the bytes %ED%A0%80 there instead).
 */
const bodyText = fc.oneof({ weight: 4, arbitrary: anyText }, { weight: 1, arbitrary: fc.constantFrom('\ud800', 'Van \udc00 stop', '\udbff\ud800', '\ud83d\ude00 pair') });
/** Field values that look like what the routes take, and values of every other JSON type. */
const fieldValue = fc.oneof(bodyText, instant, fc.integer({ min: -100000, max: 100000 }), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
const knownFields = ['employeeId', 'context', 'startedAt', 'endedAt', 'breakMinutes', 'reason', 'overlapOverride', 'overlapReason', 'name', 'address', 'displayName', 'userName', 'externalId', 'emails', 'active', 'schemas', 'Operations', 'iban', 'bic', 'accountHolder', 'settings', 'email', 'phone', 'quantity', 'materialId', 'locationId', 'subject', 'body', 'audience', 'documentId', 'readAt'];
const contextValue = fc.oneof(
  fc.record({ kind: fc.constantFrom('REGISTERED_LOCATION', 'VEHICLE_AD_HOC', 'X'), locationId: fc.oneof(fc.uuid().map(String), anyText) }, { requiredKeys: [] }),
  fc.record({ kind: fc.constant('VEHICLE_AD_HOC'), addressLabel: bodyText, latitude: fc.oneof(fc.double(), fc.integer()), longitude: fc.oneof(fc.double(), fc.integer()) }, { requiredKeys: [] }),
);
const structuredBody = fc.dictionary(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...knownFields) }, { weight: 1, arbitrary: fc.constantFrom('name\udc00', '\ud800') }), fc.oneof(fieldValue, contextValue), { maxKeys: 8 });
const body = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: structuredBody.map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('{', '{"a":', '[1,2', '\u0000', 'null', '""', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}')) },
  { weight: 1, arbitrary: fc.constantFrom(JSON.stringify({ reason: 'x'.repeat(70 * 1024) }), JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ i }))), '['.repeat(5000) + ']'.repeat(5000)) },
);

// ---- the property ---------------------------------------------------------------------------

interface FuzzRequest {
  readonly params: Record<string, string>;
  readonly query: Record<string, string>;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

function requestArbitrary(route: RouteSpec): fc.Arbitrary<FuzzRequest> {
  const params = Object.fromEntries(pathParamsOf(route).map((p) => [p, pathValue(p)]));
  return fc.record({ params: fc.record(params), query, headers, body });
}

async function sendFuzz(route: RouteSpec, r: FuzzRequest): Promise<ApiResponse> {
  const qs = Object.entries(r.query).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const url = urlOf(api, route, r.params) + (qs ? `?${qs}` : '');
  const token = route.api === 'scim' ? api.demo.keys.scim : api.demo.keys.admin;
  const sentHeaders = { ...r.headers };
  if (sentHeaders['Content-Type'] === 'route') sentHeaders['Content-Type'] = route.api === 'scim' ? 'application/scim+json' : 'application/json';
  // fetch sends no body with GET (API Gateway would pass one on; the handlers ignore it).
  const sentBody = route.method === 'GET' ? undefined : r.body;
  if (sentBody === undefined || sentHeaders['Content-Type'] === '') delete sentHeaders['Content-Type'];
  return call(route.method, url, { token, headers: sentHeaders, ...(sentBody !== undefined ? { rawBody: sentBody } : {}) });
}

/** A JSON answer holding a string (or member name) that is not well-formed Unicode: jq and serde_json refuse the whole answer. */
function holdsLoneSurrogate(res: ApiResponse): boolean {
  const illFormed = (v: unknown): boolean =>
    typeof v === 'string' ? !v.isWellFormed() : v !== null && typeof v === 'object' && Object.entries(v).some(([k, c]) => !k.isWellFormed() || illFormed(c));
  // `call` parsed every JSON answer (leniently, as JSON.parse does) into `body`.
  return illFormed(res.body);
}

/** What must hold for any response; returns what is wrong (empty: fine). */
function judge(route: RouteSpec, res: ApiResponse): string[] {
  const wrong: string[] = [];
  if (!res.headers.get('x-request-id')) wrong.push('no X-Request-Id');
  if (res.status >= 500) wrong.push(`status ${res.status}: ${res.text.slice(0, 300)}`);
  if (holdsLoneSurrogate(res)) wrong.push('its JSON holds a lone surrogate (strict parsers refuse it)');
  if (res.status >= 400) {
    wrong.push(...errorShapeProblems(res, route.api));
    wrong.push(...leaksIn(res.text).map((l) => `leaks ${l}`));
  }
  return wrong;
}


/**
 * Inputs of reported bugs (each has an `it.failing` test below): the fuzzer skips them on
 * that route, so that it keeps looking for new ones. Remove an entry when its bug is fixed.
 */
/** Writes that take no body, yet hash whatever body comes for their Idempotency-Key (see below). */
const HASH_RAW_BODY = [
  'DELETE /locations/{locationId}',
  'PUT /locations/{locationId}/contacts/{contactId}',
  'DELETE /locations/{locationId}/contacts/{contactId}',
  'DELETE /materials/{materialId}',
  'DELETE /locations/{locationId}/materials/{materialId}',
];
// The deep-nesting bug of HASH_RAW_BODY is fixed (jsonBody caps nesting at 32 levels): no
// input is skipped any more; the regression tests below keep it fixed.
const KNOWN_BUGS: readonly { readonly route: string; readonly matches: (r: FuzzRequest) => boolean; readonly test: string }[] = [];
const knownBug = (route: RouteSpec, r: FuzzRequest) => KNOWN_BUGS.find((b) => b.route === routeName(route) && b.matches(r));

describe.each(ROUTES.map((r) => [routeName(r), r] as const))('%s', (_name, route) => {
  const skeleton = isSkeleton(route.area);

  it(`never answers 5xx, always a well-formed error with X-Request-Id, and writes nothing on error${skeleton ? ' (skeleton area: 500 tolerated)' : ''}`, async () => {
    let before = await tableHash();
    await fc.assert(
      fc.asyncProperty(requestArbitrary(route), async (r) => {
        if (knownBug(route, r)) {
          stats.knownBugInputsSkipped += 1;
          return;
        }
        const res = await sendFuzz(route, r);
        stats.requests += 1;
        stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1;
        let wrong = judge(route, res);
        if (skeleton && res.status === 500) {
          stats.skeleton5xx += 1;
          wrong = wrong.filter((w) => !w.startsWith('status 500'));
        }
        if (res.status >= 400) {
          const after = await tableHash();
          if (after !== before) wrong.push(`status ${res.status} but the table changed`);
          before = after;
        } else if (route.method !== 'GET') {
          before = await tableHash();
        }
        if (wrong.length > 0) throw new Error(`${route.method} ${route.path} answered ${res.status}: ${wrong.join('; ')}`);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});

describe('cursors', () => {
  const lists: [string, string, string?][] = [
    ['GET /timesheets', '/timesheets?limit=1'],
    ['GET /work-events', '/work-events?limit=1'],
    ['GET /audit', '/audit?limit=1'],
  ];

  it.each(lists)('%s: any alteration of a real cursor is 422 or the same page, never a 5xx', async (_name, path) => {
    const first = await call('GET', `${api.orgUrl()}${path}`, { token: api.demo.keys.admin });
    expect(first.status).toBe(200);
    const cursor = first.body.nextCursor as string | null;
    if (!cursor) throw new Error(`${path} returned no nextCursor; the seed needs at least two items there.`);
    const altered = fc.oneof(
      fc.tuple(fc.nat(cursor.length - 1), fc.string({ minLength: 1, maxLength: 1 })).map(([i, c]) => cursor.slice(0, i) + c + cursor.slice(i + 1)),
      fc.nat(cursor.length - 1).map((n) => cursor.slice(0, n)),
      anyText.map((t) => cursor + t),
      fc.base64String({ maxLength: 200 }),
      fc.constant(Buffer.from(JSON.stringify({ after: '0000' })).toString('base64url')),
    );
    await fc.assert(
      fc.asyncProperty(altered, fc.constantFrom('', '&limit=2', '&from=2020-01-01T00:00:00Z'), async (c, extra) => {
        const res = await call('GET', `${api.orgUrl()}${path}&cursor=${encodeURIComponent(c)}${extra}`, { token: api.demo.keys.admin });
        stats.requests += 1;
        const wrong = judge({ api: 'public' } as RouteSpec, res);
        if (res.status !== 200 && res.status !== 422) wrong.push(`status ${res.status}`);
        if (res.status === 200 && c !== cursor) wrong.push('an altered cursor was accepted');
        if (wrong.length > 0) throw new Error(`cursor ${JSON.stringify(c)}${extra}: ${wrong.join('; ')}`);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it("rejects a real cursor of the other organization's list with 422", async () => {
    const theirs = await call('GET', `${api.orgUrl(api.demo.otherOrganizationId)}/timesheets?limit=1`, { token: api.demo.keys.otherOrganization });
    const cursor = theirs.body.nextCursor as string | null;
    if (!cursor) return; // the other organization has a single entry: nothing to replay
    const res = await call('GET', `${api.orgUrl()}/timesheets?limit=1&cursor=${encodeURIComponent(cursor)}`, { token: api.demo.keys.admin });
    expect(res.status).toBe(422);
  });
});

describe('deeply nested JSON body', () => {
  const deep = '['.repeat(5000) + ']'.repeat(5000);

  it('is rejected with a 4xx on the timesheet and SCIM writes (they validate before hashing)', async () => {
    const create = await call('POST', `${api.orgUrl()}/timesheets`, { token: api.demo.keys.admin, rawBody: deep, headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'deep-1' } });
    const scim = await call('POST', `${api.orgUrl()}/scim/v2/Users`, { token: api.demo.keys.scim, rawBody: deep, headers: { 'Content-Type': 'application/scim+json' } });
    expect([create.status, scim.status]).toEqual([422, 400]);
  });

  // FIXED FINDING (kept as regression tests): five writes that take no body (HASH_RAW_BODY: DELETE /locations/{locationId},
  // PUT and DELETE /locations/{locationId}/contacts/{contactId}, DELETE /materials/{materialId},
  // DELETE /locations/{locationId}/materials/{materialId}) answer 500 INTERNAL_ERROR to a body of
  // 5,000 nested arrays (10 KB, well under the 64 KiB limit) or 3,000 nested objects; 2,000
  // levels pass. The log shows RangeError "Maximum call stack size exceeded" in
  // @aws-lambda-powertools/idempotency deepSort.js and commons typeUtils.js: these routes hash
  // the raw body as part of their Idempotency-Key input without validating it first (the
  // writes with a body validate first and answer 422/400). Fix: leave the body out of the
  // idempotency input of body-less routes (or reject a body there), and/or let the jsonBody
  // middleware reject bodies nested deeper than a small bound (e.g. 32) with 400.
  for (const name of HASH_RAW_BODY) {
    it(`is rejected with a 4xx by ${name}`, async () => {
      const [method, path] = name.split(' ');
      const url = `${api.orgUrl()}${path.replace('{locationId}', api.demo.locations[0]).replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000')}`;
      const res = await call(method, url, { token: api.demo.keys.admin, rawBody: deep, headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `deep-${name}`, 'If-Match': '"x"' } });
      expect(res.status).toBeLessThan(500);
    });
  }
});
