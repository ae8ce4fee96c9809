import { createHash, randomUUID } from 'node:crypto';
import { DOCUMENT_IDS } from '../../services/documents/seed';
import { putEmployee } from '../../services/employees/store';
import { messageKeys } from '../../services/messages/model';
import { MESSAGE_IDS } from '../../services/messages/seed';
import { attachmentResponseSchema, messageResponseSchema, recipientResponseSchema } from '../../services/messages/schemas';
import { countByType, expectParameters, expectPointers, expectProblem, itemsOfType, scanTable, startApi, type ApiFixture, type ApiResponse } from '../support/api';
import { auditOf, keyWith, read, send, sent } from './locations-fixture';

/**
 * Messages through the local gateway on DynamoDB Local and the embedded S3 server: drafts,
 * attachments of the seeded AVAILABLE document, sending to a resolved audience (one recipient
 * item per employee), read reports, retraction, the state refusals, organization isolation,
 * and that neither subject nor body ever reaches the audit trail.
 */
let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const SUBJECT = 'Quarterly safety briefing';
const BODY = 'Confidential: Ada Lindqvist covers the night shift.';

async function draft(audience: Record<string, unknown> = { type: 'EVERYONE' }, over: Record<string, unknown> = {}): Promise<ApiResponse> {
  return sent(api, 'POST', '/messages', { subject: SUBJECT, body: BODY, audience, ...over });
}

const etagOf = (res: ApiResponse) => res.headers.get('etag')!;

async function sendDraft(id: string, etag: string): Promise<ApiResponse> {
  return send(api, 'POST', `/messages/${id}/send`, undefined, { ifMatch: etag });
}

