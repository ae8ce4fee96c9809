import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { isIP, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endpoint } from '../../services/integrations/store-provider';
import { addressClass, egressAddressAllowed, LOOPBACK_ENV, providerUrlProblem, requestJob, type IntegrationPorts, type IntegrationStore, type NewJobChange } from '../../services/integrations/domain';
import { ProviderError, retryDelayMs } from '../../services/integrations/domain-worker';
import type { Integration } from '../../services/integrations/model';
import { requestJobBody, setCredentialsBody } from '../../services/integrations/schemas';
import { httpProviderClient, PROVIDER_TIMEOUT_MS, type ProviderHttpOptions } from '../../services/integrations/store-provider';
import { workerPorts } from '../../services/integrations/store-worker';
import type { Manifest, OutboxRecord } from '../../services/reports/public';
import { fileSecretStore } from '../../services/shared/aws/secrets';
import type { Db } from '../../services/shared/ddb/client';
import { AppError, ValidationError } from '../../services/shared/errors';
import type { Actor } from '../../services/shared/domain/actor';

const ORG = randomUUID();
const actor: Actor = { principal: { organizationId: ORG, keyId: 'k', keyLabel: 'key', environment: 'TEST', scopes: new Set() }, requestId: 'r' };

describe('provider URLs: HTTPS egress to a public host only', () => {
  it.each([
    ['https://payroll.example.com/api', false, undefined],
    ['http://payroll.example.com/api', false, /https/],
    ['https://user:pw@payroll.example.com', false, /user info/],
    ['https://payroll.example.com/api?key=1', false, /query/],
    // Empty ones parse to an empty search, hash or username, yet the worker's paths would land behind them.
    ['https://payroll.example.com/api?', false, /query/],
    ['https://payroll.example.com/api#', false, /fragment/],
    ['https://@payroll.example.com/api', false, /user info/],
    ['http://127.0.0.1:3000/_fake/payroll#', true, /fragment/],
    ['http://127.0.0.1:3000/_fake/payroll?', true, /query/],
    ['https://127.0.0.1/api', false, /public host/],
    ['https://10.1.2.3/api', false, /public host/],
    ['https://169.254.169.254/latest', false, /public host/],
    ['https://[::1]/api', false, /public host/],
    ['https://100.64.0.1/api', false, /public host/],
    ['https://198.18.0.1/api', false, /public host/],
    ['https://224.0.0.1/api', false, /public host/],
    ['https://0x7f.1/api', false, /public host/],
    ['https://8.8.8.8/api', false, undefined],
    ['http://127.0.0.1:3000/_fake/payroll', false, /https/],
    ['http://127.0.0.1:3000/_fake/payroll', true, undefined],
    ['ftp://payroll.example.com', true, /https/],
    ['not a url', false, /absolute https URL/],
  ])('%s (loopback http allowed: %s)', (url, loopback, expected) => {
    const problem = providerUrlProblem(url, loopback);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });
});

describe('provider endpoints: a path is appended to the base URL\'s path, never to its text', () => {
  it.each([
    ['https://payroll.example.com/api', '/ping', 'https://payroll.example.com/api/ping'],
    ['https://payroll.example.com/api/', '/deliveries', 'https://payroll.example.com/api/deliveries'],
    ['https://payroll.example.com', '/ping', 'https://payroll.example.com/ping'],
    // Records written before empty queries and fragments were refused still reach the right path.
    ['https://payroll.example.com/api#', '/ping', 'https://payroll.example.com/api/ping'],
    ['https://payroll.example.com/api?', '/deliveries/d%2F1', 'https://payroll.example.com/api/deliveries/d%2F1'],
    ['https://@payroll.example.com/api', '/ping', 'https://payroll.example.com/api/ping'],
  ])('%s + %s', (base, path, expected) => {
    expect(endpoint(base, path)).toBe(expected);
  });
});

