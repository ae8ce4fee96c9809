import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { cursorParameter, nothingToChange, requiredName, sendsAField, utc } from '../shared/schemas/fields';
import { uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import { HEADER_SAFE_CREDENTIAL, INTEGRATION_STATUSES, JOB_KINDS, JOB_STATUSES, JOB_STEPS, PROVIDERS, type Integration, type IntegrationJob } from './model';

/**
 * Wire shapes of integrations and their jobs (docs/areas/integrations.md): strict requests,
 * and responses that list every member they show. Credentials are accepted, never shown:
 * a response says `credentialsSet` and when, nothing more.
 */

export const pageQuery = z.object({ limit: limitParameter(), cursor: cursorParameter() }).strict();

const credentialsBody = z
  .object({
    token: z
      .string({ error: 'credentials.token is required: the bearer token the provider issued.' })
      .min(8, { message: 'credentials.token has at least 8 characters.' })
      .max(4096, { message: 'credentials.token is at most 4096 characters.' })
      // Never echo the value: it is a secret.
      .regex(HEADER_SAFE_CREDENTIAL, { message: 'credentials.token must be printable ASCII without spaces or control characters (U+0021 to U+007E): it is sent in the Authorization header. The value is not shown here.' })
      .meta({ description: "The provider's API token, sent as `Authorization: Bearer`: printable ASCII without spaces (U+0021 to U+007E; anything else is 422, the value never echoed); stored in the secret store and never returned.", examples: ['prov-token-0123456789'] }),
  })
  .strict();

const baseUrl = z
  .string({ error: 'baseUrl is required: the https URL of the provider API.' })
  .trim()
  .max(2048, { message: 'baseUrl is at most 2048 characters.' })
  .meta({ description: 'The provider API: https only, a public host name.', examples: ['https://payroll.example.com/api'] });

const jobKinds = z.array(z.enum(JOB_KINDS, { error: `A job kind is one of ${JOB_KINDS.join(', ')}.` })).max(JOB_KINDS.length);

export const createIntegrationBody = z
  .object({
    provider: z.enum(PROVIDERS, { error: `provider must be one of ${PROVIDERS.join(', ')}.` }),
    displayName: requiredName('displayName', 100),
    baseUrl,
    approvedJobKinds: jobKinds.meta({ description: 'The job kinds this organization approves for the provider (a subset of the ones it supports).' }),
    credentials: credentialsBody.optional(),
  })
  .strict();

export const updateIntegrationBody = z
  .object({
    displayName: requiredName('displayName', 100).optional(),
    baseUrl: baseUrl.optional(),
    approvedJobKinds: jobKinds.optional(),
    status: z.enum(INTEGRATION_STATUSES, { error: `status must be ${INTEGRATION_STATUSES.join(' or ')}.` }).optional(),
  })
  .strict()
  .refine(sendsAField, nothingToChange());

export const setCredentialsBody = z.object({ credentials: credentialsBody }).strict();

export const requestJobBody = z
  .object({
    kind: z.enum(JOB_KINDS, { error: `kind must be one of ${JOB_KINDS.join(', ')}.` }),
    outboxRecordId: uuid().optional().meta({ description: 'PAYROLL_DISPATCH: the payroll outbox record to send (GET /reports/outbox).' }),
  })
  .strict();

/** What every route answering an integration says of it: appended to those routes' descriptions (area.ts). */
export const CREDENTIALS_NOTE = 'Credentials go to the secret store (AWS Secrets Manager) and are never returned, logged or audited: a response says `credentialsSet` and `credentialsUpdatedAt` only.';

export const integrationResponseSchema = z
  .object({
    id: z.uuid(),
    provider: z.enum(PROVIDERS),
    displayName: z.string(),
    baseUrl: z.string(),
    approvedJobKinds: z.array(z.enum(JOB_KINDS)),
    status: z.enum(INTEGRATION_STATUSES),
    credentialsSet: z.boolean().meta({ description: 'Whether credentials are in the secret store; they are never returned.' }),
    credentialsUpdatedAt: utc().nullable(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Integration' });

export const jobResponseSchema = z
  .object({
    id: z.uuid(),
    integrationId: z.uuid(),
    provider: z.enum(PROVIDERS),
    kind: z.enum(JOB_KINDS),
    status: z.enum(JOB_STATUSES),
    progress: z.object({ step: z.enum(JOB_STEPS), percent: z.number().int() }),
    attempts: z.number().int().meta({ description: 'Runs so far; a provider that does not answer is tried again with backoff, 5 runs at most.' }),
    nextAttemptAt: utc().nullable().meta({ description: 'QUEUED: not run before this.' }),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .meta({ description: 'FAILED: why (a safe summary, never the provider answer); QUEUED after a failed attempt: why that attempt failed.' }),
    outboxRecordId: z.uuid().nullable(),
    manifestId: z.uuid().nullable(),
    deliveryId: z.string().nullable().meta({ description: "The provider's idempotency key of the delivery: the outbox record id." }),
    deliveredAt: utc().nullable(),
    createdAt: utc(),
    updatedAt: utc(),
    finishedAt: utc().nullable(),
  })
  .meta({ id: 'IntegrationJob' });

export const integrationResponse = (i: Integration): z.infer<typeof integrationResponseSchema> => responseOf(integrationResponseSchema, i, {
  approvedJobKinds: [...i.approvedJobKinds],
});

export const jobResponse = (j: IntegrationJob): z.infer<typeof jobResponseSchema> => responseOf(jobResponseSchema, j, {
  progress: { step: j.progress.step, percent: j.progress.percent },
  nextAttemptAt: j.status === 'QUEUED' ? j.nextAttemptAt : null,
  error: j.error ? { code: j.error.code, message: j.error.message } : null,
});
