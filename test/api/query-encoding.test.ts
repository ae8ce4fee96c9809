import { parseQuery } from '../../services/local/gateway';
import { call, startApi, type ApiFixture } from '../support/api';

/**
 * Query strings are form-encoded, as every HTTP client and API Gateway's REST proxy treat
 * them: `+` is a space, a literal plus arrives as `%2B`. A black-box finding: a SCIM filter
 * sent by URLSearchParams (`displayName+eq+%22Team+Beta+9%22`) found nothing, because the
 * local gateway kept `+` as a plus, unlike API Gateway; no test noticed since the test
 * helper always encoded spaces as `%20`. These tests send both forms.
 */
let api: ApiFixture;
const scim = () => `${api.orgUrl()}/scim/v2`;
const form = (params: Record<string, string>) => new URLSearchParams(params).toString();

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('query strings', () => {
  it('reads + as a space and %2B as a plus, as API Gateway hands them to the function', () => {
    expect(parseQuery('?filter=displayName+eq+%22Team+Beta+9%22&q=a%2Bb').single).toEqual({ filter: 'displayName eq "Team Beta 9"', q: 'a+b' });
    expect(parseQuery('?a+b=c%20d').single).toEqual({ 'a b': 'c d' });
  });

  it('finds a SCIM user by a filter sent with + or with %20, and pages over it', async () => {
    const token = api.demo.keys.scim;
    const created = await call('POST', `${scim()}/Users`, {
      token,
      headers: { 'Content-Type': 'application/scim+json' },
      rawBody: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'team.beta.9@acme.example', displayName: 'Team Beta 9' }),
    });
    expect(created.status).toBe(201);
    const filter = 'displayName eq "Team Beta 9"';
    const plus = await call('GET', `${scim()}/Users?${form({ filter })}`, { token });
    expect(`${scim()}/Users?${form({ filter })}`).toContain('displayName+eq+%22Team+Beta+9%22');
    const percent = await call('GET', `${scim()}/Users?filter=${encodeURIComponent(filter)}`, { token });
    for (const res of [plus, percent]) {
      expect(res.status).toBe(200);
      expect(res.body.totalResults).toBe(1);
      expect(res.body.Resources[0].id).toBe(created.body.id);
    }
    const page = await call('GET', `${scim()}/Users?${form({ filter, startIndex: '1', count: '1' })}`, { token });
    expect(page.body).toMatchObject({ totalResults: 1, itemsPerPage: 1 });
  });

  it('keeps a literal plus sent as %2B (an e-mail address with a tag)', async () => {
    const token = api.demo.keys.scim;
    const userName = 'ada+scim@acme.example';
    const created = await call('POST', `${scim()}/Users`, {
      token,
      headers: { 'Content-Type': 'application/scim+json' },
      rawBody: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName }),
    });
    expect(created.status).toBe(201);
    const found = await call('GET', `${scim()}/Users?${form({ filter: `userName eq "${userName}"` })}`, { token });
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0].userName).toBe(userName);
  });

  it('searches employees with a q sent with +', async () => {
    const res = await call('GET', `${api.orgUrl()}/employees?${form({ q: 'ada lindqvist' })}`, { token: api.demo.keys.admin });
    expect(res.status).toBe(200);
    expect(res.body.items.map((e: { displayName?: string }) => e.displayName)).toContain('Ada Lindqvist');
  });
});