describe('provider addresses: what the worker may connect to', () => {
  it.each([
    // IPv4: public, and the edges of every refused range
    ['8.8.8.8', 'PUBLIC'],
    ['1.1.1.1', 'PUBLIC'],
    ['0.0.0.0', 'INTERNAL'],
    ['0.255.255.255', 'INTERNAL'],
    ['1.0.0.0', 'PUBLIC'],
    ['9.255.255.255', 'PUBLIC'],
    ['10.0.0.0', 'INTERNAL'],
    ['10.0.0.7', 'INTERNAL'],
    ['10.255.255.255', 'INTERNAL'],
    ['11.0.0.0', 'PUBLIC'],
    ['100.63.255.255', 'PUBLIC'],
    ['100.64.0.0', 'INTERNAL'],
    ['100.127.255.255', 'INTERNAL'],
    ['100.128.0.0', 'PUBLIC'],
    ['126.255.255.255', 'PUBLIC'],
    ['127.0.0.1', 'LOOPBACK'],
    ['127.255.255.254', 'LOOPBACK'],
    ['128.0.0.0', 'PUBLIC'],
    ['169.254.169.254', 'INTERNAL'],
    ['169.253.255.255', 'PUBLIC'],
    ['169.255.0.0', 'PUBLIC'],
    ['172.15.255.255', 'PUBLIC'],
    ['172.16.0.0', 'INTERNAL'],
    ['172.31.255.255', 'INTERNAL'],
    ['172.32.0.0', 'PUBLIC'],
    ['192.0.0.8', 'INTERNAL'],
    ['192.0.2.1', 'INTERNAL'],
    ['192.88.99.1', 'INTERNAL'],
    ['192.167.255.255', 'PUBLIC'],
    ['192.168.0.1', 'INTERNAL'],
    ['192.169.0.0', 'PUBLIC'],
    ['198.18.0.1', 'INTERNAL'],
    ['198.19.255.255', 'INTERNAL'],
    ['198.20.0.0', 'PUBLIC'],
    ['198.51.100.7', 'INTERNAL'],
    ['203.0.113.7', 'INTERNAL'],
    ['223.255.255.255', 'PUBLIC'],
    ['224.0.0.1', 'INTERNAL'],
    ['239.255.255.255', 'INTERNAL'],
    ['240.0.0.1', 'INTERNAL'],
    ['255.255.255.255', 'INTERNAL'],
    // IPv6
    ['2606:4700:4700::1111', 'PUBLIC'],
    ['2a00:1450:4001:82a::200e', 'PUBLIC'],
    ['::', 'INTERNAL'],
    ['::1', 'LOOPBACK'],
    ['0:0:0:0:0:0:0:1', 'LOOPBACK'],
    ['fc00::1', 'INTERNAL'],
    ['fd12:3456::7', 'INTERNAL'],
    ['fe80::1', 'INTERNAL'],
    ['FE80::1', 'INTERNAL'],
    ['fe80::1%eth0', 'INTERNAL'],
    ['febf:ffff::1', 'INTERNAL'],
    ['fec0::1', 'INTERNAL'],
    ['ff02::1', 'INTERNAL'],
    ['100::1', 'INTERNAL'],
    ['2001:db8::1', 'INTERNAL'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'INTERNAL'],
    ['2002:a00:7::1', 'INTERNAL'],
    ['3fff::1', 'INTERNAL'],
    ['1fff:ffff::1', 'INTERNAL'],
    ['4000::1', 'INTERNAL'],
    // IPv4 inside IPv6: judged by the IPv4 address
    ['::ffff:8.8.8.8', 'PUBLIC'],
    ['::ffff:10.0.0.7', 'INTERNAL'],
    ['::ffff:a00:7', 'INTERNAL'],
    ['::ffff:169.254.169.254', 'INTERNAL'],
    ['::ffff:a9fe:a9fe', 'INTERNAL'],
    ['0:0:0:0:0:ffff:7f00:1', 'LOOPBACK'],
    ['::ffff:127.0.0.1', 'LOOPBACK'],
    ['::ffff:0.0.0.0', 'INTERNAL'],
    ['64:ff9b::8.8.8.8', 'PUBLIC'],
    ['64:ff9b::10.0.0.7', 'INTERNAL'],
    ['64:ff9b::127.0.0.1', 'INTERNAL'],
    ['64:ff9b:1::8.8.8.8', 'INTERNAL'],
    ['::8.8.8.8', 'INTERNAL'],
    ['::127.0.0.1', 'INTERNAL'],
    // not addresses
    ['payroll.example.com', 'INVALID'],
    ['', 'INVALID'],
    ['10.0.0', 'INVALID'],
    ['[::1]', 'INVALID'],
  ])('%s is %s', (address, expected) => {
    expect(addressClass(address)).toBe(expected);
  });

  it('allows public addresses, loopback only with the local allowance, never internal ones', () => {
    expect(egressAddressAllowed('8.8.8.8', false)).toBe(true);
    expect(egressAddressAllowed('127.0.0.1', false)).toBe(false);
    expect(egressAddressAllowed('::1', false)).toBe(false);
    expect(egressAddressAllowed('127.0.0.1', true)).toBe(true);
    expect(egressAddressAllowed('::1', true)).toBe(true);
    expect(egressAddressAllowed('::ffff:127.0.0.1', true)).toBe(true);
    for (const address of ['10.0.0.7', '169.254.169.254', 'fd00::1', 'fe80::1', '::ffff:10.0.0.7', '0.0.0.0', '::', 'not-an-ip']) expect(egressAddressAllowed(address, true)).toBe(false);
  });
});

