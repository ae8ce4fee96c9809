import { BlockList, isIP } from 'node:net';
import { auditEntry, type AuditEntry } from '../audit/model';
import type { Manifest, OutboxRecord } from '../reports/public';
import type { Actor } from '../shared/domain/actor';
import { assertEtag, versionedEtag } from '../shared/domain/etag';
import { newRecord, revised } from '../shared/domain/lifecycle';
import { AppError, NotFoundError, ValidationError, type FieldError } from '../shared/errors';
import { SUPPORTED_JOB_KINDS, type Integration, type IntegrationJob, type IntegrationStatus, type JobKind, type JobMessage, type Provider } from './model';
import { PROBLEMS } from './problems';

export type { Integration, IntegrationJob, JobKind, Provider } from './model';

/**
 * Integrations: the providers an organization connects (payroll, accounting, HR), the job
 * kinds it approves for each, their credentials (kept in the secret store, never here), and
 * the request of a job. Pure rules on ports: no SDK, no HTTP. The worker that runs jobs is
 * domain-worker.ts.
 */

export const integrationEtag = versionedEtag<Pick<Integration, 'id' | 'version'>>('integration');
export const jobEtag = versionedEtag<Pick<IntegrationJob, 'id' | 'version'>>('integration-job');

/** How long the sweeper waits for a queued job's message before it sends it again. */
export const STRANDED_AFTER_MS = 2 * 60_000;

// ---- provider URLs (pure)

/**
 * The environment variable that allows loopback providers: set to `true` by the local runtime
 * (and the API tests) only, where the fake payroll provider answers on 127.0.0.1. The API
 * function reads it for URL checks, the worker for its connections; no stack sets it.
 */
export const LOOPBACK_ENV = 'INTEGRATIONS_ALLOW_LOOPBACK_HTTP';

const PRIVATE_IPV4 = [/^10\./, /^127\./, /^169\.254\./, /^192\.168\./, /^172\.(1[6-9]|2\d|3[01])\./, /^0\./, /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./];
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

const EXTRAS = 'baseUrl must not carry user info, a query or a fragment.';

/**
 * Whether a URL carries user info, a query or a fragment, empty ones included: `https://h/p?`
 * and `https://h/p#` parse with an empty `search` and `hash`, yet the worker appends its paths
 * to the text (`/ping` would land in the query or the fragment), and `https://@h` names empty
 * user info. Each of them needs an `@`, `?` or `#` in the text (inside a path they are written
 * percent-encoded), so the text alone decides.
 */
const carriesExtras = (value: string): boolean => /[?#@]/.test(value);

/**
 * Why a provider base URL may not be used, or undefined when it may: egress is HTTPS only, to
 * a named host (no IP literal of a private, loopback, link-local or other non-public range
 * (`addressClass`), no user info, no query or fragment). A host name is checked again where
 * it matters, on every address it resolves to when the worker connects (store-provider.ts). `allowLoopbackHttp` (the local runtime only) also accepts
 * http://127.0.0.1 and http://localhost, where the fake payroll provider answers.
 */
export function providerUrlProblem(value: string, allowLoopbackHttp: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'baseUrl must be an absolute https URL such as https://payroll.example.com/api.';
  }
  const loopback = LOOPBACK_HOSTS.includes(url.hostname);
  if (allowLoopbackHttp && loopback && (url.protocol === 'http:' || url.protocol === 'https:')) return carriesExtras(value) ? EXTRAS : undefined;
  if (url.protocol !== 'https:') return 'baseUrl must use https: the API sends provider traffic over TLS only.';
  if (carriesExtras(value)) return EXTRAS;
  if (loopback || url.hostname.startsWith('[') || PRIVATE_IPV4.some((r) => r.test(url.hostname)) || (isIP(url.hostname) === 4 && addressClass(url.hostname) !== 'PUBLIC')) return 'baseUrl must name a public host, not a loopback, private or link-local address.';
  return undefined;
}