/** A new AVAILABLE document of the demo organization, through an upload session, the presigned PUT and the completion check. */
async function availableDocument(): Promise<{ id: string; etag: string }> {
  const bytes = Buffer.from(`%PDF-1.7\n${randomUUID()}\n%%EOF\n`);
  const session = await sent(api, 'POST', '/documents/upload-sessions', { name: 'Rota.pdf', contentType: 'application/pdf', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  const { 'Content-Length': _length, ...signed } = session.body.upload.headers as Record<string, string>;
  expect((await fetch(session.body.upload.url, { method: 'PUT', headers: signed, body: bytes })).status).toBe(200);
  const done = await sent(api, 'POST', `/documents/upload-sessions/${session.body.id}/complete`, undefined, 200);
  return { id: done.body.document.id, etag: done.headers.get('etag')! };
}

/** An AVAILABLE document, archived (its id). */
async function archivedDocument(): Promise<string> {
  const d = await availableDocument();
  await sent(api, 'POST', `/documents/${d.id}/archive`, undefined, 200, { ifMatch: d.etag });
  return d.id;
}

const recipientItems = async (messageId: string) => (await itemsOfType(api.db, 'MessageRecipient')).filter((i) => i.messageId === messageId);

describe('POST /messages', () => {
  it('creates a DRAFT with Location and ETag; the audit entry names attributes, never subject or body', async () => {
    const res = await draft({ type: 'EMPLOYEES', employeeIds: [api.demo.employees[1], api.demo.employees[0], api.demo.employees[1]] });
    expect(messageResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.body).toMatchObject({ subject: SUBJECT, body: BODY, state: 'DRAFT', audience: { type: 'EMPLOYEES', employeeIds: [api.demo.employees[1], api.demo.employees[0]] }, attachments: [], recipientCount: null, sentAt: null, version: 1 });
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/messages/${res.body.id}`);
    expect(etagOf(res)).toBe(`"message:${res.body.id}:v1"`);
    const [audit] = await auditOf(api, res.body.id);
    expect(audit).toMatchObject({ action: 'message.created', requestId: res.requestId, changedAttributes: ['audience', 'body', 'subject'], after: { state: 'DRAFT', audienceType: 'EMPLOYEES' } });
    expect(JSON.stringify(audit)).not.toMatch(/safety|Confidential|Lindqvist/);
  });

  it("refuses unknown and other organization's employees and locations with pointers, writing nothing", async () => {
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/messages', { subject: 'x', body: 'y', audience: { type: 'EMPLOYEES', employeeIds: [api.demo.employees[0], api.demo.otherOrganizationEmployees[0]] } }), ['/audience/employeeIds/1']);
    expectPointers(await send(api, 'POST', '/messages', { subject: 'x', body: 'y', audience: { type: 'LOCATION', locationId: api.demo.otherOrganizationLocations[0] } }), ['/audience/locationId']);
    expectPointers(await send(api, 'POST', '/messages', { subject: ' ', body: '', audience: { type: 'EMPLOYEES', employeeIds: [] } }), ['/subject', '/body', '/audience/employeeIds']);
    expectPointers(await send(api, 'POST', '/messages', { subject: 'x', body: 'y', audience: { type: 'TEAM' } }), ['/audience/type']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it("refuses an archived location's team as audience (422 at /audience/locationId) on create and change, writing nothing; restored, it is accepted", async () => {
    const location = await sent(api, 'POST', '/locations', { name: `Closed site ${randomUUID().slice(0, 8)}` }, 201);
    const archived = await sent(api, 'DELETE', `/locations/${location.body.id}`);
    const audience = { type: 'LOCATION', locationId: location.body.id };
    const detail = `Location ${location.body.id} is archived: a message cannot be addressed to an archived location's team; restore it first (PATCH archived: false).`;
    const d = await draft();
    const before = await countByType(api.db);
    const created = await send(api, 'POST', '/messages', { subject: 'x', body: 'y', audience });
    expectPointers(created, ['/audience/locationId']);
    expect(created.body.errors).toEqual([{ pointer: '/audience/locationId', detail }]);
    const changed = await send(api, 'PATCH', `/messages/${d.body.id}`, { audience }, { ifMatch: etagOf(d) });
    expect(changed.body.errors).toEqual([{ pointer: '/audience/locationId', detail }]);
    expect(await countByType(api.db)).toEqual(before);

    await sent(api, 'PATCH', `/locations/${location.body.id}`, { archived: false }, 200, { ifMatch: archived.headers.get('etag')! });
    expect((await sent(api, 'PATCH', `/messages/${d.body.id}`, { audience }, 200, { ifMatch: etagOf(d) })).body).toMatchObject({ audience, version: 2 });
  });

  it('needs messages:write and an Idempotency-Key', async () => {
    const token = await keyWith(api, ['messages:read']);
    expectProblem(await send(api, 'POST', '/messages', { subject: 'x', body: 'y', audience: { type: 'EVERYONE' } }, { token }), 403, 'SCOPE_REQUIRED');
    expectProblem(await send(api, 'POST', '/messages', { subject: 'x', body: 'y', audience: { type: 'EVERYONE' } }, { idempotencyKey: undefined }), 400, 'IDEMPOTENCY_KEY_REQUIRED');
  });
});

describe('PATCH /messages/{id}', () => {
  it('changes a draft under If-Match (428 without, 412 stale) and audits only attribute names', async () => {
    const d = await draft();
    expectProblem(await send(api, 'PATCH', `/messages/${d.body.id}`, { subject: 'New' }), 428, 'ETAG_REQUIRED');
    expectProblem(await send(api, 'PATCH', `/messages/${d.body.id}`, { subject: 'New' }, { ifMatch: `"message:${d.body.id}:v9"` }), 412, 'ETAG_MISMATCH');
    const res = await sent(api, 'PATCH', `/messages/${d.body.id}`, { subject: 'Changed subject', audience: { type: 'LOCATION', locationId: api.demo.locations[0] } }, 200, { ifMatch: etagOf(d) });
    expect(res.body).toMatchObject({ subject: 'Changed subject', body: BODY, audience: { type: 'LOCATION', locationId: api.demo.locations[0] }, version: 2 });
    expect(etagOf(res)).toBe(`"message:${d.body.id}:v2"`);
    const audit = (await auditOf(api, d.body.id)).at(-1)!;
    expect(audit).toMatchObject({ action: 'message.updated', changedAttributes: ['audience', 'subject'], references: { locationId: api.demo.locations[0] } });
    expect(JSON.stringify(audit)).not.toMatch(/Changed subject/);
  });
});

describe('attachments', () => {
  it('pages attachments by limit and cursor, in the order attached; a cursor of another message is 422', async () => {
    const d = await draft();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const doc = await availableDocument();
      await sent(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: doc.id }, 201);
      ids.push(doc.id);
    }
    const first = await read(api, `/messages/${d.body.id}/attachments?limit=2`);
    expect(first.body.items.map((a: { documentId: string }) => a.documentId)).toEqual(ids.slice(0, 2));
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await read(api, `/messages/${d.body.id}/attachments?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body).toMatchObject({ items: [expect.objectContaining({ documentId: ids[2] })], nextCursor: null });
    expectParameters(await read(api, `/messages/${d.body.id}/attachments?cursor=xyz`), ['cursor']);
    const other = await draft();
    expectParameters(await read(api, `/messages/${other.body.id}/attachments?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`), ['cursor']);
    expectParameters(await read(api, `/messages/${d.body.id}/attachments?limit=0`), ['limit']);
  });

  it('attaches the AVAILABLE demo document, lists it with the document, and removes it; each a new draft version', async () => {
    const d = await draft();
    const res = await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: DOCUMENT_IDS.welcome });
    expect(res.status).toBe(201);
    expect(attachmentResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.body).toMatchObject({ messageId: d.body.id, documentId: DOCUMENT_IDS.welcome, document: { id: DOCUMENT_IDS.welcome, name: 'Welcome pack.pdf', state: 'AVAILABLE' } });
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/messages/${d.body.id}/attachments/${DOCUMENT_IDS.welcome}`);
    expect(etagOf(res)).toBe(`"message:${d.body.id}:v2"`);
    // Attaching again changes nothing.
    const again = await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: DOCUMENT_IDS.welcome });
    expect(again.status).toBe(200);
    expect(etagOf(again)).toBe(`"message:${d.body.id}:v2"`);
    const list = await read(api, `/messages/${d.body.id}/attachments`);
    expect(list.body).toEqual({ items: [res.body], nextCursor: null });
    // The Location of the attach names a resource that answers.
    const one = await read(api, `/messages/${d.body.id}/attachments/${DOCUMENT_IDS.welcome}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);
    expect(etagOf(one)).toBe(`"message:${d.body.id}:v2"`);
    expect((await read(api, `/messages/${d.body.id}`)).body.attachments).toEqual([{ documentId: DOCUMENT_IDS.welcome, attachedAt: res.body.attachedAt }]);

    const removed = await send(api, 'DELETE', `/messages/${d.body.id}/attachments/${DOCUMENT_IDS.welcome}`);
    expect(removed.status).toBe(204);
    expect(etagOf(removed)).toBe(`"message:${d.body.id}:v3"`);
    expectProblem(await send(api, 'DELETE', `/messages/${d.body.id}/attachments/${DOCUMENT_IDS.welcome}`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await read(api, `/messages/${d.body.id}/attachments/${DOCUMENT_IDS.welcome}`), 404, 'RESOURCE_NOT_FOUND');
    expect((await auditOf(api, d.body.id)).map((a) => [a.action, a.references?.documentId])).toEqual([
      ['message.created', undefined],
      ['message.attachment_added', DOCUMENT_IDS.welcome],
      ['message.attachment_removed', DOCUMENT_IDS.welcome],
    ]);
  });

  it("refuses another organization's document (422) and a PENDING one (409 DOCUMENT_NOT_AVAILABLE), writing nothing", async () => {
    const d = await draft();
    const bytes = Buffer.from('%PDF-1.7\npending\n%%EOF\n');
    const session = await sent(api, 'POST', '/documents/upload-sessions', { name: 'Pending.pdf', contentType: 'application/pdf', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: DOCUMENT_IDS.other }), ['/documentId']);
    expectPointers(await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: randomUUID() }), ['/documentId']);
    expectProblem(await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: session.body.documentId }), 409, 'DOCUMENT_NOT_AVAILABLE');
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `/messages/${d.body.id}`)).body).toMatchObject({ version: 1, attachments: [] });
  });
});

describe('the reference of an attach', () => {
  it('declares both answers the route gives: 201 for a new attachment, 200 for one already there', async () => {
    const reference = (await (await fetch(`${api.gateway.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }> }>> };
    const responses = reference.paths['/v1/organizations/{organizationId}/messages/{messageId}/attachments'].post.responses;
    const d = await draft();
    const first = await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: DOCUMENT_IDS.welcome });
    const again = await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: DOCUMENT_IDS.welcome });
    expect([first.status, again.status]).toEqual([201, 200]);
    for (const status of ['200', '201']) {
      expect(responses[status]?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/MessageAttachment' });
      expect(Object.keys(responses[status]?.headers ?? {})).toEqual(expect.arrayContaining(['ETag', 'Location']));
    }
  });
});