describe('retry backoff', () => {
  it('doubles from 30 s up to 15 min, with equal jitter', () => {
    expect([1, 2, 3, 4, 5, 10].map((a) => retryDelayMs(a, () => 1))).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 900_000]);
    expect([1, 2, 10].map((a) => retryDelayMs(a, () => 0))).toEqual([15_000, 30_000, 450_000]);
  });
});

describe('requesting a job', () => {
  const integration: Integration = {
    id: randomUUID(),
    organizationId: ORG,
    provider: 'payroll',
    displayName: 'Payroll',
    baseUrl: 'https://payroll.example.com',
    approvedJobKinds: ['PAYROLL_DISPATCH'],
    status: 'ACTIVE',
    credentialsSet: true,
    credentialsUpdatedAt: '2026-01-01T00:00:00Z',
    version: 1,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  };
  const record: OutboxRecord = { id: randomUUID(), organizationId: ORG, manifestId: randomUUID(), destination: 'PAYROLL_PROVIDER', status: 'PENDING', replacesManifestId: null, createdAt: '2026-01-01T00:00:00Z', sentAt: null, dispatchJobId: null };
  const manifest = { id: record.manifestId, status: 'PUBLISHED', stale: null } as unknown as Manifest;

  function ports(over: Partial<{ integration: Integration; record: OutboxRecord; manifest: Manifest; claim: 'ACTIVE' | 'RELEASED' }> = {}) {
    const staged: NewJobChange[] = [];
    const store: IntegrationStore = {
      getIntegration: async () => over.integration ?? integration,
      integrationOfProvider: async (_org, provider) => (provider === 'payroll' ? (over.integration ?? integration) : undefined),
      saveIntegration: () => undefined,
      getOutboxRecord: async (_org, id) => (id === record.id ? (over.record ?? record) : undefined),
      getManifest: async () => over.manifest ?? manifest,
      dispatchClaim: async () => (over.claim ? { outboxRecordId: record.id, jobId: 'j0', state: over.claim } : undefined),
      saveNewJob: (change) => void staged.push(change),
      queueAfterCommit: () => undefined,
    };
    const p: IntegrationPorts = { store, credentials: { putCredentials: async () => undefined }, now: () => new Date('2026-02-01T00:00:00Z'), newId: randomUUID, allowLoopbackHttp: false };
    return { p, staged };
  }
  const code = async (promise: Promise<unknown>) => promise.then(() => 'ok', (e: AppError) => (e instanceof ValidationError ? 'VALIDATION_ERROR' : e.code));

  it('queues an approved kind with its claim; the delivery id is the outbox record id', async () => {
    const { p, staged } = ports();
    const job = await requestJob(p, actor, 'payroll', { kind: 'PAYROLL_DISPATCH', outboxRecordId: record.id });
    expect(job).toMatchObject({ status: 'QUEUED', attempts: 0, deliveryId: record.id, manifestId: manifest.id, delivering: false });
    expect(staged[0].dispatch).toEqual({ outboxRecordId: record.id, manifestId: manifest.id });
    expect(staged[0].audit).toMatchObject({ action: 'integration_job.requested', references: { outboxRecordId: record.id } });
  });

  it('refuses what the rules refuse', async () => {
    expect(await code(requestJob(ports().p, actor, 'payroll', { kind: 'CONNECTION_CHECK' }))).toBe('VALIDATION_ERROR');
    expect(await code(requestJob(ports().p, actor, 'accounting', { kind: 'CONNECTION_CHECK' }))).toBe('RESOURCE_NOT_FOUND');
    expect(await code(requestJob(ports({ integration: { ...integration, status: 'DISABLED' } }).p, actor, 'payroll', { kind: 'PAYROLL_DISPATCH', outboxRecordId: record.id }))).toBe('INTEGRATION_DISABLED');
    expect(await code(requestJob(ports({ integration: { ...integration, credentialsSet: false } }).p, actor, 'payroll', { kind: 'PAYROLL_DISPATCH', outboxRecordId: record.id }))).toBe('INTEGRATION_CREDENTIALS_MISSING');
    expect(await code(requestJob(ports().p, actor, 'payroll', { kind: 'PAYROLL_DISPATCH' }))).toBe('VALIDATION_ERROR');
    expect(await code(requestJob(ports().p, actor, 'payroll', { kind: 'PAYROLL_DISPATCH', outboxRecordId: randomUUID() }))).toBe('VALIDATION_ERROR');
    expect(await code(requestJob(ports({ record: { ...record, status: 'SENT' } }).p, actor, 'payroll', { kind: 'PAYROLL_DISPATCH', outboxRecordId: record.id }))).toBe('OUTBOX_RECORD_SENT');
    const stale = { ...manifest, stale: { at: 'x', entryId: 'e', revision: 2, requestId: 'r' } } as Manifest;
    expect(await code(requestJob(ports({ manifest: stale }).p, actor, 'payroll', { kind: 'PAYROLL_DISPATCH', outboxRecordId: record.id }))).toBe('EXPORT_MANIFEST_STALE');
    expect(await code(requestJob(ports({ claim: 'ACTIVE' }).p, actor, 'payroll', { kind: 'PAYROLL_DISPATCH', outboxRecordId: record.id }))).toBe('OUTBOX_RECORD_IN_DISPATCH');
  });

  it('lets a new job take over a released claim (the same delivery id: the provider books it once)', async () => {
    const { p, staged } = ports({ claim: 'RELEASED' });
    const job = await requestJob(p, actor, 'payroll', { kind: 'PAYROLL_DISPATCH', outboxRecordId: record.id });
    expect(job.deliveryId).toBe(record.id);
    expect(staged[0].dispatch?.releasedClaim).toMatchObject({ jobId: 'j0', state: 'RELEASED' });
  });
});

