import { legacyAreaNamed } from '../legacy-areas';
import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { createHandler } from '../shared/http/handler';
import { idempotentWrite, toStored } from '../shared/http/idempotent';
import { cursorBinding, DEFAULT_LIMIT, nextCursor, readCursor } from '../shared/http/list';
import { requireIdempotencyKey } from '../shared/http/preconditions';
import { ok, type ApiRequest, type HttpResult } from '../shared/http/request';
import { parseBody, parseQuery } from '../shared/http/validation';
import type { JsonValue } from '../shared/json';
import { isUuid } from '../shared/time';
import { requestReport, type ReportDeps } from './commands';
import { FILE_FORMAT } from './domain';
import { fileStore } from './files';
import { enqueueReportJob } from './queue';
import { createJobBodySchema, jobPath, jobResponse, manifestSummary, outboxResponse, pageQuery } from './schemas';
import { getJob, getManifest, listManifests, listOutbox, manifestEntries } from './store';

let deps: ReportDeps | undefined;
const reportDeps = (): ReportDeps => (deps ??= { db: defaultDb(), now: () => new Date(), newId: randomUUID });


function idOf(request: ApiRequest, name: string, what: string): string {
  const id = request.pathParameters[name] ?? '';
  if (!isUuid(id)) throw new NotFoundError(`${what} ${id}`);
  return id.toLowerCase();
}

async function publishedManifest(request: ApiRequest) {
  const id = idOf(request, 'manifestId', 'Export manifest');
  const manifest = await getManifest(reportDeps().db, request.principal.organizationId, id);
  if (!manifest || manifest.status !== 'PUBLISHED') throw new NotFoundError(`Export manifest ${id}`);
  return manifest;
}

export const handler = createHandler({
  area: legacyAreaNamed('reports'),
  operations: {
    async createReportJob(request) {
      const key = requireIdempotencyKey(request);
      const body = parseBody(createJobBodySchema, request.body);
      const d = reportDeps();
      const input: JsonValue = { body: (request.body ?? null) as JsonValue };
      const result = await idempotentWrite(d.db, request, key, input, async (complete) => {
        const respond = (job: Parameters<typeof jobResponse>[0]): HttpResult => ({ statusCode: 202, body: jobResponse(job), headers: { Location: jobPath(job) } });
        const job = await requestReport(d, { principal: request.principal, requestId: request.requestId }, body, async (planned) => [await complete(toStored(respond(planned)))]);
        await enqueueReportJob({ organizationId: job.organizationId, jobId: job.id });
        return respond(job);
      });
      return result;
    },

    async getReportJob(request) {
      const id = idOf(request, 'jobId', 'Report job');
      const job = await getJob(reportDeps().db, request.principal.organizationId, id);
      if (!job) throw new NotFoundError(`Report job ${id}`);
      return ok(jobResponse(job));
    },

    async listReports(request) {
      const query = parseQuery(pageQuery, request.query);
      const binding = cursorBinding(request, query);
      const page = await listManifests(reportDeps().db, request.principal.organizationId, { limit: query.limit ?? DEFAULT_LIMIT, startKey: await readCursor(binding, query.cursor) });
      return ok({ items: page.items.map(manifestSummary), nextCursor: await nextCursor(binding, page.last) });
    },

    async getReport(request) {
      const manifest = await publishedManifest(request);
      const entries = await manifestEntries(reportDeps().db, manifest.organizationId, manifest.id);
      return ok({ ...manifestSummary(manifest), entries });
    },

    async downloadReport(request) {
      const manifest = await publishedManifest(request);
      const file = manifest.fileKey ? await fileStore().get(manifest.fileKey) : undefined;
      if (!file) throw new NotFoundError(`The file of export manifest ${manifest.id}`);
      const name = `${manifest.kind.toLowerCase()}-${manifest.period.from.slice(0, 10)}-${manifest.id.slice(0, 8)}.${FILE_FORMAT[manifest.kind].extension}`;
      return {
        statusCode: 200,
        contentType: manifest.contentType ?? 'application/octet-stream',
        headers: { 'Content-Disposition': `attachment; filename="${name}"`, ETag: `"${manifest.contentHash}"` },
        file,
      };
    },

    async listPayrollOutbox(request) {
      const query = parseQuery(pageQuery, request.query);
      const binding = cursorBinding(request, query);
      const page = await listOutbox(reportDeps().db, request.principal.organizationId, { limit: query.limit ?? DEFAULT_LIMIT, startKey: await readCursor(binding, query.cursor) });
      return ok({ items: page.items.map(outboxResponse), nextCursor: await nextCursor(binding, page.last) });
    },
  },
});