describe('If-Match on attachments', () => {
  it("honours the message's ETag on attach and detach when sent: a stale one is 412 and writes nothing, the current one applies", async () => {
    const d = await draft();
    const changed = await sent(api, 'PATCH', `/messages/${d.body.id}`, { subject: 'Changed' }, 200, { ifMatch: etagOf(d) });
    const stale = etagOf(d);
    const path = `/messages/${d.body.id}/attachments`;

    let before = await countByType(api.db);
    expectProblem(await send(api, 'POST', path, { documentId: DOCUMENT_IDS.welcome }, { ifMatch: stale }), 412, 'ETAG_MISMATCH');
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `/messages/${d.body.id}`)).body).toMatchObject({ version: 2, attachments: [] });

    const attached = await send(api, 'POST', path, { documentId: DOCUMENT_IDS.welcome }, { ifMatch: etagOf(changed) });
    expect(attached.status).toBe(201);
    expect(etagOf(attached)).toBe(`"message:${d.body.id}:v3"`);
    // Attaching it again under the ETag it had before is stale too.
    expectProblem(await send(api, 'POST', path, { documentId: DOCUMENT_IDS.welcome }, { ifMatch: etagOf(changed) }), 412, 'ETAG_MISMATCH');

    before = await countByType(api.db);
    expectProblem(await send(api, 'DELETE', `${path}/${DOCUMENT_IDS.welcome}`, undefined, { ifMatch: etagOf(changed) }), 412, 'ETAG_MISMATCH');
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `/messages/${d.body.id}`)).body).toMatchObject({ version: 3, attachments: [{ documentId: DOCUMENT_IDS.welcome }] });

    const removed = await send(api, 'DELETE', `${path}/${DOCUMENT_IDS.welcome}`, undefined, { ifMatch: etagOf(attached) });
    expect(removed.status).toBe(204);
    expect(etagOf(removed)).toBe(`"message:${d.body.id}:v4"`);
    // An attachment that is not there is 404, with or without If-Match.
    expectProblem(await send(api, 'DELETE', `${path}/${DOCUMENT_IDS.welcome}`, undefined, { ifMatch: etagOf(removed) }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('attachments and documents:read', () => {
  it('shows the attached document only to a key holding documents:read; messages scopes alone see the attachment, not the document', async () => {
    const d = await draft();
    const writer = await keyWith(api, ['messages:write']);
    const res = await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: DOCUMENT_IDS.welcome }, { token: writer });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ messageId: d.body.id, documentId: DOCUMENT_IDS.welcome, attachedAt: expect.any(String) });
    expect(attachmentResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(etagOf(res)).toBe(`"message:${d.body.id}:v2"`);
    const again = await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: DOCUMENT_IDS.welcome }, { token: writer });
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: res.body });

    const reader = await keyWith(api, ['messages:read']);
    const list = await read(api, `/messages/${d.body.id}/attachments`, reader);
    expect(list.body).toEqual({ items: [res.body], nextCursor: null });
    const one = await read(api, `/messages/${d.body.id}/attachments/${DOCUMENT_IDS.welcome}`, reader);
    expect(one.body).toEqual(res.body);
    for (const r of [res, again, list, one]) expect(r.text).not.toMatch(/Welcome pack|sha256|AVAILABLE|owner/);

    const both = await keyWith(api, ['messages:read', 'documents:read']);
    const full = await read(api, `/messages/${d.body.id}/attachments`, both);
    expect(full.body.items).toEqual([{ ...res.body, document: (await read(api, `/documents/${DOCUMENT_IDS.welcome}`, both)).body }]);
    expect(attachmentResponseSchema.strict().safeParse(full.body.items[0]).error).toBeUndefined();
  });
});