describe('wire shapes', () => {
  it('accepts only known job kinds and a credentials token', () => {
    expect(requestJobBody.safeParse({ kind: 'PAYROLL_DISPATCH', outboxRecordId: randomUUID() }).success).toBe(true);
    expect(requestJobBody.safeParse({ kind: 'DELETE_EVERYTHING' }).success).toBe(false);
    expect(requestJobBody.safeParse({ kind: 'CONNECTION_CHECK', extra: 1 }).success).toBe(false);
    expect(setCredentialsBody.safeParse({ credentials: { token: 'short' } }).success).toBe(false);
  });

  it('takes a token only as printable ASCII without spaces (U+0021..U+007E): it is sent in the Authorization header; the message never holds it', () => {
    expect(setCredentialsBody.safeParse({ credentials: { token: 'A-z0_9.~+/=!#$%&*"\'()[]{}<>?@^`|' } }).success).toBe(true);
    for (const token of ['SECRETVAL\r\nX: y', 'SECRETVAL\ttab', 'SECRETVAL with space', ' SECRETVALx', 'SECRETVALx ', 'SECRETVAL\u007f', 'SECRETVAL\u00a0x', 'SECRETVAL\u2028x', 'SECRETVAL\u00e9']) {
      const result = setCredentialsBody.safeParse({ credentials: { token } });
      expect({ token, success: result.success }).toEqual({ token, success: false });
      expect(result.error!.issues.map((i) => i.path.join('/'))).toEqual(['credentials/token']);
      expect(JSON.stringify(result.error!.issues.map((i) => i.message))).not.toContain('SECRETVAL');
    }
  });
});

