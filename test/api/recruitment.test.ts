import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DEMO_CANDIDATE_IDS } from '../../services/recruitment/seed';
import { candidateMessageResponseSchema, candidateResponseSchema } from '../../services/recruitment/schemas';
import { call, countByType, expectParameters, expectPointers, expectProblem, scanTable, startApi, walkPages, withQuery, type ApiFixture, type ApiResponse } from '../support/api';
import { withCapturedLogs } from '../support/logs';
import { auditOf, ids, keyWith, read, send, sent } from './locations-fixture';

/**
 * Recruitment through the local gateway: candidates (create, read, list by stage and q,
 * update), the pipeline (moves and their 409 codes), the hire (employee in GET /employees
 * and SCIM /Users, uniqueness as POST /employees answers it), messages, erasure, scopes and
 * organization isolation.
 */
let api: ApiFixture;
const C = '/recruitment/candidates';
const etag = (res: ApiResponse) => res.headers.get('etag')!;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const newCandidate = (over: Record<string, unknown> = {}) => {
  const tag = randomUUID().slice(0, 8);
  return { givenName: 'Ines', familyName: `Navarro${tag}`, email: `ines.${tag}@mail.example`, position: 'Office cleaner', ...over };
};
const create = (over: Record<string, unknown> = {}) => sent(api, 'POST', C, newCandidate(over));
const move = (id: string, ifMatch: string, stage: string) => send(api, 'POST', `${C}/${id}/move`, { stage }, { ifMatch });

async function offered(over: Record<string, unknown> = {}): Promise<ApiResponse> {
  const c = await create(over);
  const res = await move(c.body.id, etag(c), 'OFFER');
  expect(res.status).toBe(200);
  return res;
}