describe('archived documents', () => {
  it('refuses to attach an archived document (422 at /documentId), writing nothing; an attachment made before the archive stays', async () => {
    const d = await draft();
    const archived = await archivedDocument();
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: archived }), ['/documentId']);
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `/messages/${d.body.id}`)).body).toMatchObject({ version: 1, attachments: [] });

    const doc = await availableDocument();
    const attached = await sent(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: doc.id });
    await sent(api, 'POST', `/documents/${doc.id}/archive`, undefined, 200, { ifMatch: doc.etag });
    const again = await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: doc.id });
    expect(again.status).toBe(200);
    expect(etagOf(again)).toBe(etagOf(attached));
    expect((await read(api, `/messages/${d.body.id}/attachments`)).body.items.map((a: { documentId: string }) => a.documentId)).toEqual([doc.id]);
  });
});

describe('POST /messages/{id}/send', () => {
  it("resolves a location's team (published shifts near now) to recipient items, in one change with the SENT message", async () => {
    const d = await draft({ type: 'LOCATION', locationId: api.demo.locations[0] });
    await sent(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: DOCUMENT_IDS.welcome });
    const current = await read(api, `/messages/${d.body.id}`);
    const res = await sendDraft(d.body.id, etagOf(current));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'SENT', recipientCount: 1, sentAt: expect.any(String), version: 3 });
    expect(etagOf(res)).toBe(`"message:${d.body.id}:v3"`);
    // Employee 0 has the published shifts at location 0; nobody else does.
    const recipients = await recipientItems(d.body.id);
    expect(recipients.map((r) => r.employeeId)).toEqual([api.demo.employees[0]]);
    expect(recipients[0]).toMatchObject({ PK: messageKeys.message(api.demo.organizationId, d.body.id).PK, sentAt: res.body.sentAt, readAt: null });
    const audit = (await auditOf(api, d.body.id)).at(-1)!;
    expect(audit).toMatchObject({ action: 'message.sent', before: { state: 'DRAFT' }, after: { state: 'SENT', audienceType: 'LOCATION', recipientCount: 1, attachmentCount: 1 }, references: { locationId: api.demo.locations[0] } });
    expect(JSON.stringify(audit)).not.toMatch(/safety|Confidential/);
    const list = await read(api, `/messages/${d.body.id}/recipients`);
    expect(list.body).toEqual({ items: [{ messageId: d.body.id, employeeId: api.demo.employees[0], sentAt: res.body.sentAt, read: false, readAt: null }], nextCursor: null });
  });

  it('sends to everyone active, and a sent message is immutable (409 MESSAGE_SENT for change, send, attach, detach)', async () => {
    const d = await draft();
    const res = await sendDraft(d.body.id, etagOf(d));
    expect(res.body.recipientCount).toBe(api.demo.employees.length);
    expect((await recipientItems(d.body.id)).map((r) => r.employeeId).sort()).toEqual([...api.demo.employees].sort());
    const before = await countByType(api.db);
    expectProblem(await send(api, 'PATCH', `/messages/${d.body.id}`, { subject: 'Late' }, { ifMatch: etagOf(res) }), 409, 'MESSAGE_SENT');
    expectProblem(await sendDraft(d.body.id, etagOf(res)), 409, 'MESSAGE_SENT');
    expectProblem(await send(api, 'POST', `/messages/${d.body.id}/attachments`, { documentId: DOCUMENT_IDS.welcome }), 409, 'MESSAGE_SENT');
    expect(await countByType(api.db)).toEqual(before);
  });

  it('refuses an audience of nobody active (422 MESSAGE_NO_RECIPIENTS) and a stale ETag (412), writing nothing', async () => {
    const inactive = randomUUID();
    const at = new Date().toISOString();
    await putEmployee(api.db, { id: inactive, organizationId: api.demo.organizationId, userName: `${inactive}@acme.example`, emails: [], active: false, createdAt: at, updatedAt: at, version: 1 });
    const d = await draft({ type: 'EMPLOYEES', employeeIds: [inactive] });
    const before = await countByType(api.db);
    expectProblem(await sendDraft(d.body.id, etagOf(d)), 422, 'MESSAGE_NO_RECIPIENTS');
    expectProblem(await sendDraft(d.body.id, `"message:${d.body.id}:v2"`), 412, 'ETAG_MISMATCH');
    expectProblem(await send(api, 'POST', `/messages/${d.body.id}/send`), 428, 'ETAG_REQUIRED');
    expect(await countByType(api.db)).toEqual(before);
  });
});