/**
 * What an IP address is to provider egress: PUBLIC (may be connected to), LOOPBACK (only the
 * local runtime's fake provider), INTERNAL (private, link-local, CGNAT, unspecified,
 * multicast, documentation, benchmarking, reserved, unique-local, site-local, 6to4/Teredo or
 * anything outside IPv6 global unicast), or INVALID (not an IP address). IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses are
 * judged by the IPv4 address they carry.
 */
export type AddressClass = 'PUBLIC' | 'LOOPBACK' | 'INTERNAL' | 'INVALID';

const blockList = (subnets: readonly (readonly [string, number])[], type: 'ipv4' | 'ipv6'): BlockList => {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, type);
  return list;
};

const LOOPBACK_V4 = blockList([['127.0.0.0', 8]], 'ipv4');
// RFC 6890 and the IANA special-purpose registries: nothing here is a provider's public API.
const INTERNAL_V4 = blockList(
  [
    ['0.0.0.0', 8], // "this network", unspecified
    ['10.0.0.0', 8], // RFC 1918
    ['100.64.0.0', 10], // CGNAT (RFC 6598)
    ['169.254.0.0', 16], // link-local, the instance metadata service
    ['172.16.0.0', 12], // RFC 1918
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // TEST-NET-1
    ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
    ['192.168.0.0', 16], // RFC 1918
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24], // TEST-NET-2
    ['203.0.113.0', 24], // TEST-NET-3
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ],
  'ipv4',
);
const GLOBAL_UNICAST_V6 = blockList([['2000::', 3]], 'ipv6');
const INTERNAL_V6 = blockList(
  [
    ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID)
    ['2001:db8::', 32], // documentation
    ['2002::', 16], // 6to4: carries an IPv4 address of any range
    ['3fff::', 20], // documentation
  ],
  'ipv6',
);

/** The IPv4 address an IPv6 address carries in its last 32 bits, from the URL parser's canonical (hex) form. */
const embeddedV4 = (hi: string, lo: string): string => {
  const [a, b] = [parseInt(hi, 16), parseInt(lo, 16)];
  return [a >> 8, a & 255, b >> 8, b & 255].join('.');
};

function v4Class(address: string): AddressClass {
  if (LOOPBACK_V4.check(address, 'ipv4')) return 'LOOPBACK';
  return INTERNAL_V4.check(address, 'ipv4') ? 'INTERNAL' : 'PUBLIC';
}

