import { randomUUID } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressClass, egressAddressAllowed, providerUrlProblem, requestJob, type IntegrationPorts, type IntegrationStore, type NewJobChange } from '../../services/integrations/domain';
import { retryDelayMs } from '../../services/integrations/domain-worker';
import type { Integration } from '../../services/integrations/model';
import { requestJobBody, setCredentialsBody } from '../../services/integrations/schemas';
import { httpProviderClient } from '../../services/integrations/store-provider';
import type { Manifest, OutboxRecord } from '../../services/reports/public';
import { fileSecretStore } from '../../services/shared/aws/secrets';
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
});

describe('the provider client', () => {
  const target = { baseUrl: 'https://payroll.example.com', credentials: { token: 'secret-token-123' } };
  const answering = (status: number, body = 'provider says: internal stack trace with secret-token-123') => jest.fn(async () => new Response(body, { status }));

  it('classifies answers by status only: 5xx/429/408 retryable, other 4xx rejected, never the body', async () => {
    for (const [status, kind] of [
      [503, 'RETRYABLE'],
      [429, 'RETRYABLE'],
      [408, 'RETRYABLE'],
      [400, 'REJECTED'],
      [401, 'REJECTED'],
    ] as const) {
      const error = await httpProviderClient(answering(status) as unknown as typeof fetch)
        .checkConnection(target)
        .catch((e: unknown) => e as Error & { kind: string });
      expect(error).toMatchObject({ kind, status });
      expect((error as Error).message).not.toMatch(/stack trace|secret-token/);
    }
  });

  it('sends the delivery id as Idempotency-Key and the token as a bearer, and reads a lookup 404 as "not received"', async () => {
    const fetcher = jest.fn(async (_url: string, _init: RequestInit) => new Response('{}', { status: 404 }));
    expect(await httpProviderClient(fetcher as unknown as typeof fetch).deliveryReceived(target, 'd-1')).toBe(false);
    expect(fetcher.mock.calls[0][0]).toBe('https://payroll.example.com/deliveries/d-1');
    expect((fetcher.mock.calls[0][1].headers as Record<string, string>).Authorization).toBe('Bearer secret-token-123');
  });

  it('treats no answer as retryable', async () => {
    const error = await httpProviderClient((async () => Promise.reject(new Error('ECONNREFUSED secret-token-123'))) as unknown as typeof fetch)
      .checkConnection(target)
      .catch((e: unknown) => e as Error & { kind: string });
    expect(error).toMatchObject({ kind: 'RETRYABLE', status: undefined });
    expect((error as Error).message).not.toContain('secret-token');
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