describe('read reports and retraction', () => {
  it('records a read once (idempotent), refuses non-recipients, drafts and future times, and lists the read state', async () => {
    const d = await draft({ type: 'EMPLOYEES', employeeIds: [api.demo.employees[0], api.demo.employees[1]] });
    const path = (employeeId: string, id = d.body.id) => `/messages/${id}/recipients/${employeeId}/read`;
    expectProblem(await send(api, 'POST', path(api.demo.employees[0])), 404, 'RESOURCE_NOT_FOUND');
    const s = await sendDraft(d.body.id, etagOf(d));
    const readAt = new Date(Date.parse(s.body.sentAt) + 1000).toISOString();
    const first = await send(api, 'POST', path(api.demo.employees[0]), { readAt });
    expect(first.status).toBe(200);
    expect(recipientResponseSchema.strict().safeParse(first.body).error).toBeUndefined();
    expect(first.body).toEqual({ messageId: d.body.id, employeeId: api.demo.employees[0], sentAt: s.body.sentAt, read: true, readAt });
    const before = await countByType(api.db);
    const again = await send(api, 'POST', path(api.demo.employees[0]));
    expect(again.body).toEqual(first.body);
    expect(await countByType(api.db)).toEqual({ ...before, IdempotencyRecord: before.IdempotencyRecord + 1 });
    expectProblem(await send(api, 'POST', path(api.demo.employees[2])), 404, 'RESOURCE_NOT_FOUND');
    expectPointers(await send(api, 'POST', path(api.demo.employees[1]), { readAt: '2099-01-01T00:00:00Z' }), ['/readAt']);
    expectPointers(await send(api, 'POST', path(api.demo.employees[1]), { readAt: '2020-01-01T00:00:00Z' }), ['/readAt']);
    const list = await read(api, `/messages/${d.body.id}/recipients`);
    expect(list.body.items.map((r: { employeeId: string; read: boolean }) => [r.employeeId, r.read])).toEqual(
      [
        [api.demo.employees[0], true],
        [api.demo.employees[1], false],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect((await auditOf(api, d.body.id)).filter((a) => a.action === 'message.read')).toEqual([expect.objectContaining({ references: { employeeId: api.demo.employees[0] } })]);
  });

  it('retracts a sent message: kept as RETRACTED with its recipients; no new reads, no second retraction', async () => {
    const d = await draft({ type: 'EMPLOYEES', employeeIds: [api.demo.employees[0], api.demo.employees[1]] });
    const s = await sendDraft(d.body.id, etagOf(d));
    await sent(api, 'POST', `/messages/${d.body.id}/recipients/${api.demo.employees[0]}/read`, undefined, 200);
    const res = await send(api, 'POST', `/messages/${d.body.id}/retract`, undefined, { ifMatch: etagOf(s) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'RETRACTED', retractedAt: expect.any(String), sentAt: s.body.sentAt, recipientCount: 2, version: 3 });
    expectProblem(await send(api, 'POST', `/messages/${d.body.id}/retract`, undefined, { ifMatch: etagOf(res) }), 409, 'MESSAGE_RETRACTED');
    expectProblem(await send(api, 'POST', `/messages/${d.body.id}/recipients/${api.demo.employees[1]}/read`), 409, 'MESSAGE_RETRACTED');
    // A read reported before the retraction still answers as it is.
    expect((await send(api, 'POST', `/messages/${d.body.id}/recipients/${api.demo.employees[0]}/read`)).status).toBe(200);
    expect((await read(api, `/messages/${d.body.id}/recipients`)).body.items).toHaveLength(2);
    expect((await auditOf(api, d.body.id)).at(-1)).toMatchObject({ action: 'message.retracted', before: { state: 'SENT' }, after: { state: 'RETRACTED' } });
    const stored = (await scanTable(api.db)).find((i) => i.PK === messageKeys.message(api.demo.organizationId, d.body.id).PK && i.SK === 'MSG');
    expect(stored).toMatchObject({ state: 'RETRACTED', GSI2PK: messageKeys.inState(api.demo.organizationId, 'RETRACTED') });
  });

  it('discards a draft by retracting it: RETRACTED, never sent, no recipients', async () => {
    const d = await draft();
    const res = await sent(api, 'POST', `/messages/${d.body.id}/retract`, undefined, 200, { ifMatch: etagOf(d) });
    expect(res.body).toMatchObject({ state: 'RETRACTED', sentAt: null, recipientCount: null });
    expectProblem(await sendDraft(d.body.id, etagOf(res)), 409, 'MESSAGE_RETRACTED');
    expect(await recipientItems(d.body.id)).toEqual([]);
  });
});

describe('GET /messages', () => {
  it('filters by state and by recipient employee, and pages with a cursor', async () => {
    const sentList = await read(api, '/messages?state=SENT&limit=200');
    expect(sentList.body.items.length).toBeGreaterThan(0);
    expect(sentList.body.items.every((m: { state: string }) => m.state === 'SENT')).toBe(true);
    expect(sentList.body.items.map((m: { id: string }) => m.id)).toContain(MESSAGE_IDS.sent);
    const received = await read(api, `/messages?employeeId=${api.demo.employees[0]}&limit=200`);
    expect(received.body.items.map((m: { id: string }) => m.id)).toContain(MESSAGE_IDS.sent);
    expect(received.body.items.every((m: { state: string }) => m.state !== 'DRAFT')).toBe(true);
    const nobody = await read(api, `/messages?employeeId=${api.demo.employees[2]}&state=RETRACTED`);
    expect(nobody.body).toEqual({ items: [], nextCursor: null });
    const first = await read(api, '/messages?limit=1');
    expect(first.body.items).toHaveLength(1);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await read(api, `/messages?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
    expectProblem(await read(api, `/messages?state=SENT&cursor=${encodeURIComponent(first.body.nextCursor)}`), 422, 'VALIDATION_ERROR');
  });

  it("answers 404 for the other organization's message on every route, with none of its data", async () => {
    const id = MESSAGE_IDS.otherDraft;
    for (const res of [
      await read(api, `/messages/${id}`),
      await read(api, `/messages/${id}/recipients`),
      await read(api, `/messages/${id}/attachments`),
      await send(api, 'POST', `/messages/${id}/attachments`, { documentId: DOCUMENT_IDS.welcome }),
      await send(api, 'POST', `/messages/${id}/send`, undefined, { ifMatch: `"message:${id}:v1"` }),
      await send(api, 'POST', `/messages/${id}/recipients/${api.demo.employees[0]}/read`),
    ]) {
      expectProblem(res, 404, 'RESOURCE_NOT_FOUND');
      expect(res.text).not.toMatch(/Globex/);
    }
  });
});
