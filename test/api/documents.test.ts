import { createHash, randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { linkDocument, openUpload, type DocumentPorts } from '../../services/documents/domain';
import { documentKeys, objectKeys } from '../../services/documents/model';
import { completedUploadResponseSchema, documentResponseSchema, uploadSessionResponseSchema } from '../../services/documents/schemas';
import { documentsStore } from '../../services/documents/store';
import { documentObjects, documentPolicy } from '../../services/documents/store-objects';
import { BUCKET_ENV, headObject } from '../../services/shared/aws/s3';
import { inUnitOfWork, TransactionUnit, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { ConcurrentChangeError } from '../../services/shared/domain/conflict';
import { call, countByType, expectParameters, expectPointers, expectProblem, itemsOfType, scanTable, startApi, type ApiFixture, type ApiResponse } from '../support/api';
import { archivedAfterFirstRead, auditOf, createLocation, demoActor, keyWith, read, send, sent } from './locations-fixture';

/** This file's documents bucket (test/support/table.ts makes one per file). */
const documentsBucket = (): string => process.env[BUCKET_ENV.documents]!;

/**
 * Documents on the embedded S3 server (no mock): upload sessions whose presigned PUT carries
 * the promised expiry, type, size and checksum; real uploads; the completion check (a
 * mismatch ends REJECTED, never AVAILABLE); refused completions; download sessions;
 * location links; organization isolation.
 */
let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const sha256Hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const pdf = (text: string) => Buffer.from(`%PDF-1.7\n${text}\n%%EOF\n`);

async function openSession(bytes: Buffer, overrides: Record<string, unknown> = {}): Promise<ApiResponse> {
  return sent(api, 'POST', '/documents/upload-sessions', { name: 'Site plan.pdf', contentType: 'application/pdf', size: bytes.length, sha256: sha256Hex(bytes), ...overrides });
}

/** PUTs bytes to a presigned upload with the session's headers (Content-Length from the body). */
async function upload(session: ApiResponse, bytes: Buffer, headers: Record<string, string> = {}): Promise<number> {
  const { 'Content-Length': _length, ...signed } = session.body.upload.headers as Record<string, string>;
  const res = await fetch(session.body.upload.url, { method: 'PUT', headers: { ...signed, ...headers }, body: bytes });
  return res.status;
}

/** The documents ports of one unit of work, for running a use case directly. */
const portsOf = (unit: UnitOfWork): DocumentPorts => ({ store: documentsStore(api.db, unit), objects: documentObjects(), policy: documentPolicy(), now: () => new Date(), newId: randomUUID });
const complete = (sessionId: string, options: Parameters<typeof send>[4] = {}) => send(api, 'POST', `/documents/upload-sessions/${sessionId}/complete`, undefined, options);

async function availableDocument(bytes = pdf(randomUUID())): Promise<{ id: string; etag: string; bytes: Buffer }> {
  const session = await openSession(bytes);
  expect(await upload(session, bytes)).toBe(200);
  const done = await complete(session.body.id);
  expect(done.status).toBe(200);
  return { id: done.body.document.id, etag: done.headers.get('etag')!, bytes };
}

describe('POST /documents/upload-sessions', () => {
  it('creates a PENDING document and a session whose presigned PUT signs the promised expiry, type, size and checksum', async () => {
    const bytes = pdf('plan');
    const before = Date.now();
    const res = await openSession(bytes, { tags: ['plans', 'north'], owner: { type: 'ORGANIZATION' } });
    expect(uploadSessionResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    const { body } = res;
    expect(body.document).toMatchObject({ id: body.documentId, name: 'Site plan.pdf', contentType: 'application/pdf', size: bytes.length, sha256: sha256Hex(bytes), state: 'PENDING', rejectionReason: null, owner: { type: 'ORGANIZATION', id: null }, tags: ['plans', 'north'], version: 1 });
    expect(res.headers.get('location')).toBe(`${api.gateway.url}/v1/organizations/${api.demo.organizationId}/documents/${body.documentId}`);
    expect(res.headers.get('etag')).toBe(`"document:${body.documentId}:v1"`);

    const url = new URL(body.upload.url);
    expect(body.upload.method).toBe('PUT');
    expect(url.pathname).toBe(`/${documentsBucket()}/${objectKeys.upload(api.demo.organizationId, body.id)}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host;x-amz-checksum-sha256');
    const date = url.searchParams.get('X-Amz-Date')!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
    expect(Date.parse(body.expiresAt) - Date.parse(date)).toBe(900_000);
    expect(body.upload.expiresAt).toBe(body.expiresAt);
    expect(Date.parse(body.expiresAt)).toBeGreaterThanOrEqual(before + 899_000);
    expect(body.upload.headers).toEqual({ 'Content-Type': 'application/pdf', 'Content-Length': String(bytes.length), 'x-amz-checksum-sha256': createHash('sha256').update(bytes).digest('base64') });

    const [audit] = await auditOf(api, body.documentId);
    expect(audit).toMatchObject({ action: 'document.upload_session_opened', requestId: res.requestId, references: { uploadSessionId: body.id } });
    // Neither the URL nor the file name reaches the audit trail.
    expect(JSON.stringify(audit)).not.toMatch(/X-Amz-Signature|Site plan/);
  });

  it('answers the session (its presigned URL) with Cache-Control: no-store, stored with the record so that its replay says it too', async () => {
    const bytes = pdf('no-store');
    const key = randomUUID();
    const body = { name: 'Site plan.pdf', contentType: 'application/pdf', size: bytes.length, sha256: sha256Hex(bytes) };
    const res = await sent(api, 'POST', '/documents/upload-sessions', body, 201, { idempotencyKey: key });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const replay = await sent(api, 'POST', '/documents/upload-sessions', body, 201, { idempotencyKey: key });
    expect({ replayed: replay.headers.get('idempotency-replayed'), cacheControl: replay.headers.get('cache-control'), url: replay.body.upload.url }).toEqual({ replayed: 'true', cacheControl: 'no-store', url: res.body.upload.url });
    const records = (await itemsOfType(api.db, 'IdempotencyRecord')).filter((r) => typeof r.response?.bodyText === 'string' && r.response.bodyText.includes(res.body.id));
    expect(records).toHaveLength(1);
    expect(records[0].response.headers).toMatchObject({ 'Cache-Control': 'no-store' });
    // The document it made holds no URL: its read needs no Cache-Control.
    expect((await read(api, `/documents/${res.body.documentId}`)).headers.get('cache-control')).toBeNull();
  });

  it('refuses a type that is not allowed, a size out of range, a bad checksum and unknown owners with pointers, writing nothing', async () => {
    const before = await countByType(api.db);
    expectPointers(await send(api, 'POST', '/documents/upload-sessions', { name: 'x.exe', contentType: 'application/x-msdownload', size: 10, sha256: sha256Hex(Buffer.from('x')) }), ['/contentType']);
    expectPointers(await send(api, 'POST', '/documents/upload-sessions', { name: 'x.pdf', contentType: 'application/pdf', size: 0, sha256: 'abc' }), ['/size', '/sha256']);
    expectPointers(await send(api, 'POST', '/documents/upload-sessions', { name: 'x.pdf', contentType: 'application/pdf', size: 26 * 1024 * 1024, sha256: sha256Hex(Buffer.from('x')) }), ['/size']);
    expectPointers(await send(api, 'POST', '/documents/upload-sessions', { name: 'x.pdf', contentType: 'application/pdf', size: 1, sha256: sha256Hex(Buffer.from('x')), owner: { type: 'LOCATION', locationId: randomUUID() } }), ['/owner/locationId']);
    expectPointers(await send(api, 'POST', '/documents/upload-sessions', { name: 'x.pdf', contentType: 'application/pdf', size: 1, sha256: sha256Hex(Buffer.from('x')), owner: { type: 'EMPLOYEE', employeeId: randomUUID() } }), ['/owner/employeeId']);
    expect(await countByType(api.db)).toEqual(before);
  });

  it('refuses an archived location as owner (422 at /owner/locationId), writing nothing; restored, it owns new documents again', async () => {
    const location = await createLocation(api, { name: `Closed site ${randomUUID().slice(0, 8)}` });
    const archived = await sent(api, 'DELETE', `/locations/${location.id}`);
    const bytes = pdf('owned by a closed site');
    const body = { name: 'Closing report.pdf', contentType: 'application/pdf', size: bytes.length, sha256: sha256Hex(bytes), owner: { type: 'LOCATION', locationId: location.id } };
    const before = await countByType(api.db);
    const refused = await send(api, 'POST', '/documents/upload-sessions', body);
    expectPointers(refused, ['/owner/locationId']);
    expect(refused.body.errors).toEqual([{ pointer: '/owner/locationId', detail: `Location ${location.id} is archived: a document cannot be owned by an archived location; restore it first (PATCH archived: false).` }]);
    expect(await countByType(api.db)).toEqual(before);

    await sent(api, 'PATCH', `/locations/${location.id}`, { archived: false }, 200, { ifMatch: archived.headers.get('etag')! });
    const opened = await sent(api, 'POST', '/documents/upload-sessions', body, 201);
    expect(opened.body.document).toMatchObject({ owner: { type: 'LOCATION', id: location.id }, state: 'PENDING' });
  });

  it('a location archived between the read and the commit of an upload it owns: the transaction refuses it, the use case runs again and answers 422; nothing is written', async () => {
    const actor = demoActor(api, ['documents:write']);
    const location = await createLocation(api, { name: `Closing site ${randomUUID().slice(0, 8)}` });
    const race = archivedAfterFirstRead(api, location.id);
    const racing = (ports: DocumentPorts): DocumentPorts => ({ ...ports, store: race.wrap(ports.store) });
    const bytes = pdf('raced');
    const before = await countByType(api.db);
    await expect(inUnitOfWork(api.db, (u) => openUpload(racing(portsOf(u)), actor, { name: 'Raced.pdf', contentType: 'application/pdf', size: bytes.length, sha256: sha256Hex(bytes), tags: [], owner: { type: 'LOCATION', locationId: location.id } }))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ pointer: '/owner/locationId', detail: expect.stringContaining(`Location ${location.id} is archived`) }],
    });
    expect(race.reads()).toBe(2);
    const after = await countByType(api.db);
    // Only the archive's own writes (the location's next version, its audit entry and idempotency record): no document, no session.
    expect({ ...after, Location: before.Location, AuditEntry: before.AuditEntry, IdempotencyRecord: before.IdempotencyRecord }).toEqual(before);
  });

  it('publishes sha256 and contentType patterns that admit what it accepts (upper case too), and stores them lower-cased', async () => {
    const reference = (await (await fetch(`${api.gateway.url}/v1/openapi.json`)).json()) as any;
    const schema = reference.paths['/v1/organizations/{organizationId}/documents/upload-sessions'].post.requestBody.content['application/json'].schema;
    const bytes = pdf('upper case');
    const sha256 = sha256Hex(bytes).toUpperCase();
    const contentType = 'Application/PDF';
    expect(sha256).toMatch(new RegExp(schema.properties.sha256.pattern));
    expect(contentType).toMatch(new RegExp(schema.properties.contentType.pattern));
    const res = await openSession(bytes, { sha256, contentType });
    expect(res.status).toBe(201);
    expect(res.body.document).toMatchObject({ sha256: sha256.toLowerCase(), contentType: 'application/pdf' });
    // What neither pattern admits, the server refuses.
    for (const bad of ['g'.repeat(64), 'ab'.repeat(31)]) expect(bad).not.toMatch(new RegExp(schema.properties.sha256.pattern));
    expect('application/pdf; charset=x').not.toMatch(new RegExp(schema.properties.contentType.pattern));
    expectPointers(await send(api, 'POST', '/documents/upload-sessions', { name: 'x.pdf', contentType: 'application/pdf; charset=x', size: 1, sha256: 'g'.repeat(64) }), ['/contentType', '/sha256']);
  });

  it('refuses control characters (C0, DEL and C1), bidi embeddings, overrides and isolates, and slashes in the name (422 at /name), writing nothing', async () => {
    const body = (name: string) => ({ name, contentType: 'application/pdf', size: 1, sha256: sha256Hex(Buffer.from('x')) });
    const before = await countByType(api.db);
    for (const name of ['a\u0085b.txt', 'a\u0080b.txt', 'a\u009fb.txt', 'a\u009b31mb.txt', 'a\tb.txt', 'a\u0000b.txt', 'a\u007fb.txt', 'invoice\u202efdp.exe', 'a\u2066b\u2069.txt', 'a/b.txt', 'a\\b.txt']) {
      expectPointers(await send(api, 'POST', '/documents/upload-sessions', body(name)), ['/name']);
    }
    expect(await countByType(api.db)).toEqual(before);
    // Letters beyond C1 are names like any other.
    expect((await send(api, 'POST', '/documents/upload-sessions', body('Übersicht\u00a0März.pdf'))).status).toBe(201);
  });

  it('needs documents:write', async () => {
    const token = await keyWith(api, ['documents:read', 'documents:download']);
    expectProblem(await send(api, 'POST', '/documents/upload-sessions', { name: 'x.pdf', contentType: 'application/pdf', size: 1, sha256: sha256Hex(Buffer.from('x')) }, { token }), 403, 'SCOPE_REQUIRED');
  });
});

describe('POST /documents/upload-sessions/{id}/complete', () => {
  it('makes a real upload through the presigned URL AVAILABLE and keeps its bytes under documents/', async () => {
    const bytes = pdf('the real thing');
    const session = await openSession(bytes);
    expect(await upload(session, bytes)).toBe(200);
    const res = await complete(session.body.id);
    expect(res.status).toBe(200);
    expect(completedUploadResponseSchema.strict().safeParse(res.body).error).toBeUndefined();
    expect(res.body).toMatchObject({ id: session.body.id, state: 'COMPLETED', document: { id: session.body.documentId, state: 'AVAILABLE', rejectionReason: null, version: 2 } });
    expect(res.headers.get('etag')).toBe(`"document:${session.body.documentId}:v2"`);
    await expect(headObject(documentsBucket(), objectKeys.document(api.demo.organizationId, session.body.documentId))).resolves.toEqual({ size: bytes.length, contentType: 'application/pdf' });
    const audits = await auditOf(api, session.body.documentId);
    expect(audits.map((a) => a.action)).toEqual(['document.upload_session_opened', 'document.upload_completed']);
  });

  it.each([
    ['SIZE_MISMATCH', (b: Buffer) => Buffer.concat([b, Buffer.from('more')]), {}],
    ['CHECKSUM_MISMATCH', (b: Buffer) => Buffer.from(b.toString().replace('plan', 'PLAN')), {}],
    ['CONTENT_TYPE_MISMATCH', (b: Buffer) => b, { 'Content-Type': 'text/plain' }],
  ] as const)('ends REJECTED (%s), never AVAILABLE, when the bytes do not match the session', async (reason, tamper, headers) => {
    const bytes = pdf('plan of the site');
    const session = await openSession(bytes);
    // The local server does not verify signatures: the completion check is what catches this.
    expect(await upload(session, tamper(bytes), headers)).toBe(200);
    const res = await complete(session.body.id);
    expect(res.status).toBe(200);
    expect(res.body.document).toMatchObject({ state: 'REJECTED', rejectionReason: reason });
    const stored = (await scanTable(api.db)).find((i) => i.PK === documentKeys.document(api.demo.organizationId, session.body.documentId).PK);
    expect(stored).toMatchObject({ state: 'REJECTED', rejectionReason: reason });
    await expect(headObject(documentsBucket(), objectKeys.document(api.demo.organizationId, session.body.documentId))).resolves.toBeUndefined();
    expectProblem(await send(api, 'POST', `/documents/${session.body.documentId}/download-sessions`), 409, 'DOCUMENT_NOT_AVAILABLE');
    expect((await auditOf(api, session.body.documentId)).at(-1)).toMatchObject({ action: 'document.upload_rejected', after: { state: 'REJECTED', rejectionReason: reason } });
  });

  it('refuses a completed session (409 UPLOAD_SESSION_COMPLETED), replays the same key, and writes nothing', async () => {
    const bytes = pdf('twice');
    const session = await openSession(bytes);
    await upload(session, bytes);
    const key = randomUUID();
    const first = await complete(session.body.id, { idempotencyKey: key });
    expect(first.status).toBe(200);
    const replay = await complete(session.body.id, { idempotencyKey: key });
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    const before = await countByType(api.db);
    expectProblem(await complete(session.body.id), 409, 'UPLOAD_SESSION_COMPLETED');
    expect(await countByType(api.db)).toEqual(before);
  });

  it('refuses an expired session (409 UPLOAD_SESSION_EXPIRED) and leaves the document PENDING', async () => {
    const bytes = pdf('late');
    const session = await openSession(bytes);
    await upload(session, bytes);
    await api.db.doc.send(
      new UpdateCommand({ TableName: api.db.tableName, Key: documentKeys.session(api.demo.organizationId, session.body.id), UpdateExpression: 'SET validUntil = :past', ExpressionAttributeValues: { ':past': '2020-01-01T00:00:00Z' } }),
    );
    const before = await countByType(api.db);
    expectProblem(await complete(session.body.id), 409, 'UPLOAD_SESSION_EXPIRED');
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `/documents/${session.body.documentId}`)).body.state).toBe('PENDING');
  });

  it('says UPLOAD_NOT_RECEIVED before any bytes arrived and keeps the session open', async () => {
    const bytes = pdf('not yet');
    const session = await openSession(bytes);
    expectProblem(await complete(session.body.id), 409, 'UPLOAD_NOT_RECEIVED');
    await upload(session, bytes);
    expect((await complete(session.body.id)).body.document.state).toBe('AVAILABLE');
  });

  it("answers another organization's session and document as unknown (404)", async () => {
    const bytes = pdf('mine');
    const session = await openSession(bytes);
    await upload(session, bytes);
    const other = api.demo.keys.otherOrganization;
    const otherOrg = api.demo.otherOrganizationId;
    const post = (path: string) => call('POST', `${api.orgUrl(otherOrg)}${path}`, { token: other, idempotencyKey: randomUUID() });
    expectProblem(await post(`/documents/upload-sessions/${session.body.id}/complete`), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await call('GET', `${api.orgUrl(otherOrg)}/documents/${session.body.documentId}`, { token: other }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await post(`/documents/${session.body.documentId}/download-sessions`), 404, 'RESOURCE_NOT_FOUND');
    expect((await read(api, `/documents/${session.body.documentId}`)).body.state).toBe('PENDING');
  });
});

describe('POST /documents/{id}/download-sessions', () => {
  it('signs a GET valid 5 minutes that answers the bytes with the name and type; audited without the URL', async () => {
    const doc = await availableDocument();
    const res = await send(api, 'POST', `/documents/${doc.id}/download-sessions`);
    expect(res.status).toBe(200);
    // The URL reaches the bytes until it expires: no cache keeps the answer.
    expect(res.headers.get('cache-control')).toBe('no-store');
    const url = new URL(res.body.download.url);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.pathname).toBe(`/${documentsBucket()}/${objectKeys.document(api.demo.organizationId, doc.id)}`);
    const file = await fetch(res.body.download.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.headers.get('content-disposition')).toContain('filename="Site plan.pdf"');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(doc.bytes);
    const audits = await itemsOfType(api.db, 'AuditEntry');
    expect(audits.filter((a) => a.entity?.id === doc.id).map((a) => a.action)).toContain('document.download_session_opened');
    expect(JSON.stringify(audits)).not.toContain('X-Amz-Signature');
  });

  it('needs documents:download: documents:read does not reach the bytes', async () => {
    const doc = await availableDocument();
    const token = await keyWith(api, ['documents:read', 'documents:write']);
    expectProblem(await send(api, 'POST', `/documents/${doc.id}/download-sessions`, undefined, { token }), 403, 'SCOPE_REQUIRED');
    expect((await read(api, `/documents/${doc.id}`, token)).status).toBe(200);
  });
});

describe('documents list, archive and location links', () => {
  it('lists, archives with If-Match, and links only AVAILABLE documents to locations', async () => {
    const doc = await availableDocument();
    const location = await createLocation(api, { name: `Depot ${randomUUID().slice(0, 8)}` });
    const pending = await openSession(pdf('pending'));

    expectProblem(await send(api, 'PUT', `/locations/${location.id}/documents/${pending.body.documentId}`), 409, 'DOCUMENT_NOT_AVAILABLE');
    expectProblem(await send(api, 'PUT', `/locations/${randomUUID()}/documents/${doc.id}`), 404, 'RESOURCE_NOT_FOUND');
    const link = await sent(api, 'PUT', `/locations/${location.id}/documents/${doc.id}`, undefined, 200);
    expect(link.body).toMatchObject({ locationId: location.id, documentId: doc.id, document: { id: doc.id, state: 'AVAILABLE' } });
    const listed = await read(api, `/locations/${location.id}/documents`);
    expect(listed.body.items.map((i: { documentId: string }) => i.documentId)).toEqual([doc.id]);

    const all = await read(api, '/documents?limit=200');
    expect(all.body.items.map((d: { id: string }) => d.id)).toEqual(expect.arrayContaining([doc.id, pending.body.documentId]));
    expect(documentResponseSchema.strict().safeParse(all.body.items[0]).error).toBeUndefined();

    expectProblem(await send(api, 'POST', `/documents/${doc.id}/archive`, undefined, { ifMatch: '"document:x:v1"' }), 412, 'ETAG_MISMATCH');
    const archived = await send(api, 'POST', `/documents/${doc.id}/archive`, undefined, { ifMatch: doc.etag });
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ archived: true, version: 3 });
    expect((await read(api, '/documents?archived=true&limit=200')).body.items.map((d: { id: string }) => d.id)).toContain(doc.id);

    expect((await send(api, 'DELETE', `/locations/${location.id}/documents/${doc.id}`)).status).toBe(204);
    expect((await read(api, `/locations/${location.id}/documents`)).body.items).toEqual([]);
    expectProblem(await send(api, 'DELETE', `/locations/${location.id}/documents/${doc.id}`), 404, 'RESOURCE_NOT_FOUND');
  });

  it('refuses to link an archived document (422, parameter documentId), writing nothing; a link made before the archive stays', async () => {
    const location = await createLocation(api, { name: `Depot ${randomUUID().slice(0, 8)}` });
    const linked = await availableDocument();
    await sent(api, 'PUT', `/locations/${location.id}/documents/${linked.id}`, undefined, 200);
    await sent(api, 'POST', `/documents/${linked.id}/archive`, undefined, 200, { ifMatch: linked.etag });
    const archived = await availableDocument();
    await sent(api, 'POST', `/documents/${archived.id}/archive`, undefined, 200, { ifMatch: archived.etag });

    const before = await countByType(api.db);
    expectParameters(await send(api, 'PUT', `/locations/${location.id}/documents/${archived.id}`), ['documentId']);
    expect(await countByType(api.db)).toEqual(before);
    expect((await read(api, `/locations/${location.id}/documents`)).body.items.map((i: { documentId: string }) => i.documentId)).toEqual([linked.id]);

    // Linking the document linked before its archive changes nothing.
    const again = await send(api, 'PUT', `/locations/${location.id}/documents/${linked.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ documentId: linked.id, document: { archived: true } });
  });

  it('refuses a new link to an archived location (422, parameter locationId), writing nothing; its existing links stay; restored, it links again', async () => {
    const location = await createLocation(api, { name: `Closed depot ${randomUUID().slice(0, 8)}` });
    const linked = await availableDocument();
    const fresh = await availableDocument();
    const link = await sent(api, 'PUT', `/locations/${location.id}/documents/${linked.id}`, undefined, 200);
    const archived = await sent(api, 'DELETE', `/locations/${location.id}`);
    const linkedIds = async () => (await read(api, `/locations/${location.id}/documents`)).body.items.map((i: { documentId: string }) => i.documentId);
    const linkAudits = async (documentId: string) => (await auditOf(api, documentId)).filter((a) => a.action === 'document.linked_to_location');

    const before = await countByType(api.db);
    const refused = await send(api, 'PUT', `/locations/${location.id}/documents/${fresh.id}`);
    expectParameters(refused, ['locationId']);
    expect(refused.body.errors).toEqual([{ parameter: 'locationId', detail: `Location ${location.id} is archived: a document cannot be linked to an archived location; restore it first (PATCH archived: false).` }]);
    expect(refused.headers.get('etag')).toBeNull();
    expect(await countByType(api.db)).toEqual(before);
    expect(await linkedIds()).toEqual([linked.id]);
    expect(await linkAudits(fresh.id)).toEqual([]);

    // An archived document as well: both parameters are named at once, and nothing is written.
    await sent(api, 'POST', `/documents/${fresh.id}/archive`, undefined, 200, { ifMatch: fresh.etag });
    const beforeBoth = await countByType(api.db);
    expectParameters(await send(api, 'PUT', `/locations/${location.id}/documents/${fresh.id}`), ['documentId', 'locationId']);
    expect(await countByType(api.db)).toEqual(beforeBoth);

    // The link made before the archive stays: repeating it answers it unchanged, without a new audit entry.
    const again = await send(api, 'PUT', `/locations/${location.id}/documents/${linked.id}`);
    expect({ status: again.status, etag: again.headers.get('etag'), linkedAt: again.body.linkedAt }).toEqual({ status: 200, etag: link.headers.get('etag'), linkedAt: link.body.linkedAt });
    expect(await linkAudits(linked.id)).toHaveLength(1);

    // Restored, the location takes new links again.
    await sent(api, 'PATCH', `/locations/${location.id}`, { archived: false }, 200, { ifMatch: archived.headers.get('etag')! });
    const other = await availableDocument();
    const relinked = await sent(api, 'PUT', `/locations/${location.id}/documents/${other.id}`, undefined, 200);
    expect(relinked.body).toMatchObject({ locationId: location.id, documentId: other.id, document: { id: other.id, state: 'AVAILABLE', archived: false } });
    expect((await linkedIds()).sort()).toEqual([linked.id, other.id].sort());
    expect(await linkAudits(other.id)).toEqual([expect.objectContaining({ references: { locationId: location.id }, requestId: relinked.requestId })]);
  });

  it('a location archived between the read and the commit: the transaction refuses the link, the use case runs again and answers 422; nothing is written', async () => {
    const actor = demoActor(api, ['documents:write']);
    const doc = await availableDocument();

    // Decided on the active location, committed after it was archived: a concurrent change, never a 500.
    const stale = await createLocation(api, { name: `Closing depot ${randomUUID().slice(0, 8)}` });
    const unit = new TransactionUnit(api.db);
    await linkDocument(portsOf(unit), actor, stale.id, doc.id);
    await sent(api, 'DELETE', `/locations/${stale.id}`);
    await expect(unit.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);

    // Run as the area handler runs it: the first read sees the location active, it is archived right after.
    const location = await createLocation(api, { name: `Closing depot ${randomUUID().slice(0, 8)}` });
    const race = archivedAfterFirstRead(api, location.id);
    const racing = (ports: DocumentPorts): DocumentPorts => ({ ...ports, store: race.wrap(ports.store) });
    const linkItems = async () => (await scanTable(api.db)).filter((i) => i.documentId === doc.id && i.PK !== documentKeys.document(api.demo.organizationId, doc.id).PK);
    const before = await linkItems();
    await expect(inUnitOfWork(api.db, (u) => linkDocument(racing(portsOf(u)), actor, location.id, doc.id))).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ parameter: 'locationId', detail: expect.stringContaining(`Location ${location.id} is archived`) }],
    });
    expect(race.reads()).toBe(2);
    expect(await linkItems()).toEqual(before);
    expect((await auditOf(api, doc.id)).filter((a) => a.action === 'document.linked_to_location')).toEqual([]);
    for (const l of [stale, location]) expect((await read(api, `/locations/${l.id}/documents`)).body.items).toEqual([]);
  });

  it("honours the link's ETag on PUT and DELETE when sent: stale or not linked yet is 412 and writes nothing; a missing link is 404", async () => {
    const location = await createLocation(api, { name: `Depot ${randomUUID().slice(0, 8)}` });
    const doc = await availableDocument();
    const path = `/locations/${location.id}/documents/${doc.id}`;
    const linkedIds = async () => (await read(api, `/locations/${location.id}/documents`)).body.items.map((i: { documentId: string }) => i.documentId);
    const stale = `"location-document:${location.id}:${randomUUID()}:v1"`;

    let before = await countByType(api.db);
    expectProblem(await send(api, 'PUT', path, undefined, { ifMatch: `"location-document:${location.id}:${doc.id}:v1"` }), 412, 'ETAG_MISMATCH');
    expect(await countByType(api.db)).toEqual(before);
    expect(await linkedIds()).toEqual([]);

    const link = await sent(api, 'PUT', path, undefined, 200);
    const etagOfLink = `"location-document:${location.id}:${doc.id}:${Date.parse(link.body.linkedAt)}:v1"`;
    expect(link.headers.get('etag')).toBe(etagOfLink);
    expectProblem(await send(api, 'PUT', path, undefined, { ifMatch: stale }), 412, 'ETAG_MISMATCH');
    const again = await send(api, 'PUT', path, undefined, { ifMatch: etagOfLink });
    expect({ status: again.status, body: again.body, etag: again.headers.get('etag') }).toEqual({ status: 200, body: link.body, etag: etagOfLink });

    before = await countByType(api.db);
    expectProblem(await send(api, 'DELETE', path, undefined, { ifMatch: stale }), 412, 'ETAG_MISMATCH');
    expect(await countByType(api.db)).toEqual(before);
    expect(await linkedIds()).toEqual([doc.id]);

    expect((await send(api, 'DELETE', path, undefined, { ifMatch: etagOfLink })).status).toBe(204);
    expect(await linkedIds()).toEqual([]);
    expectProblem(await send(api, 'DELETE', path, undefined, { ifMatch: etagOfLink }), 404, 'RESOURCE_NOT_FOUND');

    // Linked again, it is another link: the first link's ETag no longer matches it.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const relinked = await sent(api, 'PUT', path, undefined, 200);
    expect(relinked.headers.get('etag')).not.toBe(etagOfLink);
    before = await countByType(api.db);
    expectProblem(await send(api, 'DELETE', path, undefined, { ifMatch: etagOfLink }), 412, 'ETAG_MISMATCH');
    expect(await countByType(api.db)).toEqual(before);
    expect((await send(api, 'DELETE', path, undefined, { ifMatch: relinked.headers.get('etag')! })).status).toBe(204);
  });
});
