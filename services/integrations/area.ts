import { defineArea } from '../shared/area';
import { createRoute, jobRoute, listRoute, readRoute, updateRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { PROBLEMS } from './problems';
import { createIntegrationBody, CREDENTIALS_NOTE, integrationResponseSchema, jobResponseSchema, pageQuery, requestJobBody, setCredentialsBody, updateIntegrationBody } from './schemas';

/** Connected providers (payroll, accounting, HR), their approved job kinds and credentials, and their jobs with the worker behind them. */
export const integrationsArea = defineArea({
  name: 'integrations',
  api: 'public',
  description: 'Connected providers (payroll, accounting, HR) with their approved job kinds, status and credentials (kept in the secret store), and the jobs run against them, such as the exactly-once payroll dispatch.',
  // Integrations, provider guards, jobs, dispatch claims; checks the reports outbox and manifest; writes credentials to the secret store.
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false, integrationSecrets: ['write'], jobQueues: ['integrations'] },
  problems: PROBLEMS,
  auditEntityTypes: ['integration', 'integration_job'],
  schemas: { Integration: integrationResponseSchema, IntegrationList: pageSchema(integrationResponseSchema), IntegrationJob: jobResponseSchema, IntegrationJobList: pageSchema(jobResponseSchema) },
  functions: [
    {
      name: 'integrations-worker',
      entry: 'services/integrations/handler-worker.ts',
      description: 'Integration jobs (payroll dispatch)',
      timeoutSeconds: 60,
      // Runs jobs: reads jobs, integrations, the outbox record, manifest and entries; moves jobs; records a dispatch in one transaction; reads credentials; reads the export file it delivers.
      permissions: { table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem'], cursorSecret: false, restrictedDataKey: false, integrationSecrets: ['read'], reportsBucket: [{ prefix: 'reports/', actions: ['s3:GetObject'] }], jobQueues: ['integrations'] },
    },
    {
      name: 'integrations-sweeper',
      entry: 'services/integrations/handler-sweeper.ts',
      description: 'Re-queues due integration jobs',
      timeoutSeconds: 60,
      // Reads the due list (GSI2) and moves a job's due time on; sends to the queue.
      permissions: { table: ['Query', 'UpdateItem'], cursorSecret: false, restrictedDataKey: false, jobQueues: ['integrations'] },
    },
  ],
  routes: {
    listIntegrations: listRoute({
      path: '/integrations',
      scopes: ['integrations:read'],
      summary: 'Connected providers',
      description: `The organization's integrations, newest first: provider, approved job kinds, status, whether credentials are set. ${CREDENTIALS_NOTE}`,
      query: pageQuery,
      schema: pageSchema(integrationResponseSchema),
      returns: 'A page of integrations.',
    }),
    createIntegration: createRoute({
      path: '/integrations',
      scopes: ['integrations:write'],
      summary: 'Connect a provider',
      description: `Connects one provider (\`payroll\`, \`accounting\` or \`hr\`; one integration each, else 409 \`INTEGRATION_EXISTS\`) with the job kinds the organization approves (a subset of the ones the provider supports, else 422) and its API base URL (https to a public host; 422 otherwise). Credentials may be given here or later. ${CREDENTIALS_NOTE}`,
      body: createIntegrationBody,
      schema: integrationResponseSchema,
      returns: 'The integration.',
      problems: [PROBLEMS.INTEGRATION_EXISTS],
    }),
    listIntegrationJobs: listRoute({
      path: '/integrations/jobs',
      scopes: ['integrations:read'],
      summary: 'Integration jobs, newest first',
      description: 'Every job of the organization, newest first, with status, progress, attempts and the safe error summary.',
      query: pageQuery,
      schema: pageSchema(jobResponseSchema),
      returns: 'A page of jobs.',
    }),
    getIntegrationJob: readRoute({
      path: '/integrations/jobs/{jobId}',
      scopes: ['integrations:read'],
      summary: 'Progress and result of an integration job',
      description: 'QUEUED -> RUNNING -> SUCCEEDED | FAILED, with progress, attempts, the next attempt of a retried job and a safe error summary. The ETag changes with every move.',
      schema: jobResponseSchema,
      returns: 'The job.',
    }),
    getIntegration: readRoute({
      path: '/integrations/{integrationId}',
      scopes: ['integrations:read'],
      summary: 'One integration',
      description: `One integration. ${CREDENTIALS_NOTE}`,
      schema: integrationResponseSchema,
      returns: 'The integration.',
    }),
    updateIntegration: updateRoute({
      path: '/integrations/{integrationId}',
      scopes: ['integrations:write'],
      summary: 'Change an integration (name, URL, approved job kinds, status)',
      description: 'Changes the fields sent. `status: DISABLED` stops new jobs (409 `INTEGRATION_DISABLED`) and jobs not yet run; nothing is deleted. A change to the current values changes nothing (same ETag).',
      body: updateIntegrationBody,
      idempotencyKey: 'required',
      schema: integrationResponseSchema,
      returns: 'The integration after the change.',
    }),
    setIntegrationCredentials: {
      method: 'PUT',
      path: '/integrations/providers/{provider}/credentials',
      scopes: ['integrations:write'],
      summary: "Set or replace an integration's credentials",
      description: `Writes the credentials of the provider's integration (\`payroll\`, \`accounting\`, \`hr\`; If-Match is the integration's ETag) to the secret store, then records when they were set (the audit entry names the attribute, never the value). ${CREDENTIALS_NOTE}`,
      textParams: ['provider'],
      body: setCredentialsBody,
      ifMatch: 'required',
      idempotencyKey: 'required',
      success: { status: 200, description: 'The integration, `credentialsSet: true`.', schema: integrationResponseSchema, headers: ['ETag'] },
      problems: [],
    },
    requestIntegrationJob: jobRoute({
      path: '/integrations/providers/{provider}/jobs',
      scopes: ['integrations:write'],
      summary: 'Request an approved integration job',
      description:
        'Requests a job of the provider (`payroll`, `accounting`, `hr`; another name is 404) for a kind its integration approved (others 422). ' +
        '`PAYROLL_DISPATCH` sends exactly the revision-pinned manifest of a PENDING payroll outbox record (`outboxRecordId`, from GET /reports/outbox), exactly once: ' +
        '409 `OUTBOX_RECORD_SENT` once it was sent, `OUTBOX_RECORD_IN_DISPATCH` while another job sends it, `EXPORT_MANIFEST_STALE` when its entries changed (a stale manifest is never sent; request a replacement dispatch, then send its record). ' +
        'Answers 202 with the QUEUED job; a provider that does not answer is tried again with backoff.',
      textParams: ['provider'],
      body: requestJobBody,
      schema: jobResponseSchema,
      returns: 'The queued job.',
      problems: [PROBLEMS.INTEGRATION_DISABLED, PROBLEMS.INTEGRATION_CREDENTIALS_MISSING, PROBLEMS.OUTBOX_RECORD_SENT, PROBLEMS.OUTBOX_RECORD_IN_DISPATCH, PROBLEMS.EXPORT_MANIFEST_STALE],
    }),
  },
});
