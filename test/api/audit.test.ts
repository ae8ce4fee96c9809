import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { auditResponseSchema } from '../../services/audit/schemas';
import { auditItem } from '../../services/audit/model';
import { call, expectParameters, expectProblem, itemsOfType, keyIdOf, startApi, walkPages, withQuery, type ApiFixture, type ApiResponse } from '../support/api';
import { addEmployee, correctEntry, createdEntry, manualBody, voidEntry } from './timesheets-fixture';

/**
 * GET /audit: allowlisted content only (organization-api.md, Audit entry; decisions.md, Audit
 * content), newest first, cursor paged. The trail is written by the timesheet writes here.
 */
let api: ApiFixture;
let auditUrl: string;
const list = (query: Record<string, string | number | undefined> = {}, token = api.demo.keys.admin) => call('GET', withQuery(auditUrl, query), { token });

const ENTRY_MEMBERS = ['id', 'occurredAt', 'actor', 'action', 'entity', 'references', 'reason', 'before', 'after', 'changedAttributes', 'overlap', 'staleExportManifestIds', 'requestId'];
const SNAPSHOT_MEMBERS = ['startedAt', 'endedAt', 'breakMinutes', 'state', 'revision', 'contextKind', 'locationId'];
/** The demo seed's commerce documents: amounts, states and dates only, never free text. */
const COMMERCE_MEMBERS = ['state', 'revision', 'currency', 'lineCount', 'subtotal', 'taxTotal', 'total', 'number', 'dueDate', 'amountPaid', 'balance', 'amount', 'paidOn', 'method'];
/** The snapshot allowlist of each entity type the demo trail holds (the seed writes candidates too). */
const SNAPSHOTS_OF: Readonly<Record<string, readonly string[]>> = { time_entry: SNAPSHOT_MEMBERS, candidate: ['stage', 'erased', 'messagesErased'], candidate_message: ['direction', 'channel'], quote: COMMERCE_MEMBERS, invoice: COMMERCE_MEMBERS, payment: COMMERCE_MEMBERS, shift: ['state', 'employeeId', 'locationId', 'startsAt', 'endsAt', 'breakMinutes', 'taskCount', 'version'], document: ['state', 'contentType', 'size', 'ownerType', 'rejectionReason', 'expiresAt'], message: ['state', 'audienceType', 'audienceSize', 'recipientCount', 'attachmentCount'] };
const LABEL = 'Van 9, Quai de la Gare';
const COORDINATES = [48.8311231, 2.3768719];

/** The writes of this file, in order: [what, response]. */
const writes: [string, ApiResponse][] = [];
let entryId: string;

beforeAll(async () => {
  api = await startApi();
  auditUrl = `${api.orgUrl()}/audit`;
  const employeeId = await addEmployee(api);
  const body = (day: string, over: Record<string, unknown> = {}) =>
    manualBody(api, { startedAt: `2025-05-${day}T08:00:00Z`, endedAt: `2025-05-${day}T12:00:00Z` }, { employeeId, ...over });

  const created = await createdEntry(api, body('01'));
  entryId = created.body.id;
  writes.push(['created', created]);
  const corrected = await correctEntry(api, entryId, created.headers.get('etag')!, { breakMinutes: 10, reason: 'Short break' });
  writes.push(['corrected', corrected]);
  writes.push(['voided', await voidEntry(api, entryId, corrected.headers.get('etag')!, { reason: 'Duplicate of a scan' })]);
  writes.push(['adHoc', await createdEntry(api, body('02', { context: { kind: 'VEHICLE_AD_HOC', addressLabel: LABEL, latitude: COORDINATES[0], longitude: COORDINATES[1] } }))]);
  writes.push(['otherKey', await createdEntry(api, body('03'), { token: api.demo.keys.timesheetsNoWorkEvents })]);
  await createdEntry(api, body('04'));
  writes.push(['override', await createdEntry(api, body('04', { overlapOverride: true, overlapReason: 'Two sites the same morning' }))]);
});
afterAll(() => api?.close());
afterEach(() => jest.restoreAllMocks());

const written = (what: string) => writes.find(([w]) => w === what)![1];

