import { randomUUID } from 'node:crypto';
import { putEmployee } from '../../services/employees/store';
import { MAX_RECIPIENTS } from '../../services/messages/domain';
import { putOrganization } from '../../services/organization/public';
import { call, expectProblem, itemsOfType, startApi, walkPages, withQuery, type ApiFixture, type ApiResponse } from '../support/api';
import { auditOf, keyWith } from './locations-fixture';

/**
 * Sends beyond one transaction, through the local gateway on DynamoDB Local: an EVERYONE
 * audience of 130 active employees is sent (recipients written in batches ahead of the commit),
 * listed completely, shown once in each employee's list and takes read reports; an audience
 * above MAX_RECIPIENTS is refused with `maxRecipients`. Each case has an organization of its
 * own, so that its EVERYONE is exactly the employees it made.
 */
let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

async function organization(activeEmployees: number): Promise<{ org: string; token: string; employees: string[] }> {
  const org = randomUUID();
  const at = new Date().toISOString();
  await putOrganization(api.db, { id: org, name: 'Facility services', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: at, updatedAt: at });
  const employees = Array.from({ length: activeEmployees }, () => randomUUID());
  for (let i = 0; i < employees.length; i += 50) {
    await Promise.all(employees.slice(i, i + 50).map((id) => putEmployee(api.db, { id, organizationId: org, userName: `${id}@fanout.example`, emails: [], active: true, createdAt: at, updatedAt: at, version: 1 })));
  }
  const inactive = randomUUID();
  await putEmployee(api.db, { id: inactive, organizationId: org, userName: `${inactive}@fanout.example`, emails: [], active: false, createdAt: at, updatedAt: at, version: 1 });
  return { org, token: await keyWith(api, ['messages:read', 'messages:write'], org), employees: employees.sort() };
}

const write = (token: string, org: string, method: string, path: string, body?: unknown, ifMatch?: string): Promise<ApiResponse> =>
  call(method, `${api.orgUrl(org)}${path}`, { token, idempotencyKey: randomUUID(), ...(body !== undefined ? { body } : {}), ...(ifMatch ? { ifMatch } : {}) });

async function everyoneDraft(token: string, org: string): Promise<ApiResponse> {
  const res = await write(token, org, 'POST', '/messages', { subject: 'Site closed on Friday', body: 'All sites close at noon.', audience: { type: 'EVERYONE' } });
  expect(res.status).toBe(201);
  return res;
}

describe('POST /messages/{id}/send beyond one transaction', () => {
  it('sends to 130 active employees: every recipient listed once, each employee sees the message once, read reports work', async () => {
    const { org, token, employees } = await organization(130);
    const draft = await everyoneDraft(token, org);
    const id = draft.body.id as string;
    const sent = await write(token, org, 'POST', `/messages/${id}/send`, undefined, draft.headers.get('etag')!);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ state: 'SENT', recipientCount: 130, version: 2 });
    expect(sent.body).not.toHaveProperty('sendId');
    expect(sent.headers.get('etag')).toBe(`"message:${id}:v2"`);

    const pages = await walkPages<{ employeeId: string; read: boolean; sentAt: string }>(withQuery(`${api.orgUrl(org)}/messages/${id}/recipients`, { limit: 40 }), token);
    expect(pages.map((p) => p.body.items.length)).toEqual([40, 40, 40, 10]);
    const listed = pages.flatMap((p) => p.body.items);
    expect(listed.map((r) => r.employeeId)).toEqual(employees);
    expect(listed.every((r) => !r.read && r.sentAt === sent.body.sentAt)).toBe(true);
    expect((await itemsOfType(api.db, 'MessageRecipient')).filter((i) => i.messageId === id)).toHaveLength(130);

    for (const employeeId of employees) {
      const list = await call('GET', withQuery(`${api.orgUrl(org)}/messages`, { employeeId }), { token });
      expect(list.body.items.map((m: { id: string }) => m.id)).toEqual([id]);
    }

    const readAt = new Date(Date.parse(sent.body.sentAt) + 1000).toISOString();
    const first = await write(token, org, 'POST', `/messages/${id}/recipients/${employees[129]}/read`, { readAt });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ messageId: id, employeeId: employees[129], sentAt: sent.body.sentAt, read: true, readAt });
    expectProblem(await write(token, org, 'POST', `/messages/${id}/recipients/${randomUUID()}/read`), 404, 'RESOURCE_NOT_FOUND');
    const last = await call('GET', withQuery(`${api.orgUrl(org)}/messages/${id}/recipients`, { limit: 40, cursor: pages[2]!.body.nextCursor! }), { token });
    expect(last.body.items.at(-1)).toMatchObject({ employeeId: employees[129], read: true, readAt });

    // The audit entry holds ids and counts only.
    const audit = (await auditOf(api, id)).find((a) => a.action === 'message.sent')!;
    expect(audit.after).toEqual({ state: 'SENT', audienceType: 'EVERYONE', recipientCount: 130, attachmentCount: 0 });
    expect(JSON.stringify(audit)).not.toMatch(/Site closed|noon/);
  }, 60_000);

  it(`refuses an audience of more than ${MAX_RECIPIENTS} active employees with 422 MESSAGE_TOO_MANY_RECIPIENTS and maxRecipients, writing nothing`, async () => {
    const { org, token } = await organization(MAX_RECIPIENTS + 1);
    const draft = await everyoneDraft(token, org);
    const id = draft.body.id as string;
    const res = await write(token, org, 'POST', `/messages/${id}/send`, undefined, draft.headers.get('etag')!);
    const problem = expectProblem(res, 422, 'MESSAGE_TOO_MANY_RECIPIENTS');
    expect(problem.maxRecipients).toBe(MAX_RECIPIENTS);
    expect((await call('GET', `${api.orgUrl(org)}/messages/${id}`, { token })).body).toMatchObject({ state: 'DRAFT', version: 1, recipientCount: null });
    expect((await itemsOfType(api.db, 'MessageRecipient')).filter((i) => i.messageId === id)).toEqual([]);
  }, 60_000);
});