export function addressClass(address: string): AddressClass {
  const version = isIP(address);
  if (version === 4) return v4Class(address);
  if (version !== 6) return 'INVALID';
  if (address.includes('%')) return 'INTERNAL'; // a zone index: link-local scope
  // The WHATWG URL parser writes every IPv6 address one canonical way (compressed, lower-case hex).
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  if (canonical === '::1') return 'LOOPBACK';
  const embedded = /^(::ffff:|64:ff9b::|::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (embedded) {
    const v4 = v4Class(embeddedV4(embedded[2], embedded[3]));
    // IPv4-mapped: a dual-stack socket connects to the IPv4 address itself (loopback included).
    if (embedded[1] === '::ffff:') return v4;
    // NAT64 reaches the IPv4 address through a translator: public ones only. IPv4-compatible
    // addresses (::a.b.c.d) are deprecated: never.
    return embedded[1] === '64:ff9b::' && v4 === 'PUBLIC' ? 'PUBLIC' : 'INTERNAL';
  }
  if (!GLOBAL_UNICAST_V6.check(canonical, 'ipv6') || INTERNAL_V6.check(canonical, 'ipv6')) return 'INTERNAL';
  return 'PUBLIC';
}

/**
 * Whether the worker may connect to a provider at `address` (checked on every address a host
 * name resolves to, at connection time): public addresses only; loopback too where
 * `allowLoopback` (the local runtime, whose fake provider answers on 127.0.0.1).
 */
export const egressAddressAllowed = (address: string, allowLoopback: boolean): boolean => {
  const cls = addressClass(address);
  return cls === 'PUBLIC' || (allowLoopback && cls === 'LOOPBACK');
};

/** The base URL without a trailing slash: paths are appended to it. */
export const normalizedBaseUrl = (value: string): string => value.replace(/\/+$/, '');

function kindErrors(provider: Provider, kinds: readonly string[], pointer: string): FieldError[] {
  const supported = SUPPORTED_JOB_KINDS[provider];
  return kinds.flatMap((k, i) => (supported.includes(k as JobKind) ? [] : [{ pointer: `${pointer}/${i}`, detail: `A ${provider} integration supports the job kinds ${supported.join(', ')}; not ${k}.` }]));
}

// ---- ports

export interface IntegrationChange {
  readonly before?: Integration;
  readonly after: Integration;
  readonly audit: AuditEntry;
}

/** The one live dispatch job of an outbox record; RELEASED when it failed, DONE when it sent. */
export interface DispatchClaim {
  readonly outboxRecordId: string;
  readonly jobId: string;
  readonly state: 'ACTIVE' | 'RELEASED' | 'DONE';
}

export interface NewJobChange {
  readonly job: IntegrationJob;
  /** The integration as read: the job is only queued while it is unchanged. */
  readonly integration: Integration;
  /** PAYROLL_DISPATCH: the claim replaces `releasedClaim` (or none), and the outbox and manifest must still be pending and current. */
  readonly dispatch?: { readonly outboxRecordId: string; readonly manifestId: string; readonly releasedClaim?: DispatchClaim };
  readonly audit: AuditEntry;
}

export interface IntegrationStore {
  getIntegration(org: string, id: string): Promise<Integration | undefined>;
  integrationOfProvider(org: string, provider: Provider): Promise<Integration | undefined>;
  /** Stages a new integration (with its provider guard) or its next version. */
  saveIntegration(change: IntegrationChange): void;
  getOutboxRecord(org: string, id: string): Promise<OutboxRecord | undefined>;
  getManifest(org: string, id: string): Promise<Manifest | undefined>;
  dispatchClaim(org: string, outboxRecordId: string): Promise<DispatchClaim | undefined>;
  /** Stages the QUEUED job (due), its claim and conditions, and the audit entry. */
  saveNewJob(change: NewJobChange): void;
  /** Sends the job's message once the unit of work committed. */
  queueAfterCommit(message: JobMessage): void;
}

/** The integration members that name its credentials in the secret store. */
export type CredentialsRef = Pick<Integration, 'organizationId' | 'id' | 'credentialsId' | 'credentialsSet'>;

/** Where credentials go: the secret store. */
export interface CredentialStore {
  /**
   * Writes `credentials` under `target`'s own credentialsId, before the change that records
   * it commits. When that change does not commit (a lost race, a refused If-Match), they are
   * removed again; when it does, the ones of `replacing` are. So a record always names
   * credentials the store holds, and never the ones of a request that was refused.
   */
  putCredentials(target: CredentialsRef, credentials: ProviderCredentials, replacing?: CredentialsRef): Promise<void>;
}

export interface IntegrationPorts {
  readonly store: IntegrationStore;
  readonly credentials: CredentialStore;
  readonly now: () => Date;
  readonly newId: () => string;
  /** The local runtime accepts http://127.0.0.1 provider URLs (the fake payroll provider). */
  readonly allowLoopbackHttp: boolean;
}

/** What a provider needs to accept our calls: a bearer token. */
export interface ProviderCredentials {
  readonly token: string;
}

// ---- integrations

export interface CreateIntegrationInput {
  readonly provider: Provider;
  readonly displayName: string;
  readonly baseUrl: string;
  readonly approvedJobKinds: readonly JobKind[];
  readonly credentials?: ProviderCredentials;
}

/** The audit snapshot of an integration: never its URL's secrets (it has none) and never credentials. */
const snapshot = (i: Integration) => ({ provider: i.provider, status: i.status, approvedJobKinds: i.approvedJobKinds.join(','), credentialsSet: i.credentialsSet });

function checkUrl(ports: IntegrationPorts, url: string): string {
  const problem = providerUrlProblem(url, ports.allowLoopbackHttp);
  if (problem) throw new ValidationError([{ pointer: '/baseUrl', detail: problem }]);
  return normalizedBaseUrl(url);
}

/**
 * Connects a provider. 1. The job kinds must be ones the provider supports, the URL an
 * allowed egress. 2. One integration per provider (409 INTEGRATION_EXISTS; the provider
 * guard decides between two concurrent requests). 3. Credentials, when given, go to the
 * secret store first; the integration records only that they are set, and when. 4. Stage
 * the integration, its guard and the audit entry (no credential, no URL).
 */
export async function createIntegration(ports: IntegrationPorts, actor: Actor, input: CreateIntegrationInput): Promise<Integration> {
  const org = actor.principal.organizationId;
  const errors = kindErrors(input.provider, input.approvedJobKinds, '/approvedJobKinds');
  if (errors.length > 0) throw new ValidationError(errors);
  const baseUrl = checkUrl(ports, input.baseUrl);
  const existing = await ports.store.integrationOfProvider(org, input.provider);
  if (existing) throw integrationExists(existing);
  const now = ports.now().toISOString();
  const id = ports.newId();
  const credentialsId = input.credentials ? ports.newId() : null;
  if (input.credentials) await ports.credentials.putCredentials({ organizationId: org, id, credentialsId, credentialsSet: true }, input.credentials);
  const integration: Integration = {
    ...newRecord(id, org, now),
    provider: input.provider,
    displayName: input.displayName,
    baseUrl,
    approvedJobKinds: [...new Set(input.approvedJobKinds)],
    status: 'ACTIVE',
    credentialsSet: input.credentials !== undefined,
    credentialsUpdatedAt: input.credentials ? now : null,
    credentialsId,
  };
  ports.store.saveIntegration({
    after: integration,
    audit: auditEntry({ id: ports.newId(), actor, occurredAt: now, action: 'integration.created', entity: { type: 'integration', id }, after: snapshot(integration) }),
  });
  return integration;
}

export const integrationExists = (existing: Pick<Integration, 'id' | 'provider'>): AppError =>
  new AppError(PROBLEMS.INTEGRATION_EXISTS, `A ${existing.provider} integration is already connected (${existing.id}); change it with PATCH.`, { extensions: { integrationId: existing.id } });

export interface UpdateIntegrationInput {
  readonly displayName?: string;
  readonly baseUrl?: string;
  readonly approvedJobKinds?: readonly JobKind[];
  readonly status?: IntegrationStatus;
}

async function current(ports: IntegrationPorts, org: string, id: string, ifMatch: string): Promise<Integration> {
  const found = await ports.store.getIntegration(org, id);
  if (!found) throw new NotFoundError(`Integration ${id}`);
  assertEtag(ifMatch, integrationEtag(found));
  return found;
}

/** Changes name, URL, approved kinds or status (ACTIVE / DISABLED: nothing is deleted). No change: no write, same ETag. */
export async function updateIntegration(ports: IntegrationPorts, actor: Actor, id: string, ifMatch: string, input: UpdateIntegrationInput): Promise<Integration> {
  const before = await current(ports, actor.principal.organizationId, id, ifMatch);
  const errors = input.approvedJobKinds ? kindErrors(before.provider, input.approvedJobKinds, '/approvedJobKinds') : [];
  if (errors.length > 0) throw new ValidationError(errors);
  const baseUrl = input.baseUrl !== undefined ? checkUrl(ports, input.baseUrl) : before.baseUrl;
  const next = {
    displayName: input.displayName ?? before.displayName,
    baseUrl,
    approvedJobKinds: input.approvedJobKinds ? [...new Set(input.approvedJobKinds)] : before.approvedJobKinds,
    status: input.status ?? before.status,
  };
  const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => JSON.stringify(next[k]) !== JSON.stringify(before[k]));
  if (changed.length === 0) return before;
  const now = ports.now().toISOString();
  const after: Integration = revised(before, now, next);
  ports.store.saveIntegration({
    before,
    after,
    audit: auditEntry({ id: ports.newId(), actor, occurredAt: now, action: 'integration.updated', entity: { type: 'integration', id }, changedAttributes: changed, before: snapshot(before), after: snapshot(after) }),
  });
  return after;
}