describe('the provider client', () => {
  /** A real provider on 127.0.0.1 (port 0) that answers `answer.status` and records what it received and every connection. */
  const answer: { status: number; hang?: boolean } = { status: 200 };
  const received: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (answer.hang) return;
      res.writeHead(answer.status, REDIRECT.includes(answer.status) ? { Location: `http://127.0.0.1:${port}/elsewhere` } : {});
      res.end('provider says: internal stack trace with secret-token-123');
    });
  });
  server.on('connection', () => (connections += 1));
  let port = 0;
  const REDIRECT = [301, 302, 303, 307, 308];
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    answer.status = 200;
    answer.hang = false;
    received.length = 0;
    connections = 0;
  });

  /** A public-looking host name that the injected resolver answers. */
  const HOST = 'payroll.example.com';
  const resolvingTo = (...addresses: string[]) => jest.fn(async (_host: string) => addresses.map((address) => ({ address, family: isIP(address) })));
  const target = (base = `http://${HOST}:${port}`) => ({ baseUrl: base, credentials: { token: 'secret-token-123' } });
  const local = (over: Partial<ProviderHttpOptions> = {}) => httpProviderClient({ allowLoopback: true, resolve: resolvingTo('127.0.0.1'), ...over });
  const failure = async (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e as ProviderError);

  it('gives up after 10 s by default', () => {
    expect(PROVIDER_TIMEOUT_MS).toBe(10_000);
  });

  it('classifies answers by status only: 5xx/429/408 retryable, other 4xx (and 300, 304) rejected, never the body', async () => {
    for (const [status, kind] of [
      [503, 'RETRYABLE'],
      [500, 'RETRYABLE'],
      [429, 'RETRYABLE'],
      [408, 'RETRYABLE'],
      [400, 'REJECTED'],
      [401, 'REJECTED'],
      [404, 'REJECTED'],
      [300, 'REJECTED'],
      [304, 'REJECTED'],
    ] as const) {
      answer.status = status;
      const error = await failure(local().checkConnection(target()));
      expect(error).toMatchObject({ kind, status });
      expect(error!.message).not.toMatch(/stack trace|secret-token/);
    }
    answer.status = 204;
    await expect(local().checkConnection(target())).resolves.toBeUndefined();
  });

  it('follows no redirect: 301/302/303/307/308 are retryable without a status, as fetch with redirect "error" was', async () => {
    for (const status of REDIRECT) {
      answer.status = status;
      expect(await failure(local().checkConnection(target()))).toMatchObject({ kind: 'RETRYABLE', status: undefined });
    }
    expect(received.map((r) => r.url)).toEqual(REDIRECT.map(() => '/ping'));
  });

  it('sends the delivery id as Idempotency-Key, the token as a bearer and the JSON body; reads a lookup 404 as "not received"', async () => {
    answer.status = 404;
    expect(await local().deliveryReceived(target(), 'd-1')).toBe(false);
    expect(received[0]).toMatchObject({ method: 'GET', url: '/deliveries/d-1' });
    expect(received[0].headers).toMatchObject({ authorization: 'Bearer secret-token-123', host: `${HOST}:${port}` });
    answer.status = 200;
    expect(await local().deliveryReceived(target(), 'd-1')).toBe(true);

    answer.status = 201;
    const manifest = { id: 'm-1', kind: 'PAYROLL', period: {}, scope: {}, entryCount: 0, contentHash: 'h', publishedAt: '2026-01-01T00:00:00Z', replacesManifestId: null } as unknown as Manifest;
    await local().deliverPayroll(target(`http://${HOST}:${port}/api`), { deliveryId: 'd-2', organizationId: ORG, outboxRecordId: 'o-1', manifest, entries: [], file: { contentType: 'text/csv', content: Buffer.from('a,b') } });
    const post = received[2];
    expect(post).toMatchObject({ method: 'POST', url: '/api/deliveries' });
    expect(post.headers).toMatchObject({ authorization: 'Bearer secret-token-123', 'idempotency-key': 'd-2', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(post.body)) });
    expect(JSON.parse(post.body)).toMatchObject({ deliveryId: 'd-2', outboxRecordId: 'o-1', file: { encoding: 'base64', content: Buffer.from('a,b').toString('base64') } });
  });

  it('treats no answer and a timeout as retryable, without the token', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refusedConnection = await failure(local().checkConnection(target(`http://${HOST}:${closedPort}`)));
    expect(refusedConnection).toMatchObject({ kind: 'RETRYABLE', status: undefined });
    expect(refusedConnection!.message).not.toContain('secret-token');

    const unresolvable = await failure(local({ resolve: async () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })) }).checkConnection(target()));
    expect(unresolvable).toMatchObject({ kind: 'RETRYABLE', status: undefined });

    answer.hang = true;
    const started = Date.now();
    expect(await failure(local({ timeoutMs: 300 }).checkConnection(target()))).toMatchObject({ kind: 'RETRYABLE', status: undefined });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it.each([
    ['10.0.0.7', ['10.0.0.7']],
    ['169.254.169.254', ['169.254.169.254']],
    ['::1', ['::1']],
    ['127.0.0.1 (no loopback allowance)', ['127.0.0.1']],
    ['fd00::7', ['fd00::7']],
    ['fe80::1', ['fe80::1']],
    ['::ffff:169.254.169.254', ['::ffff:169.254.169.254']],
    ['100.64.0.1', ['100.64.0.1']],
    ['one public and one private address', ['93.184.215.14', '10.0.0.7']],
  ])('refuses a host name resolving to %s before any connection, as a safe REJECTED', async (_label, addresses) => {
    const resolve = resolvingTo(...addresses);
    const error = await failure(httpProviderClient({ resolve }).checkConnection(target(`https://${HOST}:${port}`)));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'REJECTED', status: undefined, reason: 'ADDRESS_REFUSED' });
    expect(resolve).toHaveBeenCalledWith(HOST);
    expect(error!.message).not.toMatch(/payroll\.example|10\.0\.0\.7|169\.254|::|fd00|fe80|100\.64|93\.184|secret-token/);
    expect(connections).toBe(0);
  });

  it('refuses, even with the loopback allowance, when any address is not loopback or public: the server that would answer sees no connection', async () => {
    const error = await failure(local({ resolve: resolvingTo('127.0.0.1', '10.0.0.7') }).checkConnection(target()));
    expect(error).toMatchObject({ kind: 'REJECTED', reason: 'ADDRESS_REFUSED' });
    expect(connections).toBe(0);
    // http: only to loopback, and only with the allowance.
    expect(await failure(local({ resolve: resolvingTo('93.184.215.14') }).checkConnection(target()))).toMatchObject({ reason: 'ADDRESS_REFUSED' });
    expect(await failure(httpProviderClient({ resolve: resolvingTo('127.0.0.1') }).checkConnection(target()))).toMatchObject({ reason: 'ADDRESS_REFUSED' });
    expect(connections).toBe(0);
  });

  it('checks IP literals, which are never looked up, the same way', async () => {
    const resolve = resolvingTo('93.184.215.14');
    for (const base of ['https://169.254.169.254/latest', 'https://10.0.0.7', 'https://[::1]', 'https://[::ffff:a00:7]', `https://127.0.0.1:${port}`, `http://127.0.0.1:${port}`]) {
      expect(await failure(httpProviderClient({ resolve }).checkConnection(target(base)))).toMatchObject({ kind: 'REJECTED', reason: 'ADDRESS_REFUSED' });
    }
    expect(resolve).not.toHaveBeenCalled();
    expect(connections).toBe(0);
    // The local runtime's own form: http://127.0.0.1:<port> with the allowance.
    await expect(local({ resolve }).checkConnection(target(`http://127.0.0.1:${port}`))).resolves.toBeUndefined();
    expect(connections).toBe(1);
  });

  it('uses node:dns by default: localhost is refused without the allowance', async () => {
    expect(await failure(httpProviderClient().checkConnection(target(`https://localhost:${port}`)))).toMatchObject({ kind: 'REJECTED', reason: 'ADDRESS_REFUSED' });
    await expect(httpProviderClient({ allowLoopback: true }).checkConnection(target(`http://localhost:${port}`))).resolves.toBeUndefined();
  });

  it('is built by the worker with the loopback allowance only when INTEGRATIONS_ALLOW_LOOPBACK_HTTP is exactly "true" (the local runtime)', async () => {
    const before = process.env[LOOPBACK_ENV];
    const check = async (value: string | undefined) => {
      if (value === undefined) delete process.env[LOOPBACK_ENV];
      else process.env[LOOPBACK_ENV] = value;
      return failure(workerPorts({ db: {} as Db }).provider.checkConnection(target(`http://127.0.0.1:${port}`)));
    };
    try {
      for (const value of [undefined, 'false', '1', 'TRUE']) expect(await check(value)).toMatchObject({ kind: 'REJECTED', reason: 'ADDRESS_REFUSED' });
      expect(connections).toBe(0);
      expect(await check('true')).toBeUndefined();
      expect(connections).toBe(1);
    } finally {
      if (before === undefined) delete process.env[LOOPBACK_ENV];
      else process.env[LOOPBACK_ENV] = before;
    }
  });

  const openssl = spawnSync('openssl', ['version']).status === 0;
  (openssl ? it : it.skip)('speaks TLS with the host name as SNI and verifies the certificate (a self-signed one fails, retryable)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfm-tls-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`]);
    expect(made.status).toBe(0);
    const names: string[] = [];
    let requests = 0;
    const tls = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert), SNICallback: (name, done) => (names.push(name), done(null, undefined)) }, (_req, res) => {
      requests += 1;
      res.end();
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    try {
      const tlsPort = (tls.address() as AddressInfo).port;
      const error = await failure(local().checkConnection(target(`https://${HOST}:${tlsPort}`)));
      expect(error).toMatchObject({ kind: 'RETRYABLE', status: undefined });
      expect(names).toEqual([HOST]);
      expect(requests).toBe(0);
    } finally {
      await new Promise<void>((resolve) => tls.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the local secret store', () => {
  it('writes one 0600 file per secret and reads it back; names are checked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wfm-secret-store-'));
    const store = fileSecretStore(dir);
    await store.put(`integrations/${ORG}/abc`, 'value-1');
    expect(await store.get(`integrations/${ORG}/abc`)).toBe('value-1');
    expect(await store.get(`integrations/${ORG}/none`)).toBeUndefined();
    expect(statSync(join(dir, 'integrations', ORG, 'abc.json')).mode & 0o777).toBe(0o600);
    await expect(store.put('../escape', 'x')).rejects.toThrow(/secret name/);
  });
});
