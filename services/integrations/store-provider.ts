import { ProviderError, type PayrollDelivery, type ProviderClient, type ProviderTarget } from './domain-worker';

/**
 * The provider API over HTTPS (the fake payroll provider of `npm start` speaks the same):
 *   POST {baseUrl}/deliveries              Idempotency-Key: <deliveryId>   one payroll delivery
 *   GET  {baseUrl}/deliveries/{deliveryId}  200 booked, 404 not booked
 *   GET  {baseUrl}/ping                     200 when the credentials are accepted
 * Every call carries `Authorization: Bearer <token>` and gives up after 10 s. Answers are
 * classified by status only; a provider's body is never read into an error, a log or a job.
 */
export const PROVIDER_TIMEOUT_MS = 10_000;

type Fetch = typeof fetch;

async function call(fetcher: Fetch, what: string, url: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetcher(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch {
    throw new ProviderError('RETRYABLE', undefined, what);
  }
  return response;
}

const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

function classify(response: Response, what: string, accept: readonly number[] = []): void {
  if (response.ok || accept.includes(response.status)) return;
  throw new ProviderError(retryable(response.status) ? 'RETRYABLE' : 'REJECTED', response.status, what);
}

const headers = (target: ProviderTarget, extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${target.credentials.token}`, Accept: 'application/json', ...extra });

/** The wire body of a payroll delivery: the manifest, its exact entry revisions, and the file (base64). */
export function payrollDeliveryBody(d: PayrollDelivery): Record<string, unknown> {
  const m = d.manifest;
  return {
    deliveryId: d.deliveryId,
    organizationId: d.organizationId,
    outboxRecordId: d.outboxRecordId,
    manifest: {
      id: m.id,
      kind: m.kind,
      period: m.period,
      scope: m.scope,
      entryCount: m.entryCount,
      contentHash: m.contentHash,
      // The hash of the file's bytes as sent (manifests before the readable exports had one hash for both).
      fileHash: m.fileHash ?? m.contentHash,
      publishedAt: m.publishedAt,
      replacesManifestId: m.replacesManifestId,
      entries: d.entries.map((e) => ({ id: e.id, revision: e.revision })),
    },
    file: { contentType: d.file.contentType, encoding: 'base64', content: d.file.content.toString('base64') },
  };
}

export function httpProviderClient(fetcher: Fetch = fetch): ProviderClient {
  return {
    async deliverPayroll(target, delivery) {
      const response = await call(fetcher, 'Payroll delivery', `${target.baseUrl}/deliveries`, {
        method: 'POST',
        headers: headers(target, { 'Content-Type': 'application/json', 'Idempotency-Key': delivery.deliveryId }),
        body: JSON.stringify(payrollDeliveryBody(delivery)),
      });
      await response.body?.cancel();
      classify(response, 'Payroll delivery');
    },

    async deliveryReceived(target, deliveryId) {
      const response = await call(fetcher, 'Payroll delivery lookup', `${target.baseUrl}/deliveries/${encodeURIComponent(deliveryId)}`, { method: 'GET', headers: headers(target) });
      await response.body?.cancel();
      classify(response, 'Payroll delivery lookup', [404]);
      return response.status !== 404;
    },

    async checkConnection(target) {
      const response = await call(fetcher, 'Connection check', `${target.baseUrl}/ping`, { method: 'GET', headers: headers(target) });
      await response.body?.cancel();
      classify(response, 'Connection check');
    },
  };
}