/**
 * Sets (or replaces) the credentials: written to the secret store first, under a new
 * credentialsId, then the integration's `credentialsSet`, `credentialsUpdatedAt` and
 * `credentialsId` move on with an audit entry that names the attribute, never the value. Of
 * two concurrent writes, the one refused (412) leaves nothing in the store (CredentialStore).
 */
export async function setCredentials(ports: IntegrationPorts, actor: Actor, provider: Provider, ifMatch: string, credentials: ProviderCredentials): Promise<Integration> {
  const found = await ports.store.integrationOfProvider(actor.principal.organizationId, provider);
  if (!found) throw new NotFoundError(`A ${provider} integration`);
  const before = await current(ports, actor.principal.organizationId, found.id, ifMatch);
  const id = before.id;
  const credentialsId = ports.newId();
  await ports.credentials.putCredentials({ ...before, credentialsId, credentialsSet: true }, credentials, before);
  const now = ports.now().toISOString();
  const after: Integration = revised(before, now, { credentialsSet: true, credentialsUpdatedAt: now, credentialsId });
  ports.store.saveIntegration({
    before,
    after,
    audit: auditEntry({ id: ports.newId(), actor, occurredAt: now, action: 'integration.credentials_set', entity: { type: 'integration', id }, changedAttributes: ['credentials'] }),
  });
  return after;
}

