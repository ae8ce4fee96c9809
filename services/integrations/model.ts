import * as z from 'zod';

/**
 * The entities of the integrations area as stored: each type is the output of its item
 * schema, and items are parsed with it on read. Keys (docs/areas/integrations.md lists the
 * access patterns):
 *   integration      PK ORG#<org>#INTEG#<id>             SK INTEG
 *                    GSI1 ORG#<org>#INTEGRATIONS / <createdAt>#<id>   the organization's integrations
 *   provider guard   PK ORG#<org>#INTEGPROV#<provider>   SK GUARD      one integration per provider
 *   job              PK ORG#<org>#IJOB#<id>              SK IJOB
 *                    GSI1 ORG#<org>#IJOBS / <createdAt>#<id>          the organization's jobs, newest first
 *                    GSI2 IJOB#DUE / <dueAt>#<org>#<id>               while QUEUED or RUNNING: the sweeper's due list
 *   dispatch claim   PK ORG#<org>#IDISPATCH#<outboxId>   SK CLAIM      the one live dispatch job of an outbox record
 * No item holds a credential: those live in the secret store under `integrations/<org>/<id>`.
 */

/** The providers an organization may connect, as named in the path (`/integrations/providers/{provider}/jobs`). */
export const PROVIDERS = ['payroll', 'accounting', 'hr'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const JOB_KINDS = ['PAYROLL_DISPATCH', 'CONNECTION_CHECK'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** The job kinds each provider supports; an integration approves a subset of them. */
export const SUPPORTED_JOB_KINDS: Readonly<Record<Provider, readonly JobKind[]>> = {
  payroll: ['PAYROLL_DISPATCH', 'CONNECTION_CHECK'],
  accounting: ['CONNECTION_CHECK'],
  hr: ['CONNECTION_CHECK'],
};

/**
 * A credential string as the worker can send it in an HTTP header (`Authorization: Bearer
 * <token>`): printable ASCII without the space, U+0021..U+007E. A control character (CR, LF)
 * would end the header (Node refuses to send it, so every job failed); a space is refused too:
 * a bearer token has none (RFC 6750 `b64token`), HTTP drops one at either end (the provider
 * would get another token than the one stored), and one inside splits the credential.
 */
export const HEADER_SAFE_CREDENTIAL = /^[\x21-\x7E]+$/;

export const INTEGRATION_STATUSES = ['ACTIVE', 'DISABLED'] as const;
export type IntegrationStatus = (typeof INTEGRATION_STATUSES)[number];

export const integrationSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    provider: z.enum(PROVIDERS),
    displayName: z.string(),
    /** Where the provider's API is (https; loopback http only in the local runtime). */
    baseUrl: z.string(),
    approvedJobKinds: z.array(z.enum(JOB_KINDS)).readonly(),
    status: z.enum(INTEGRATION_STATUSES),
    /** Whether the secret store holds credentials for it, and since when: never the credentials. */
    credentialsSet: z.boolean(),
    credentialsUpdatedAt: z.string().nullable(),
    /**
     * Which credentials in the secret store are this version's: each write stores them under a
     * new id, so a write that lost its race never replaces the winner's. Absent on records
     * written before (their credentials are under the integration's own name).
     */
    credentialsId: z.string().nullable().optional(),
    version: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .readonly();
export type Integration = z.output<typeof integrationSchema>;

export const JOB_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Where a run is: shown as the job's progress. */
export const JOB_STEPS = ['WAITING', 'PREPARING', 'DELIVERING', 'RECORDING', 'DONE'] as const;
export type JobStep = (typeof JOB_STEPS)[number];

/** A safe summary of why a job failed (or why its last attempt did): a code and a sentence we wrote, never a provider's body. */
const jobErrorSchema = z.object({ code: z.string(), message: z.string() }).readonly();
export type JobError = z.output<typeof jobErrorSchema>;

const requesterSchema = z.object({ keyId: z.string(), label: z.string() }).readonly();

export const integrationJobSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    integrationId: z.string(),
    provider: z.enum(PROVIDERS),
    kind: z.enum(JOB_KINDS),
    status: z.enum(JOB_STATUSES),
    progress: z.object({ step: z.enum(JOB_STEPS), percent: z.number().int() }).readonly(),
    /** Runs taken so far (a crashed run counts); at most MAX_ATTEMPTS. */
    attempts: z.number().int(),
    /** A QUEUED job is not run before this (the backoff after a failed attempt). */
    nextAttemptAt: z.string(),
    /** FAILED: why; QUEUED after a failed attempt: why that attempt failed. */
    error: jobErrorSchema.nullable(),
    /** PAYROLL_DISPATCH: the outbox record and the revision-pinned manifest it sends. */
    outboxRecordId: z.string().nullable(),
    manifestId: z.string().nullable(),
    /**
     * The provider's idempotency key: the outbox record id (stable across runs and jobs, so a
     * provider that received it once books it once). Set with `delivering` BEFORE the send.
     */
    deliveryId: z.string().nullable(),
    /** True from the moment a run may have sent: the next run asks the provider before sending again. */
    delivering: z.boolean(),
    deliveredAt: z.string().nullable(),
    requestedBy: requesterSchema,
    requestId: z.string(),
    runId: z.string().nullable(),
    runningSince: z.string().nullable(),
    finishedAt: z.string().nullable(),
    version: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .readonly();
export type IntegrationJob = z.output<typeof integrationJobSchema>;

/** What the queue carries to the worker. */
export interface JobMessage {
  readonly organizationId: string;
  readonly jobId: string;
}

const DUE_PARTITION = 'IJOB#DUE';

export const integrationKeys = {
  integration: (org: string, id: string) => ({ PK: `ORG#${org}#INTEG#${id}`, SK: 'INTEG' }),
  providerGuard: (org: string, provider: Provider) => ({ PK: `ORG#${org}#INTEGPROV#${provider}`, SK: 'GUARD' }),
  integrations: (org: string) => `ORG#${org}#INTEGRATIONS`,
  job: (org: string, id: string) => ({ PK: `ORG#${org}#IJOB#${id}`, SK: 'IJOB' }),
  jobs: (org: string) => `ORG#${org}#IJOBS`,
  due: (dueAt: string, org: string, id: string) => ({ GSI2PK: DUE_PARTITION, GSI2SK: `${dueAt}#${org}#${id}` }),
  duePartition: DUE_PARTITION,
  dispatchClaim: (org: string, outboxId: string) => ({ PK: `ORG#${org}#IDISPATCH#${outboxId}`, SK: 'CLAIM' }),
};

/** The name of an integration's credentials in the secret store: `integrations/<org>/<id>/<credentialsId>` (without the last part on records written before credential ids). */
export const credentialsSecretName = (i: Pick<Integration, 'organizationId' | 'id' | 'credentialsId'>): string => `integrations/${i.organizationId}/${i.id}${i.credentialsId ? `/${i.credentialsId}` : ''}`;

export const integrationToItem = (i: Integration): Record<string, unknown> => ({
  ...integrationKeys.integration(i.organizationId, i.id),
  GSI1PK: integrationKeys.integrations(i.organizationId),
  GSI1SK: `${i.createdAt}#${i.id}`,
  itemType: 'Integration',
  ...i,
});

export const providerGuardToItem = (i: Pick<Integration, 'organizationId' | 'provider' | 'id'>): Record<string, unknown> => ({
  ...integrationKeys.providerGuard(i.organizationId, i.provider),
  itemType: 'IntegrationProviderGuard',
  integrationId: i.id,
});

/** A new job: QUEUED and due (the sweeper sends it again if its message is lost). */
export const jobToItem = (j: IntegrationJob, dueAt: string): Record<string, unknown> => ({
  ...integrationKeys.job(j.organizationId, j.id),
  GSI1PK: integrationKeys.jobs(j.organizationId),
  GSI1SK: `${j.createdAt}#${j.id}`,
  ...integrationKeys.due(dueAt, j.organizationId, j.id),
  itemType: 'IntegrationJob',
  ...j,
});

export const integrationFromItem = (item: Record<string, unknown>): Integration => integrationSchema.parse(item);
export const jobFromItem = (item: Record<string, unknown>): IntegrationJob => integrationJobSchema.parse(item);
