import { randomUUID } from 'node:crypto';
import { defaultDb } from '../shared/ddb/client';
import { NotFoundError } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPosition, nextCursor } from '../shared/http/list';
import { ok } from '../shared/http/request';
import { reportsArea } from './area';
import { FILE_FORMAT, jobEtag, manifestEtag, requestReport, type ReportPorts } from './domain';
import { fileDownloadResponse, jobPath, jobResponse, manifestResponse, manifestSummary, outboxResponse } from './schemas';
import { reportsStore } from './store';
import { presignedDownload } from './store-files';
import { getJob } from './store-jobs';
import { getManifest, listManifests, listOutbox, manifestEntries } from './store-manifests';
import { jobQueue } from './store-queue';

/** A manifest a client may see: PUBLISHED (pending and abandoned ones do not exist for it). */
async function publishedManifest(org: string, id: string) {
  const manifest = await getManifest(defaultDb(), org, id);
  if (!manifest || manifest.status !== 'PUBLISHED') throw new NotFoundError(`Export manifest ${id}`);
  return manifest;
}

type Position = Record<string, unknown>;

export const handler = areaHandler(reportsArea, {
  ports: (unit): ReportPorts => ({ store: reportsStore(defaultDb(), unit, jobQueue()), now: () => new Date(), newId: randomUUID }),
  operations: {
    async createReportJob(request) {
      const job = await requestReport(request.ports, request.actor, request.body);
      return { statusCode: 202, body: jobResponse(job), headers: { Location: jobPath(job) } };
    },

    async getReportJob({ principal, params }) {
      const job = await getJob(defaultDb(), principal.organizationId, params.jobId);
      if (!job) throw new NotFoundError(`Report job ${params.jobId}`);
      return ok(jobResponse(job), { ETag: jobEtag(job) });
    },

    async listReports(request) {
      const { binding, position } = await listPosition<Position>(request);
      const page = await listManifests(defaultDb(), request.principal.organizationId, { limit: request.query.limit ?? DEFAULT_LIMIT, startKey: position });
      return ok({ items: page.items.map(manifestSummary), nextCursor: await nextCursor(binding, page.last) });
    },

    async getReport({ principal, params }) {
      const manifest = await publishedManifest(principal.organizationId, params.manifestId);
      const entries = await manifestEntries(defaultDb(), manifest.organizationId, manifest.id);
      return ok(manifestResponse(manifest, entries), { ETag: manifestEtag(manifest) });
    },

    async downloadReport({ principal, params }) {
      const manifest = await publishedManifest(principal.organizationId, params.manifestId);
      if (!manifest.fileKey) throw new NotFoundError(`The file of export manifest ${manifest.id}`);
      const filename = `${manifest.kind.toLowerCase()}-${manifest.period.from.slice(0, 10)}-${manifest.id.slice(0, 8)}.${FILE_FORMAT[manifest.kind].extension}`;
      const download = await presignedDownload(manifest.fileKey, { filename, contentType: manifest.contentType ?? 'application/octet-stream' });
      // A redirect that every HTTP client can follow; the body says the same for those that do not.
      // The route's `noStore` adds Cache-Control: no-store (the URL is a secret until it expires).
      return {
        statusCode: 302,
        headers: { Location: download.url, ETag: `"${manifest.fileHash ?? manifest.contentHash}"` },
        body: fileDownloadResponse(manifest, download),
      };
    },

    async listPayrollOutbox(request) {
      const { binding, position } = await listPosition<Position>(request);
      const page = await listOutbox(defaultDb(), request.principal.organizationId, { limit: request.query.limit ?? DEFAULT_LIMIT, startKey: position });
      return ok({ items: page.items.map(outboxResponse), nextCursor: await nextCursor(binding, page.last) });
    },
  },
});