// ---- requesting a job

export interface JobRequest {
  readonly kind: JobKind;
  readonly outboxRecordId?: string;
}

/**
 * Requests a job of the provider's integration. Input: provider, kind (and for a payroll
 * dispatch the outbox record); output: the QUEUED job (the worker does the rest).
 * 1. The provider's integration exists (404), the kind is one it approved (422), it is
 *    ACTIVE (409 INTEGRATION_DISABLED) and has credentials (409 INTEGRATION_CREDENTIALS_MISSING).
 * 2. PAYROLL_DISPATCH: the outbox record exists (422), is PENDING (409 OUTBOX_RECORD_SENT), its
 *    manifest is current (409 EXPORT_MANIFEST_STALE: a stale manifest is never sent; the
 *    replacement flow creates a new record), and no other job is dispatching it (409
 *    OUTBOX_RECORD_IN_DISPATCH).
 * 3. Stage the job (QUEUED, due), the dispatch claim, the conditions that keep 1-2 true at
 *    commit, and the audit entry; after the commit, send its message.
 */
export async function requestJob(ports: IntegrationPorts, actor: Actor, provider: Provider, req: JobRequest): Promise<IntegrationJob> {
  const org = actor.principal.organizationId;
  const integration = await ports.store.integrationOfProvider(org, provider);
  if (!integration) throw new NotFoundError(`A ${provider} integration`);
  if (!integration.approvedJobKinds.includes(req.kind)) {
    const approved = integration.approvedJobKinds.length > 0 ? integration.approvedJobKinds.join(', ') : 'none';
    throw new ValidationError([{ pointer: '/kind', detail: `${req.kind} is not an approved job kind of the ${provider} integration (approved: ${approved}).` }]);
  }
  if (integration.status !== 'ACTIVE') throw new AppError(PROBLEMS.INTEGRATION_DISABLED, `The ${provider} integration is disabled; enable it with PATCH (status ACTIVE) first.`);
  if (!integration.credentialsSet) throw new AppError(PROBLEMS.INTEGRATION_CREDENTIALS_MISSING, `Set the ${provider} integration's credentials (PUT /integrations/providers/${provider}/credentials) first.`);
  const dispatch = req.kind === 'PAYROLL_DISPATCH' ? await dispatchTarget(ports, org, req) : undefined;
  if (req.kind !== 'PAYROLL_DISPATCH' && req.outboxRecordId !== undefined) throw new ValidationError([{ pointer: '/outboxRecordId', detail: `${req.kind} takes no outboxRecordId.` }]);

  const now = ports.now().toISOString();
  const job: IntegrationJob = {
    ...newRecord(ports.newId(), org, now),
    integrationId: integration.id,
    provider,
    kind: req.kind,
    status: 'QUEUED',
    progress: { step: 'WAITING', percent: 0 },
    attempts: 0,
    nextAttemptAt: now,
    error: null,
    outboxRecordId: dispatch?.outboxRecordId ?? null,
    manifestId: dispatch?.manifestId ?? null,
    deliveryId: dispatch ? dispatch.outboxRecordId : null,
    delivering: false,
    deliveredAt: null,
    requestedBy: { keyId: actor.principal.keyId, label: actor.principal.keyLabel },
    requestId: actor.requestId,
    runId: null,
    runningSince: null,
    finishedAt: null,
  };
  ports.store.saveNewJob({
    job,
    integration,
    ...(dispatch ? { dispatch } : {}),
    audit: auditEntry({
      id: ports.newId(),
      actor,
      occurredAt: now,
      action: 'integration_job.requested',
      entity: { type: 'integration_job', id: job.id },
      references: { integrationId: integration.id, provider, kind: req.kind, ...(dispatch ? { outboxRecordId: dispatch.outboxRecordId, manifestId: dispatch.manifestId } : {}) },
    }),
  });
  ports.store.queueAfterCommit({ organizationId: org, jobId: job.id });
  return job;
}

