import { call, expectPointers, expectProblem, startApi, tableFingerprint, type ApiFixture, type ApiResponse } from '../support/api';
import { entraUser } from './scim-harness';
import { createEntry, dayInterval, manualBody, timesheetsUrl } from './timesheets-fixture';

/**
 * A black-box finding: JSON lets a string escape a lone UTF-16 surrogate (`"\ud800"`), and a
 * timesheet whose reason or address label held one answered 201. Every list and audit page that
 * then held it carried an unpaired `\ud800`, which strict parsers (jq, serde_json) refuse whole.
 * A body holding a string that is not well-formed Unicode is refused before anything is stored.
 */
let api: ApiFixture;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

let nextDay = 600;
const freshBody = (over: Record<string, unknown> = {}) => manualBody(api, dayInterval((nextDay += 1)), over);
const adHoc = (addressLabel: string) => ({ kind: 'VEHICLE_AD_HOC', addressLabel, latitude: 50.11731, longitude: 8.68213 });

/** POSTs a body written as JSON text, so that its escapes are exactly the ones a test names. */
const postTimesheet = (rawBody: string) => createEntry(api, undefined, { rawBody, headers: { 'Content-Type': 'application/json' } });

/** What a strict parser needs: every string of the answer, member names too, is well-formed Unicode. */
function expectWellFormedAnswer(res: ApiResponse): void {
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (v !== null && typeof v === 'object') for (const [k, c] of Object.entries(v)) (strings.push(k), walk(c));
  };
  walk(JSON.parse(res.text));
  expect(strings.filter((s) => !s.isWellFormed())).toEqual([]);
}

const DETAIL = (codeUnit: string, at: number) => `Must be well-formed Unicode text: it holds a lone surrogate (${codeUnit}) at character ${at}. A character above U+FFFF is sent as UTF-8 or escaped as a surrogate pair (\\ud83d\\ude00).`;

describe('a JSON body holding a string that is not well-formed Unicode (422 VALIDATION_ERROR at its pointer, nothing written)', () => {
  it('refuses a lone high surrogate in a nested value, naming its position but not the text', async () => {
    const before = await tableFingerprint(api.db);
    const res = await createEntry(api, freshBody({ context: adHoc('Van \ud800 stop') }));
    expectPointers(res, ['/context/addressLabel']);
    expect(res.body.errors).toEqual([{ pointer: '/context/addressLabel', detail: DETAIL('U+D800', 5) }]);
    expect(res.text).not.toMatch(/Van|stop/);
    expectWellFormedAnswer(res);
    expect(await tableFingerprint(api.db)).toBe(before);
  });

  it('refuses the probe’s body as sent (a reason escaping \\ud800) and a lone low surrogate (\\udc00)', async () => {
    const before = await tableFingerprint(api.db);
    const body = JSON.stringify(freshBody({ reason: 'REASON' }));
    const high = await postTimesheet(body.replace('"REASON"', String.raw`"\ud800 lone surrogate"`));
    expect(expectProblem(high, 422, 'VALIDATION_ERROR').errors).toEqual([{ pointer: '/reason', detail: DETAIL('U+D800', 1) }]);
    const low = await postTimesheet(body.replace('"REASON"', String.raw`"Forgot \udc00 to scan"`));
    expect(expectProblem(low, 422, 'VALIDATION_ERROR').errors).toEqual([{ pointer: '/reason', detail: DETAIL('U+DC00', 8) }]);
    // A low surrogate before its high one is no pair either.
    const reversed = await postTimesheet(body.replace('"REASON"', String.raw`"\ude00\ud83d"`));
    expect(expectProblem(reversed, 422, 'VALIDATION_ERROR').errors).toEqual([{ pointer: '/reason', detail: DETAIL('U+DE00', 1) }]);
    for (const res of [high, low, reversed]) expectWellFormedAnswer(res);
    expect(await tableFingerprint(api.db)).toBe(before);
  });

  it('refuses a member name holding a lone surrogate, at the pointer of that member (U+FFFD standing for it)', async () => {
    const before = await tableFingerprint(api.db);
    const body = JSON.stringify(freshBody({ context: { ...adHoc('Van 7'), MEMBER: 1 } })).replace('"MEMBER"', String.raw`"van\udc00"`);
    const res = await postTimesheet(body);
    expect(expectProblem(res, 422, 'VALIDATION_ERROR').errors).toEqual([
      { pointer: '/context/van\ufffd', detail: 'The member name must be well-formed Unicode text: it holds a lone surrogate (U+DC00) at character 4. A character above U+FFFF is sent as UTF-8 or escaped as a surrogate pair (\\ud83d\\ude00).' },
    ]);
    expectWellFormedAnswer(res);
    expect(await tableFingerprint(api.db)).toBe(before);
  });

  it('names every such string, in document order, before the schema looks at the body', async () => {
    const before = await tableFingerprint(api.db);
    const body = JSON.stringify({ employeeId: 'E', context: { kind: 'K', addressLabel: 'A' }, extra: ['x', 'X'] })
      .replace('"E"', String.raw`"\udfff"`)
      .replace('"A"', String.raw`"ok \ud83d\ude00 \ud83d"`)
      .replace('"X"', String.raw`"\ud800\ud800"`);
    const res = await postTimesheet(body);
    const problem = expectProblem(res, 422, 'VALIDATION_ERROR');
    expect(problem.errors).toEqual([
      { pointer: '/employeeId', detail: DETAIL('U+DFFF', 1) },
      { pointer: '/context/addressLabel', detail: DETAIL('U+D83D', 6) },
      { pointer: '/extra/1', detail: DETAIL('U+D800', 1) },
    ]);
    expect(problem.detail).toBe('The body holds 3 strings that are not well-formed Unicode text (lone surrogates), at /employeeId, /context/addressLabel, /extra/1.');
    expect(await tableFingerprint(api.db)).toBe(before);
  });

  it('accepts a character above U+FFFF escaped as a surrogate pair, and answers it readable to strict parsers', async () => {
    const body = JSON.stringify(freshBody({ context: adHoc('LABEL'), reason: 'REASON' }))
      .replace('"LABEL"', String.raw`"Van \ud83d\ude90 stop"`)
      .replace('"REASON"', String.raw`"Scanner broke \ud83d\ude00"`);
    const res = await postTimesheet(body);
    expect(res.status).toBe(201);
    expect(res.body.context.addressLabel).toBe('Van 🚐 stop');
    const read = await call('GET', `${timesheetsUrl(api)}/${res.body.id}`, { token: api.demo.keys.admin });
    expect(read.body.context.addressLabel).toBe('Van 🚐 stop');
    for (const answer of [res, read]) expectWellFormedAnswer(answer);
  });
});

