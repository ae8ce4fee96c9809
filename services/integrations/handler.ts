import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError, found } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPosition, nextCursor } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import { integrationsArea } from './area';
import { createIntegration, integrationEtag, jobEtag, LOOPBACK_ENV, requestJob, setCredentials, updateIntegration, type Integration, type IntegrationPorts } from './domain';
import { PROVIDERS, type Provider } from './model';
import { integrationResponse, jobResponse } from './schemas';
import { credentialStore, getIntegration, integrationsStore, listIntegrations } from './store';
import { getJob, listJobs } from './store-jobs';
import { jobQueue } from './store-queue';

const integrationPath = (orgPath: string, id: string) => `${orgPath}/integrations/${id}`;
const integrationResult = (i: Integration, status: 200 | 201, orgPath: string): HttpResult =>
  status === 201 ? created(integrationResponse(i), { ETag: integrationEtag(i), Location: integrationPath(orgPath, i.id) }) : ok(integrationResponse(i), { ETag: integrationEtag(i) });

function provider(name: string): Provider {
  if (!(PROVIDERS as readonly string[]).includes(name)) throw new NotFoundError(`Provider ${name}`);
  return name as Provider;
}

type Position = Record<string, unknown>;

export const handler = areaHandler(integrationsArea, {
  ports: (unit): IntegrationPorts => ({
    store: integrationsStore(defaultDb(), unit, jobQueue()),
    credentials: credentialStore(unit),
    now: () => new Date(),
    newId: randomUUID,
    allowLoopbackHttp: process.env[LOOPBACK_ENV] === 'true',
  }),
  operations: {
    async listIntegrations(request) {
      const { binding, position } = await listPosition<Position>(request);
      const page = await listIntegrations(defaultDb(), request.principal.organizationId, request.query.limit ?? DEFAULT_LIMIT, position);
      return ok({ items: page.items.map(integrationResponse), nextCursor: await nextCursor(binding, page.last) });
    },

    createIntegration: async (r) => integrationResult(await createIntegration(r.ports, r.actor, r.body), 201, r.orgPath),

    getIntegration: async (request) => integrationResult(found(await getIntegration(defaultDb(), request.principal.organizationId, request.params.integrationId), `Integration ${request.params.integrationId}`), 200, request.orgPath),

    updateIntegration: async (r) => integrationResult(await updateIntegration(r.ports, r.actor, r.params.integrationId, r.ifMatch, r.body), 200, r.orgPath),

    setIntegrationCredentials: async (r) => integrationResult(await setCredentials(r.ports, r.actor, provider(r.params.provider), r.ifMatch, r.body.credentials), 200, r.orgPath),

    async listIntegrationJobs(request) {
      const { binding, position } = await listPosition<Position>(request);
      const page = await listJobs(defaultDb(), request.principal.organizationId, request.query.limit ?? DEFAULT_LIMIT, position);
      return ok({ items: page.items.map(jobResponse), nextCursor: await nextCursor(binding, page.last) });
    },

    async getIntegrationJob({ principal, params }) {
      const job = await getJob(defaultDb(), principal.organizationId, params.jobId);
      if (!job) throw new NotFoundError(`Integration job ${params.jobId}`);
      return ok(jobResponse(job), { ETag: jobEtag(job) });
    },

    async requestIntegrationJob(request) {
      const job = await requestJob(request.ports, request.actor, provider(request.params.provider), request.body);
      return { statusCode: 202, body: jobResponse(job), headers: { Location: `${request.orgPath}/integrations/jobs/${job.id}` } };
    },
  },
});