async function dispatchTarget(ports: IntegrationPorts, org: string, req: JobRequest): Promise<NonNullable<NewJobChange['dispatch']>> {
  if (!req.outboxRecordId) throw new ValidationError([{ pointer: '/outboxRecordId', detail: 'A PAYROLL_DISPATCH names the payroll outbox record to send (GET /reports/outbox).' }]);
  const record = await ports.store.getOutboxRecord(org, req.outboxRecordId);
  if (!record) throw new ValidationError([{ pointer: '/outboxRecordId', detail: `Payroll outbox record ${req.outboxRecordId} does not exist in this organization.` }]);
  if (record.status === 'SENT') {
    throw new AppError(PROBLEMS.OUTBOX_RECORD_SENT, `Payroll outbox record ${record.id} was sent${record.dispatchJobId ? ` by job ${record.dispatchJobId}` : ''}; payroll is never resent.`, {
      extensions: { dispatchJobId: record.dispatchJobId },
    });
  }
  const manifest = await ports.store.getManifest(org, record.manifestId);
  if (!manifest || manifest.status !== 'PUBLISHED') throw new ValidationError([{ pointer: '/outboxRecordId', detail: `The manifest of outbox record ${record.id} is not published.` }]);
  if (manifest.stale) throw manifestStale(manifest.id);
  const claim = await ports.store.dispatchClaim(org, record.id);
  if (claim && claim.state !== 'RELEASED') {
    throw new AppError(PROBLEMS.OUTBOX_RECORD_IN_DISPATCH, `Job ${claim.jobId} is dispatching payroll outbox record ${record.id}; follow it at GET /integrations/jobs/${claim.jobId}.`, { extensions: { jobId: claim.jobId } });
  }
  return { outboxRecordId: record.id, manifestId: manifest.id, ...(claim ? { releasedClaim: claim } : {}) };
}

export const manifestStale = (manifestId: string): AppError =>
  new AppError(
    PROBLEMS.EXPORT_MANIFEST_STALE,
    `Export manifest ${manifestId} is stale: entries it contains changed after it was generated, and payroll is never resent by itself. Request a replacement (POST /reports/generation-jobs with kind PAYROLL_DISPATCH and replacesManifestId), then dispatch the new outbox record.`,
    { extensions: { manifestId } },
  );