describe('SCIM bodies (400 invalidValue in the SCIM error schema, nothing written)', () => {
  const scimUsers = () => `${api.orgUrl()}/scim/v2/Users`;
  const postUser = (rawBody: string) => call('POST', scimUsers(), { token: api.demo.keys.scim, rawBody, headers: { 'Content-Type': 'application/scim+json' } });

  it('refuses a lone surrogate in a value or a member name, naming where but not the text', async () => {
    const before = await tableFingerprint(api.db);
    const value = await postUser(JSON.stringify(entraUser({ name: { givenName: 'GIVEN', familyName: 'Family' } })).replace('"GIVEN"', String.raw`"Ada \ud800"`));
    const member = await postUser(JSON.stringify(entraUser({ MEMBER: 'x' })).replace('"MEMBER"', String.raw`"nick\udbff"`));
    for (const res of [value, member]) {
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/scim+json');
      expect(res.body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '400', scimType: 'invalidValue', detail: expect.any(String) });
      expectWellFormedAnswer(res);
    }
    expect(value.body.detail).toBe(`/name/givenName: ${DETAIL('U+D800', 5)}`);
    expect(value.text).not.toContain('Ada');
    expect(member.body.detail).toMatch(/^\/nick\ufffd: The member name must be well-formed Unicode text: it holds a lone surrogate \(U\+DBFF\) at character 5\./);
    expect(await tableFingerprint(api.db)).toBe(before);
  });

  it('accepts a surrogate pair', async () => {
    const res = await postUser(JSON.stringify(entraUser({ displayName: 'NAME' })).replace('"NAME"', String.raw`"Ada \ud83d\ude00"`));
    expect(res.status).toBe(201);
    expect(res.body.displayName).toBe('Ada 😀');
  });
});

describe('a percent-encoded lone surrogate in the URL (%ED%A0%80 is no UTF-8)', () => {
  // decodeURIComponent throws on it; no gateway hands a handler a lone surrogate for it, and
  // nothing answers 500. (A parameter that did arrive ill-formed is 422: test/unit/http-handler.test.ts.)
  it('answers a query value, a path id and a SCIM filter with a client error or a readable page, never a 500', async () => {
    const token = api.demo.keys.admin;
    const lone = '%ED%A0%80';
    const query = await call('GET', `${timesheetsUrl(api)}?employeeId=${lone}`, { token });
    const path = await call('GET', `${timesheetsUrl(api)}/${lone}`, { token });
    const filter = await call('GET', `${api.orgUrl()}/scim/v2/Users?filter=userName%20eq%20%22${lone}%22`, { token: api.demo.keys.scim });
    expect([query.status, path.status]).toEqual([422, 404]);
    // The local gateway keeps a value it cannot decode as sent (an unreadable filter, 400);
    // a gateway that decoded it to U+FFFD would find nobody (200). Either is an answer.
    expect(filter.status).toBeLessThan(500);
    for (const res of [query, path, filter]) expectWellFormedAnswer(res);
  });
});