describe('POST /recruitment/candidates', () => {
  it('creates a candidate in APPLIED with 201, Location and ETag; every nullable member present', async () => {
    const body = newCandidate({ phone: '+49 40 123456', source: 'Job board' });
    const res = await sent(api, 'POST', C, body);
    expect(res.body).toEqual({
      id: expect.any(String),
      ...body,
      stage: 'APPLIED',
      stageChangedAt: expect.any(String),
      employeeId: null,
      hiredAt: null,
      erased: false,
      erasedAt: null,
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(candidateResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}${C}/${res.body.id}`);
    expect(etag(res)).toBe(`"candidate:${res.body.id}:v1"`);
    const [audit] = await auditOf(api, res.body.id);
    expect(audit).toMatchObject({ action: 'candidate.created', entity: { type: 'candidate', id: res.body.id }, requestId: res.requestId });
    expect(audit.changedAttributes).toEqual(['email', 'familyName', 'givenName', 'phone', 'position', 'source']);
    // The audit entry names attributes, never the candidate's values.
    expect(JSON.stringify(audit)).not.toMatch(new RegExp(`${body.familyName}|${body.email}|123456`));
  });

  it('rejects missing and invalid fields with pointers and writes nothing', async () => {
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', C, { givenName: '', email: 'nope', phone: 'x', stage: 'HIRED' }), ['/givenName', '/familyName', '/email', '/phone', '/position', '/stage']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('needs an Idempotency-Key and replays the same one', async () => {
    expectProblem(await send(api, 'POST', C, newCandidate(), { idempotencyKey: undefined }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
    const key = randomUUID();
    const body = newCandidate();
    const first = await sent(api, 'POST', C, body, 201, { idempotencyKey: key });
    const again = await sent(api, 'POST', C, body, 201, { idempotencyKey: key });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
  });
});

describe('GET /recruitment/candidates', () => {
  it('lists in creation order, filters by stage, searches by name and e-mail, and pages with a cursor', async () => {
    const a = await create();
    const b = await offered();
    const all = (await walkPages(withQuery(`${api.orgUrl()}${C}`, { limit: 2 }), api.demo.keys.admin)).flatMap((p) => p.body.items);
    const positions = all.map((c) => `${c.createdAt}#${c.id}`);
    expect(positions).toEqual([...positions].sort());
    expect(all.map((c) => c.id)).toEqual(expect.arrayContaining([a.body.id, b.body.id]));
    const inOffer = await read(api, withQuery(C, { stage: 'OFFER', limit: 200 }));
    expect(ids(inOffer)).toContain(b.body.id);
    expect(ids(inOffer)).not.toContain(a.body.id);
    expect(ids(await read(api, withQuery(C, { q: a.body.familyName })))).toEqual([a.body.id]);
    expect(ids(await read(api, withQuery(C, { q: a.body.email })))).toEqual([a.body.id]);
  });

  it('holds the two demo candidates: one APPLIED with a message, one in OFFER ready to hire', async () => {
    const [applied, offer] = DEMO_CANDIDATE_IDS;
    expect((await read(api, `${C}/${applied}`)).body).toMatchObject({ stage: 'APPLIED', givenName: 'Farah' });
    expect((await read(api, `${C}/${applied}/messages`)).body.items).toHaveLength(1);
    expect((await read(api, `${C}/${offer}`)).body).toMatchObject({ stage: 'OFFER', givenName: 'Jonas' });
  });

  it('answers 422 for an unknown stage, q with stage, and unknown parameters', async () => {
    expectParameters(await read(api, withQuery(C, { stage: 'SLEEPING' })), ['stage']);
    expectParameters(await read(api, withQuery(C, { stage: 'OFFER', q: 'ines' })), ['stage']);
    expectParameters(await read(api, withQuery(C, { sort: 'name' })), ['sort']);
  });
});

describe('GET and PATCH /recruitment/candidates/{candidateId}', () => {
  it('reads one candidate with its ETag and 404s for unknown ids', async () => {
    const c = await create();
    const res = await read(api, `${C}/${c.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(c.body);
    expect(etag(res)).toBe(etag(c));
    expectProblem(await read(api, `${C}/${randomUUID()}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await read(api, `${C}/not-a-uuid`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('changes the fields sent with If-Match; 428 without, 412 when stale; no change keeps the ETag', async () => {
    const c = await create({ phone: '+49 40 1' });
    expectProblem(await send(api, 'PATCH', `${C}/${c.body.id}`, { position: 'Team lead' }), 428, 'ETAG_REQUIRED');
    const res = await send(api, 'PATCH', `${C}/${c.body.id}`, { position: 'Team lead', phone: null }, { ifMatch: etag(c) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ position: 'Team lead', phone: null, version: 2 });
    expectProblem(await send(api, 'PATCH', `${C}/${c.body.id}`, { position: 'Other' }, { ifMatch: etag(c) }), 412, 'ETAG_MISMATCH');
    const same = await send(api, 'PATCH', `${C}/${c.body.id}`, { position: 'Team lead' }, { ifMatch: etag(res) });
    expect(etag(same)).toBe(etag(res));
    expectPointers(await send(api, 'PATCH', `${C}/${c.body.id}`, { stage: 'OFFER', position: 'Lead' }, { ifMatch: etag(res) }), ['/stage']);
    const audit = await auditOf(api, c.body.id);
    expect(audit.at(-1)).toMatchObject({ action: 'candidate.updated', changedAttributes: ['phone', 'position'] });
  });
});

describe('POST /recruitment/candidates/{candidateId}/move', () => {
  it('moves forward (skipping allowed), keeps the current stage, and audits the stages', async () => {
    const c = await create();
    const toInterview = await move(c.body.id, etag(c), 'INTERVIEW');
    expect(toInterview.status).toBe(200);
    expect(toInterview.body).toMatchObject({ stage: 'INTERVIEW', version: 2 });
    const same = await move(c.body.id, etag(toInterview), 'INTERVIEW');
    expect(same.body.version).toBe(2);
    const audit = await auditOf(api, c.body.id);
    expect(audit.at(-1)).toMatchObject({ action: 'candidate.stage_changed', before: { stage: 'APPLIED' }, after: { stage: 'INTERVIEW' } });
  });

  it('refuses illegal moves with 409 and the code of the refusal, writing nothing', async () => {
    const c = await create();
    const interview = await move(c.body.id, etag(c), 'INTERVIEW');
    const before = await countByType(api.db);
    const passed = expectProblem(await move(c.body.id, etag(interview), 'SCREENING'), 409, 'CANDIDATE_STAGE_PASSED');
    expect(passed).toMatchObject({ stage: 'INTERVIEW', allowedStages: ['OFFER', 'REJECTED', 'WITHDRAWN'] });
    expect(await countByType(api.db)).toEqual(before);
    const rejected = await move(c.body.id, etag(interview), 'REJECTED');
    expect(rejected.body.stage).toBe('REJECTED');
    expectProblem(await move(c.body.id, etag(rejected), 'OFFER'), 409, 'CANDIDATE_REJECTED');
    expectProblem(await send(api, 'POST', `${C}/${c.body.id}/hire`, {}, { ifMatch: etag(rejected) }), 409, 'CANDIDATE_REJECTED');
    const w = await create();
    const withdrawn = await move(w.body.id, etag(w), 'WITHDRAWN');
    expectProblem(await move(w.body.id, etag(withdrawn), 'WITHDRAWN'), 409, 'CANDIDATE_WITHDRAWN');
  });

  it('takes HIRED only through /hire, and needs If-Match', async () => {
    const c = await create();
    expectPointers(await move(c.body.id, etag(c), 'HIRED'), ['/stage']);
    expectProblem(await send(api, 'POST', `${C}/${c.body.id}/move`, { stage: 'SCREENING' }), 428, 'ETAG_REQUIRED');
  });
});

describe('POST /recruitment/candidates/{candidateId}/hire', () => {
  it('creates the employee and links it; the employee is in GET /employees and SCIM /Users', async () => {
    const c = await offered();
    const res = await send(api, 'POST', `${C}/${c.body.id}/hire`, { externalId: `hr-${c.body.id}`, department: 'Cleaning' }, { ifMatch: etag(c) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.body.id, stage: 'HIRED', employeeId: expect.any(String), hiredAt: expect.any(String), version: c.body.version + 1 });
    const employeeId = res.body.employeeId;

    const employee = await read(api, `/employees/${employeeId}`);
    expect(employee.status).toBe(200);
    expect(employee.body).toMatchObject({ id: employeeId, userName: c.body.email, givenName: c.body.givenName, familyName: c.body.familyName, externalId: `hr-${c.body.id}`, department: 'Cleaning', active: true });
    const listed = (await walkPages(withQuery(`${api.orgUrl()}/employees`, { limit: 200 }), api.demo.keys.admin)).flatMap((p) => p.body.items);
    expect(listed.map((e) => e.id)).toContain(employeeId);

    const scim = await call('GET', withQuery(`${api.orgUrl()}/scim/v2/Users`, { filter: `userName eq "${c.body.email}"` }), { token: api.demo.keys.scim });
    expect(scim.status).toBe(200);
    expect(scim.body.Resources.map((u: { id: string }) => u.id)).toEqual([employeeId]);
    expect(scim.body.Resources[0]).toMatchObject({ userName: c.body.email, externalId: `hr-${c.body.id}`, active: true });

    const audit = (await auditOf(api, employeeId))[0];
    expect(audit).toMatchObject({ action: 'employee.created', references: { candidateId: c.body.id }, requestId: res.requestId });
    expect((await auditOf(api, c.body.id)).at(-1)).toMatchObject({ action: 'candidate.hired', references: { employeeId }, requestId: res.requestId });
    expectProblem(await send(api, 'POST', `${C}/${c.body.id}/hire`, {}, { ifMatch: etag(res) }), 409, 'CANDIDATE_HIRED');
  });

  it('answers a taken userName or externalId as POST /employees does (409 UNIQUENESS_CONFLICT) and writes nothing', async () => {
    const taken = await sent(api, 'POST', '/employees', { userName: `taken.${randomUUID()}@acme.example`, externalId: `ext-${randomUUID()}` });
    const c = await offered({ email: taken.body.userName });
    const before = await countByType(api.db);
    const byEmail = expectProblem(await send(api, 'POST', `${C}/${c.body.id}/hire`, {}, { ifMatch: etag(c) }), 409, 'UNIQUENESS_CONFLICT');
    expect(byEmail.attribute).toBe('userName');
    const byExternal = expectProblem(await send(api, 'POST', `${C}/${c.body.id}/hire`, { userName: `free.${randomUUID()}@acme.example`, externalId: taken.body.externalId }, { ifMatch: etag(c) }), 409, 'UNIQUENESS_CONFLICT');
    expect(byExternal.attribute).toBe('externalId');
    expect(await countByType(api.db)).toEqual(before);
    // The same conflict from the employees API itself, for comparison.
    const direct = expectProblem(await send(api, 'POST', '/employees', { userName: taken.body.userName }), 409, 'UNIQUENESS_CONFLICT');
    expect(direct.attribute).toBe('userName');
  });

  it('hires only from OFFER and needs employees:write besides recruitment:write', async () => {
    const c = await create();
    expectProblem(await send(api, 'POST', `${C}/${c.body.id}/hire`, {}, { ifMatch: etag(c) }), 409, 'CANDIDATE_NOT_OFFERED');
    const o = await offered();
    const recruiter = await keyWith(api, ['recruitment:read', 'recruitment:write']);
    expectProblem(await send(api, 'POST', `${C}/${o.body.id}/hire`, {}, { ifMatch: etag(o), token: recruiter }), 403, 'SCOPE_REQUIRED');
  });
});

describe('candidate messages', () => {
  it('records messages (201, Location, ETag), lists them oldest first, and moves the candidate ETag', async () => {
    const c = await create();
    const first = await sent(api, 'POST', `${C}/${c.body.id}/messages`, { direction: 'OUTBOUND', channel: 'EMAIL', subject: 'Your application', body: 'Thank you for applying.' });
    expect(first.body).toEqual({ id: expect.any(String), candidateId: c.body.id, direction: 'OUTBOUND', channel: 'EMAIL', subject: 'Your application', body: 'Thank you for applying.', erased: false, recordedAt: expect.any(String) });
    expect(candidateMessageResponseSchema.strict().safeParse(first.body).error).toBeUndefined();
    expect(first.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}${C}/${c.body.id}/messages/${first.body.id}`);
    // The Location names the message: read there with the same ETag and body.
    const again = await read(api, `${C}/${c.body.id}/messages/${first.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(etag(again)).toBe(etag(first));
    await sent(api, 'POST', `${C}/${c.body.id}/messages`, { direction: 'INBOUND', channel: 'PHONE', body: 'Called back.' });
    const pages = await walkPages(withQuery(`${api.orgUrl()}${C}/${c.body.id}/messages`, { limit: 1 }), api.demo.keys.admin);
    expect(pages.flatMap((p) => p.body.items).map((m) => m.body)).toEqual(['Thank you for applying.', 'Called back.']);
    expect(etag(await read(api, `${C}/${c.body.id}`))).toBe(`"candidate:${c.body.id}:v3"`);
    const [audit] = await auditOf(api, first.body.id);
    expect(audit).toMatchObject({ action: 'candidate_message.created', references: { candidateId: c.body.id }, after: { direction: 'OUTBOUND', channel: 'EMAIL' }, changedAttributes: ['body', 'subject'] });
    expect(JSON.stringify(audit)).not.toContain('Thank you');
  });

  it('rejects invalid messages and answers 404 for an unknown candidate', async () => {
    const c = await create();
    expectPointers(await send(api, 'POST', `${C}/${c.body.id}/messages`, { direction: 'SIDEWAYS', channel: 'FAX', body: '' }), ['/direction', '/channel', '/body']);
    expectProblem(await send(api, 'POST', `${C}/${randomUUID()}/messages`, { direction: 'INBOUND', channel: 'EMAIL', body: 'x' }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await read(api, `${C}/${randomUUID()}/messages`), 404, 'RESOURCE_NOT_FOUND');
    // A message is found under its own candidate only.
    const m = await sent(api, 'POST', `${C}/${c.body.id}/messages`, { direction: 'INBOUND', channel: 'EMAIL', body: 'x' });
    const other = await create();
    expectProblem(await read(api, `${C}/${other.body.id}/messages/${m.body.id}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await read(api, `${C}/${c.body.id}/messages/${randomUUID()}`), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('POST /recruitment/candidates/{candidateId}/erase', () => {
  it('removes the personal values from the candidate, its messages and the search index; record and audit stay', async () => {
    const tag = randomUUID().slice(0, 8);
    const c = await create({ givenName: `Wilhelmina${tag}`, familyName: `Thistlewood${tag}`, email: `wt.${tag}@private.example`, phone: '+49 30 5550199', source: `Referral by Bartholomew${tag}` });
    await sent(api, 'POST', `${C}/${c.body.id}/messages`, { direction: 'INBOUND', channel: 'EMAIL', subject: `From Wilhelmina${tag}`, body: `Reach me at +49 30 5550199, Thistlewood${tag}` });
    const current = await read(api, `${C}/${c.body.id}`);
    const res = await send(api, 'POST', `${C}/${c.body.id}/erase`, undefined, { ifMatch: etag(current) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.body.id, givenName: null, familyName: null, email: null, phone: null, source: null, position: 'Office cleaner', stage: 'APPLIED', erased: true, erasedAt: expect.any(String) });
    expect(await read(api, `${C}/${c.body.id}`)).toMatchObject({ status: 200, body: res.body });
    const messages = await read(api, `${C}/${c.body.id}/messages`);
    expect(messages.body.items).toEqual([expect.objectContaining({ direction: 'INBOUND', channel: 'EMAIL', subject: null, body: null, erased: true })]);
    expect(ids(await read(api, withQuery(C, { q: `Thistlewood${tag}` })))).toEqual([]);

    // No item holds a value: entities, index, audit, and the idempotency records of the earlier
    // writes, whose stored responses the erasure replaced.
    const values = [`wilhelmina${tag}`, `thistlewood${tag}`, `wt.${tag}`, '5550199', `bartholomew${tag}`];
    const holding = (await scanTable(api.db)).filter((item) => values.some((v) => JSON.stringify(item).toLowerCase().includes(v)));
    expect(holding.map((i) => i.itemType)).toEqual([]);
    const audit = await auditOf(api, c.body.id);
    expect(audit.map((a) => a.action)).toEqual(['candidate.created', 'candidate.erased']);
    expect(audit[1]).toMatchObject({ changedAttributes: ['email', 'familyName', 'givenName', 'messages', 'phone', 'source'], after: { erased: true, messagesErased: 1 } });

    // Erasing again changes nothing; other changes are 409 CANDIDATE_ERASED.
    const again = await send(api, 'POST', `${C}/${c.body.id}/erase`, {}, { ifMatch: etag(res) });
    expect(again.status).toBe(200);
    expect(etag(again)).toBe(etag(res));
    expectProblem(await send(api, 'PATCH', `${C}/${c.body.id}`, { givenName: 'Back' }, { ifMatch: etag(res) }), 409, 'CANDIDATE_ERASED');
    expectProblem(await move(c.body.id, etag(res), 'SCREENING'), 409, 'CANDIDATE_ERASED');
    expectProblem(await send(api, 'POST', `${C}/${c.body.id}/messages`, { direction: 'INBOUND', channel: 'EMAIL', body: 'x' }), 409, 'CANDIDATE_ERASED');
  });

  it("keeps a hired candidate's employee when the candidate is erased", async () => {
    const c = await offered();
    const hired = await send(api, 'POST', `${C}/${c.body.id}/hire`, {}, { ifMatch: etag(c) });
    const erased = await send(api, 'POST', `${C}/${c.body.id}/erase`, {}, { ifMatch: etag(hired) });
    expect(erased.body).toMatchObject({ stage: 'HIRED', employeeId: hired.body.employeeId, email: null, erased: true });
    expect(await read(api, `/employees/${hired.body.employeeId}`)).toMatchObject({ status: 200, body: { userName: c.body.email, active: true } });
  });
});

describe('erasure and the stored responses of earlier writes', () => {
  const secrets = (tag: string) => ({
    givenName: `Philippa${tag}`,
    familyName: `Marchbanks${tag}`,
    email: `pm.${tag}@private.example`,
    phone: '+49 40 7770123',
    subject: `Contract for Philippa${tag}`,
    body: `Dear Marchbanks${tag}, call 7770123`,
    patchedSource: `Referred by Cornelius${tag}`,
  });
  const valuesOf = (s: ReturnType<typeof secrets>) => [s.givenName, s.familyName, s.email, '7770123', s.subject, `Cornelius`].map((v) => v.toLowerCase());
  const holdsAny = (text: string, values: readonly string[]) => values.filter((v) => text.toLowerCase().includes(v));
  const subjectOf = (candidateId: string) => `IDEMSUBJ#${api.demo.organizationId}#candidate#${candidateId}`;
  const recordsAbout = async (candidateId: string) => (await scanTable(api.db)).filter((i) => i.itemType === 'IdempotencyRecord' && i.subject === subjectOf(candidateId));
  /** The links on the candidate's partition, by the record each names. */
  const linksOf = async (candidateId: string) => (await scanTable(api.db)).filter((i) => i.PK === subjectOf(candidateId)).map((i) => ({ itemType: i.itemType, SK: i.SK, expiresAt: i.expiresAt }));
  const recordsByPk = async (pks: readonly string[]) => (await scanTable(api.db)).filter((i) => pks.includes(i.PK));

  /** Create (key K), a message (key M) and a PATCH (key P) of one candidate; the requests, to replay them. */
  async function candidateWithHistory(s: ReturnType<typeof secrets>) {
    const K = randomUUID();
    const M = randomUUID();
    const P = randomUUID();
    const createBody = newCandidate({ givenName: s.givenName, familyName: s.familyName, email: s.email, phone: s.phone });
    const c = await sent(api, 'POST', C, createBody, 201, { idempotencyKey: K });
    const messageBody = { direction: 'OUTBOUND', channel: 'EMAIL', subject: s.subject, body: s.body };
    await sent(api, 'POST', `${C}/${c.body.id}/messages`, messageBody, 201, { idempotencyKey: M });
    const ifMatch = etag(await read(api, `${C}/${c.body.id}`));
    const patchBody = { source: s.patchedSource };
    const patched = await sent(api, 'PATCH', `${C}/${c.body.id}`, patchBody, 200, { idempotencyKey: P, ifMatch });
    const replays = {
      K: () => send(api, 'POST', C, createBody, { idempotencyKey: K }),
      M: () => send(api, 'POST', `${C}/${c.body.id}/messages`, messageBody, { idempotencyKey: M }),
      P: () => send(api, 'PATCH', `${C}/${c.body.id}`, patchBody, { idempotencyKey: P, ifMatch }),
    };
    const org = `/v1/organizations/${api.demo.organizationId}`;
    /** The path each replay requests: its problem's `instance`. */
    const paths = { K: `${org}${C}`, M: `${org}${C}/${c.body.id}/messages`, P: `${org}${C}/${c.body.id}` };
    return { id: c.body.id as string, created: c, patched, replays, paths };
  }

  it('replays the create, a message and a PATCH of an erased candidate as 409 CANDIDATE_ERASED, holding no erased value', async () => {
    const s = secrets(randomUUID().slice(0, 8));
    const values = valuesOf(s);
    const captured: string[] = [];
    const logged = async <T>(work: () => Promise<T>): Promise<T> => {
      const { result, logs } = await withCapturedLogs(work);
      captured.push(logs);
      return result;
    };
    const mine = await logged(() => candidateWithHistory(s));
    const records = await recordsAbout(mine.id);
    expect(records).toHaveLength(3);
    expect(records.every((r) => holdsAny(JSON.stringify(r), values).length > 0)).toBe(true);
    // Each record is linked from the candidate's partition (ids only), and is on no index.
    expect((await linksOf(mine.id)).sort((a, b) => a.SK.localeCompare(b.SK))).toEqual(
      records.map((r) => ({ itemType: 'IdempotencySubjectLink', SK: r.PK, expiresAt: r.expiresAt })).sort((a, b) => a.SK.localeCompare(b.SK)),
    );
    expect(records.map((r) => r.GSI1PK)).toEqual([undefined, undefined, undefined]);

    const erased = await logged(() => send(api, 'POST', `${C}/${mine.id}/erase`, undefined, { ifMatch: etag(mine.patched) }));
    expect(erased.status).toBe(200);

    for (const [name, replay] of Object.entries(mine.replays)) {
      const res = await logged(replay);
      // The problem a change to the erased candidate answers, as every problem: its requestId
      // is the replay's own X-Request-Id and its instance the replay's path (not the erasure's).
      expect({ name, status: res.status, replayed: res.headers.get('idempotency-replayed'), contentType: res.headers.get('content-type') }).toEqual({ name, status: 409, replayed: 'true', contentType: 'application/problem+json' });
      expect(res.body).toEqual({
        type: 'https://errors.wfm-api.example/candidate-erased',
        title: "Candidate's personal data is erased",
        status: 409,
        code: 'CANDIDATE_ERASED',
        detail: expect.any(String),
        instance: mine.paths[name as keyof typeof mine.paths],
        requestId: res.requestId,
      });
      expect(res.requestId).not.toBe(erased.requestId);
      expect(res.headers.get('etag')).toBeNull();
      expect(res.headers.get('location')).toBeNull();
      expect(holdsAny(`${res.text} ${JSON.stringify([...res.headers])}`, values)).toEqual([]);
    }

    // The raw records: the same keys, still COMPLETED with their payload hash and expiry, the
    // response replaced, no longer naming the subject (their links gone), and none of the
    // erased values anywhere.
    const after = await recordsByPk(records.map((r) => r.PK));
    expect(after).toHaveLength(3);
    for (const record of after) {
      const before = records.find((r) => r.PK === record.PK)!;
      expect(record).toMatchObject({ status: 'COMPLETED', payloadHash: before.payloadHash, expiresAt: before.expiresAt, response: { statusCode: 409, contentType: 'application/problem+json' } });
      expect(record.subject).toBeUndefined();
      expect(holdsAny(JSON.stringify(record), values)).toEqual([]);
    }
    expect(await linksOf(mine.id)).toEqual([]);
    // A change sent afresh is refused as before (and logged, by code only).
    expectProblem(await logged(() => send(api, 'PATCH', `${C}/${mine.id}`, { givenName: s.givenName }, { ifMatch: etag(erased) })), 409, 'CANDIDATE_ERASED');
    // Erasing again writes no second audit entry and finds nothing left to replace.
    const again = await logged(() => send(api, 'POST', `${C}/${mine.id}/erase`, {}, { ifMatch: etag(erased) }));
    expect(again.status).toBe(200);
    expect((await auditOf(api, mine.id)).filter((a) => a.action === 'candidate.erased')).toHaveLength(1);
    expect(await recordsAbout(mine.id)).toEqual([]);
    const logs = captured.join('');
    expect(logs).toContain('CANDIDATE_ERASED');
    expect(holdsAny(logs, values)).toEqual([]);
  });

  it("answers a replayed tombstone with the replay's own requestId and instance; the stored record keeps the erasure's", async () => {
    const mine = await candidateWithHistory(secrets(randomUUID().slice(0, 8)));
    const records = await recordsAbout(mine.id);
    const erased = await send(api, 'POST', `${C}/${mine.id}/erase`, undefined, { ifMatch: etag(mine.patched) });
    expect(erased.status).toBe(200);
    for (const name of ['K', 'M'] as const) {
      const first = await mine.replays[name]();
      const second = await mine.replays[name]();
      for (const res of [first, second]) {
        expect({ name, status: res.status, code: res.body.code, replayed: res.headers.get('idempotency-replayed'), contentType: res.headers.get('content-type') }).toEqual({
          name,
          status: 409,
          code: 'CANDIDATE_ERASED',
          replayed: 'true',
          contentType: 'application/problem+json',
        });
        expect(res.requestId).toMatch(/^[0-9a-f-]{36}$/);
        expect({ requestId: res.body.requestId, instance: res.body.instance }).toEqual({ requestId: res.requestId, instance: mine.paths[name] });
      }
      // Two replays, two requests: each names its own.
      expect(first.body.requestId).not.toBe(second.body.requestId);
      // Only those two members differ; the rest of the stored problem is replayed as it is.
      const { requestId: _r1, instance: _i1, ...restFirst } = first.body;
      const { requestId: _r2, instance: _i2, ...restSecond } = second.body;
      expect(restSecond).toEqual(restFirst);
      expect(Object.keys(first.body)).toEqual(['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId']);
    }
    // The records still hold the tombstone as the erasure wrote it: a replay rewrites nothing.
    const stored = await recordsByPk(records.map((r) => r.PK));
    for (const record of stored) {
      expect(JSON.parse(record.response.bodyText)).toMatchObject({ requestId: erased.requestId, instance: `/v1/organizations/${api.demo.organizationId}${C}/${mine.id}` });
    }
  });

  it('reaches every stored response from its link, strongly consistent: no index, no second look', async () => {
    const mine = await candidateWithHistory(secrets(randomUUID().slice(0, 8)));
    expect(await recordsAbout(mine.id)).toHaveLength(3);
    // An eventually consistent index could still lag behind the writes just acknowledged: here
    // GSI1 shows none of them. The erasure reads the links on the candidate's partition instead.
    const realSend = DynamoDBDocumentClient.prototype.send as (...a: unknown[]) => Promise<{ Items?: Record<string, unknown>[] }>;
    const queries: { index: string | undefined; consistent: boolean | undefined }[] = [];
    jest.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(async function (this: DynamoDBDocumentClient, command: unknown, ...rest: unknown[]) {
      const out = await realSend.call(this, command, ...rest);
      const values = Object.values((command as QueryCommand).input?.ExpressionAttributeValues ?? {});
      if (command instanceof QueryCommand && values.some((v) => String(v).startsWith('IDEMSUBJ#'))) {
        queries.push({ index: command.input.IndexName, consistent: command.input.ConsistentRead });
        if (command.input.IndexName) return { ...out, Items: [] };
      }
      return out;
    } as never);
    let erased: ApiResponse;
    try {
      erased = await send(api, 'POST', `${C}/${mine.id}/erase`, undefined, { ifMatch: etag(mine.patched) });
    } finally {
      jest.restoreAllMocks();
    }
    expect({ status: erased.status, queries }).toEqual({ status: 200, queries: [{ index: undefined, consistent: true }, { index: 'GSI1', consistent: undefined }] });
    for (const replay of Object.values(mine.replays)) expect((await replay()).status).toBe(409);
    expect(await recordsAbout(mine.id)).toEqual([]);
    expect(await linksOf(mine.id)).toEqual([]);
  });

  it('completes the replacement on a retry with the same key when it failed after the erasure committed', async () => {
    const mine = await candidateWithHistory(secrets(randomUUID().slice(0, 8)));
    const key = randomUUID();
    const erase = () => send(api, 'POST', `${C}/${mine.id}/erase`, undefined, { ifMatch: etag(mine.patched), idempotencyKey: key });
    // The replacement's first read fails, after the erasure's transaction committed.
    const realSend = DynamoDBDocumentClient.prototype.send as (...a: unknown[]) => Promise<unknown>;
    let failures = 0;
    jest.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(function (this: DynamoDBDocumentClient, command: unknown, ...rest: unknown[]) {
      const values = Object.values((command as QueryCommand).input?.ExpressionAttributeValues ?? {});
      if (failures === 0 && command instanceof QueryCommand && values.some((v) => String(v).startsWith('IDEMSUBJ#'))) {
        failures += 1;
        return Promise.reject(Object.assign(new Error('simulated outage'), { name: 'InternalServerError' }));
      }
      return realSend.call(this, command, ...rest);
    } as never);
    let failed: ApiResponse;
    try {
      failed = await erase();
    } finally {
      jest.restoreAllMocks();
    }
    expect({ failures, status: failed.status >= 500 }).toEqual({ failures: 1, status: true });
    expect((await read(api, `${C}/${mine.id}`)).body.erased).toBe(true);
    // The stored responses were not replaced: the create still replays its 201.
    expect((await mine.replays.K()).status).toBe(201);

    const retried = await erase();
    expect({ status: retried.status, replayed: retried.headers.get('idempotency-replayed') }).toEqual({ status: 200, replayed: 'true' });
    for (const replay of Object.values(mine.replays)) {
      const res = await replay();
      // The tombstone the retry wrote, answered as the replay's own problem (its X-Request-Id).
      expect({ status: res.status, code: res.body.code, replayed: res.headers.get('idempotency-replayed'), requestId: res.body.requestId }).toEqual({ status: 409, code: 'CANDIDATE_ERASED', replayed: 'true', requestId: res.requestId });
      expect(res.body.requestId).not.toBe(retried.requestId);
    }
    expect(await recordsAbout(mine.id)).toEqual([]);
  });

  it("leaves another candidate's records and other areas' records as they were: they still replay their responses", async () => {
    const mine = await candidateWithHistory(secrets(randomUUID().slice(0, 8)));
    const otherSecrets = secrets(randomUUID().slice(0, 8));
    const other = await candidateWithHistory(otherSecrets);
    const originals = { K: other.created.text, P: other.patched.text };
    const otherRecords = await recordsAbout(other.id);
    expect(otherRecords).toHaveLength(3);
    const materialKey = randomUUID();
    const materialBody = { name: `Sealant ${randomUUID().slice(0, 8)}`, unit: 'l' };
    const material = await sent(api, 'POST', '/materials', materialBody, 201, { idempotencyKey: materialKey });

    expect((await send(api, 'POST', `${C}/${mine.id}/erase`, {}, { ifMatch: etag(mine.patched) })).status).toBe(200);

    expect(await recordsAbout(other.id)).toEqual(otherRecords);
    const created = await other.replays.K();
    expect(created).toMatchObject({ status: 201, text: originals.K });
    expect(created.headers.get('idempotency-replayed')).toBe('true');
    expect((await other.replays.M()).body).toMatchObject({ subject: otherSecrets.subject, body: otherSecrets.body });
    expect(await other.replays.P()).toMatchObject({ status: 200, text: originals.P });
    const replayedMaterial = await send(api, 'POST', '/materials', materialBody, { idempotencyKey: materialKey });
    expect(replayedMaterial).toMatchObject({ status: 201, text: material.text });
    expect(replayedMaterial.headers.get('idempotency-replayed')).toBe('true');
    // Records of other routes never join an index of subjects.
    const materialRecords = (await scanTable(api.db)).filter((i) => i.itemType === 'IdempotencyRecord' && typeof i.response?.bodyText === 'string' && i.response.bodyText.includes(materialBody.name));
    expect(materialRecords).toHaveLength(1);
    expect(materialRecords[0]).not.toHaveProperty('subject');
    expect(materialRecords[0]).not.toHaveProperty('GSI1PK');
  });
});

describe('scopes and organizations', () => {
  it('reads with recruitment:read and writes with recruitment:write only', async () => {
    const c = await create();
    const reader = await keyWith(api, ['recruitment:read']);
    const other = await keyWith(api, ['employees:read', 'employees:write']);
    expect((await read(api, `${C}/${c.body.id}`, reader)).status).toBe(200);
    expectProblem(await read(api, C, other), 403, 'SCOPE_REQUIRED');
    expectProblem(await send(api, 'POST', C, newCandidate(), { token: reader }), 403, 'SCOPE_REQUIRED');
    expectProblem(await send(api, 'POST', `${C}/${c.body.id}/erase`, {}, { token: reader, ifMatch: etag(c) }), 403, 'SCOPE_REQUIRED');
  });

  it("never reaches another organization's candidate by id", async () => {
    const c = await create();
    const foreign = api.demo.keys.otherOrganization;
    const otherUrl = api.orgUrl(api.demo.otherOrganizationId);
    expectProblem(await call('GET', `${otherUrl}${C}/${c.body.id}`, { token: foreign }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await call('GET', `${otherUrl}${C}/${c.body.id}/messages`, { token: foreign }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await call('POST', `${otherUrl}${C}/${c.body.id}/erase`, { token: foreign, idempotencyKey: randomUUID(), ifMatch: etag(c), body: {} }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await call('POST', `${otherUrl}${C}/${c.body.id}/messages`, { token: foreign, idempotencyKey: randomUUID(), body: { direction: 'INBOUND', channel: 'EMAIL', body: 'x' } }), 404, 'RESOURCE_NOT_FOUND');
    const list = await call('GET', `${otherUrl}${C}?limit=200`, { token: foreign });
    expect(ids(list)).not.toContain(c.body.id);
    expectProblem(await call('GET', `${api.orgUrl()}${C}/${c.body.id}`, { token: foreign }), 403, 'ACCESS_DENIED');
  });
});