describe('GET /audit content', () => {
  it('lists the trail newest first, one entry per write, under the request ID of the write', async () => {
    const res = await list({ limit: 200 });
    expect(res.status).toBe(200);
    expect(res.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const occurred = res.body.items.map((a: { occurredAt: string }) => a.occurredAt);
    expect(occurred).toEqual([...occurred].sort().reverse());
    const requestIds = res.body.items.map((a: { requestId: string }) => a.requestId);
    const ours = writes.map(([, r]) => r.requestId!);
    expect(requestIds.filter((id: string) => ours.includes(id))).toEqual([...ours].reverse());
  });

  it('returns only allowlisted members, and the actor by its key id and label (never the secret)', async () => {
    const res = await list({ limit: 200 });
    for (const item of res.body.items) {
      expect(ENTRY_MEMBERS).toEqual(expect.arrayContaining(Object.keys(item)));
      expect(Object.keys(item.actor).sort()).toEqual(item.actor.type === 'API_KEY' ? ['keyId', 'label', 'type'] : ['label', 'type']);
      for (const snapshot of [item.before, item.after].filter(Boolean)) expect(SNAPSHOTS_OF[item.entity.type]).toEqual(expect.arrayContaining(Object.keys(snapshot)));
      expect(Array.isArray(item.staleExportManifestIds)).toBe(true);
      expect(auditResponseSchema.strict().safeParse(item).error).toBeUndefined();
    }
    for (const token of Object.values(api.demo.keys)) expect(res.text).not.toContain(token.split('.')[1]);
    expect(res.text).not.toMatch(/organizationId|"PK"|"SK"|GSI|itemType/);
  });

  it('records create, correction and void with actor, reason and safe before/after fields', async () => {
    const res = await list({ entityType: 'time_entry', entityId: entryId });
    expect(res.body.items.map((a: { action: string }) => a.action)).toEqual(['time_entry.voided', 'time_entry.corrected', 'time_entry.created']);
    const [voided, corrected, created] = res.body.items;
    const actor = { type: 'API_KEY', keyId: keyIdOf(api.demo.keys.admin), label: 'Demo key: admin' };
    expect(created).toMatchObject({ actor, entity: { type: 'time_entry', id: entryId }, reason: 'Forgot to scan at the depot', before: null, requestId: written('created').requestId });
    expect(created.after).toEqual({
      startedAt: '2025-05-01T08:00:00.000Z',
      endedAt: '2025-05-01T12:00:00.000Z',
      breakMinutes: 30,
      state: 'CLOSED',
      revision: 1,
      contextKind: 'REGISTERED_LOCATION',
      locationId: api.demo.locations[0],
    });
    expect(corrected).toMatchObject({ actor, reason: 'Short break', before: { breakMinutes: 30, revision: 1 }, after: { breakMinutes: 10, revision: 2 }, requestId: written('corrected').requestId });
    expect(voided).toMatchObject({ actor, reason: 'Duplicate of a scan', before: { state: 'CLOSED' }, after: { state: 'VOIDED', revision: 3 }, requestId: written('voided').requestId, staleExportManifestIds: [] });
    expect(created.references).toMatchObject({ employeeId: expect.any(String) });
  });

  it('names the key that wrote, by its key id and label', async () => {
    const res = await list({ entityType: 'time_entry', entityId: written('otherKey').body.id });
    expect(res.body.items).toEqual([expect.objectContaining({ actor: { type: 'API_KEY', keyId: keyIdOf(api.demo.keys.timesheetsNoWorkEvents), label: 'Demo key: timesheetsNoWorkEvents' } })]);
  });

  it('records an overlap override with its reason and the overlapped ids', async () => {
    const res = await list({ entityType: 'time_entry', entityId: written('override').body.id });
    expect(res.body.items[0].overlap).toEqual({ override: true, reason: 'Two sites the same morning', overlappedEntryIds: [expect.any(String)] });
    const plain = await list({ entityType: 'time_entry', entityId: entryId });
    expect(plain.body.items[2].overlap).toBeNull();
  });

  it('never contains the typed address label or coordinates, in the response or the stored items', async () => {
    const res = await list({ limit: 200 });
    const adHoc = res.body.items.find((a: { requestId: string }) => a.requestId === written('adHoc').requestId);
    expect(adHoc.after).toMatchObject({ contextKind: 'VEHICLE_AD_HOC', locationId: null });
    const stored = JSON.stringify(await itemsOfType(api.db, 'AuditEntry'));
    for (const text of [res.text, stored]) {
      expect(text).not.toContain('Quai de la Gare');
      for (const c of COORDINATES) expect(text).not.toContain(String(c).slice(0, 7));
    }
  });

  it('shows the evidence channel as a SYSTEM actor for scanned entries', async () => {
    const res = await list({ limit: 200 });
    const scans = res.body.items.filter((a: { action: string }) => a.action.startsWith('time_entry.scan_'));
    expect(scans.length).toBeGreaterThanOrEqual(3);
    for (const a of scans) expect(a.actor).toEqual({ type: 'SYSTEM', label: 'Evidence ingest' });
  });
});

describe('GET /audit paging', () => {
  beforeAll(async () => {
    // 60 older entries, written directly: enough for a default page and a walk.
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const occurredAt = new Date(Date.UTC(2021, 0, 1, 0, i)).toISOString();
        const item = auditItem({
          id: randomUUID(),
          organizationId: api.demo.organizationId,
          occurredAt,
          actor: { type: 'API_KEY', keyId: 'bulkkeyid', label: 'Bulk' },
          action: 'time_entry.created',
          entity: { type: 'time_entry', id: randomUUID() },
          reason: `bulk ${i}`,
          requestId: randomUUID(),
        }).op as { Put: { Item: Record<string, unknown> } };
        return api.db.doc.send(new PutCommand({ TableName: api.db.tableName, Item: item.Put.Item }));
      }),
    );
  });

  it('returns 50 entries by default with a cursor, and up to 200', async () => {
    const first = await list();
    expect(first.body.items).toHaveLength(50);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const all = await list({ limit: 200 });
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.items.length).toBeGreaterThan(60);
  });

  it('walks every entry once, newest first', async () => {
    const all = await list({ limit: 200 });
    const pages = await walkPages(withQuery(auditUrl, { limit: 9 }), api.demo.keys.admin);
    expect(pages).toHaveLength(Math.ceil(all.body.items.length / 9));
    expect(pages.flatMap((p) => p.body.items.map((a: { id: string }) => a.id))).toEqual(all.body.items.map((a: { id: string }) => a.id));
  });

  it.each([['0'], ['201'], ['ten']])('returns 422 for limit=%s', async (limit) => {
    expectParameters(await call('GET', `${auditUrl}?limit=${limit}`, { token: api.demo.keys.admin }), ['limit']);
  });

  it('returns 422 for an altered cursor, a cursor of another query and one of another organization', async () => {
    const cursor: string = (await list({ limit: 3 })).body.nextCursor;
    const altered = `${cursor.slice(0, -4)}${cursor.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    expectParameters(await list({ limit: 3, cursor: altered }), ['cursor']);
    expectParameters(await list({ limit: 4, cursor }), ['cursor']);
    const theirs = await call('GET', withQuery(`${api.orgUrl(api.demo.otherOrganizationId)}/audit`, { limit: 1 }), { token: api.demo.keys.otherOrganization });
    expect(theirs.body.nextCursor).toEqual(expect.any(String));
    expectParameters(await list({ limit: 1, cursor: theirs.body.nextCursor }), ['cursor']);
  });

  it('returns 422 for an incomplete entity filter or an unknown parameter', async () => {
    expectParameters(await list({ entityType: 'time_entry' }), ['entityId']);
    expectParameters(await list({ entityId: entryId }), ['entityType']);
    expectParameters(await list({ entityType: 'time_entry', entityId: 'x' }), ['entityId']);
    expectParameters(await list({ actor: 'x' }), ['actor']);
  });

  it('serves the trail with Queries only, never a Scan', async () => {
    const send = jest.spyOn(DynamoDBDocumentClient.prototype, 'send');
    await list();
    await list({ entityType: 'time_entry', entityId: entryId });
    const commands = send.mock.calls.map(([command]) => (command as object).constructor.name);
    expect(commands).toContain('QueryCommand');
    expect(commands).not.toContain('ScanCommand');
  });
});

describe('access to the audit trail', () => {
  it('returns 403 SCOPE_REQUIRED to a key without audit:read and 200 to a read-only key', async () => {
    expectProblem(await list({}, api.demo.keys.timesheetsNoWorkEvents), 403, 'SCOPE_REQUIRED');
    expect((await list({}, api.demo.keys.readOnly)).status).toBe(200);
  });

  it('keeps organizations apart', async () => {
    expectProblem(await list({}, api.demo.keys.otherOrganization), 403, 'ACCESS_DENIED');
    const theirs = await call('GET', withQuery(`${api.orgUrl(api.demo.otherOrganizationId)}/audit`, { limit: 200 }), { token: api.demo.keys.otherOrganization });
    expect(theirs.status).toBe(200);
    const ourRequestIds = writes.map(([, r]) => r.requestId);
    expect(theirs.body.items.filter((a: { requestId: string }) => ourRequestIds.includes(a.requestId))).toEqual([]);
    const ours = await list({ limit: 200 });
    const theirEntities = theirs.body.items.map((a: { entity: { id: string } }) => a.entity.id);
    expect(ours.body.items.filter((a: { entity: { id: string } }) => theirEntities.includes(a.entity.id))).toEqual([]);
  });
});
