import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The fake payroll provider of the local runtime: an HTTP endpoint inside `npm start` (and the
 * tests' gateway) at `/_fake/payroll`, outside the API, speaking the provider protocol the
 * integrations worker uses (services/integrations/store-provider.ts):
 *
 *   POST /_fake/payroll/deliveries              books one delivery per Idempotency-Key (201; a
 *                                               repeated key is answered 200 and booked once)
 *   GET  /_fake/payroll/deliveries/{deliveryId} 200 with what was booked, 404 if nothing was
 *   GET  /_fake/payroll/ping                    200 with any bearer token, else 401
 *   GET  /_fake/payroll/deliveries              what it received: every booked delivery (the
 *                                               manifest, its entry revisions, the file's hash)
 *                                               and how many repeated deliveries it ignored
 *   POST /_fake/payroll/_fail-next              {"status":503,"times":2}: answer the next
 *                                               deliveries and pings with that status (to watch retries)
 *   POST /_fake/payroll/_reset                  forgets everything
 *
 * It keeps no token: it only checks that one was sent. State lives in this process.
 */
export const FAKE_PAYROLL_PREFIX = '/_fake/payroll';

export interface BookedDelivery {
  readonly deliveryId: string;
  readonly receivedAt: string;
  readonly outboxRecordId: string | null;
  readonly manifestId: string | null;
  readonly replacesManifestId: string | null;
  readonly period: unknown;
  readonly entryCount: number | null;
  readonly entries: readonly { readonly id: string; readonly revision: number }[];
  readonly contentHash: string | null;
  /** sha256 of the file bytes as received: equals the manifest's contentHash when the file arrived intact. */
  readonly fileSha256: string | null;
  readonly fileBytes: number;
}

export class FakePayrollProvider {
  readonly #deliveries = new Map<string, BookedDelivery>();
  #duplicatesIgnored = 0;
  #requests = 0;
  #failNext: { status: number; times: number } | undefined;

  /** Every delivery booked, in arrival order. */
  deliveries(): BookedDelivery[] {
    return [...this.#deliveries.values()];
  }

  /** POST /deliveries requests seen (failed, booked and repeated ones). */
  get requests(): number {
    return this.#requests;
  }

  get duplicatesIgnored(): number {
    return this.#duplicatesIgnored;
  }

  failNext(status: number, times = 1): void {
    this.#failNext = { status, times };
  }

  reset(): void {
    this.#deliveries.clear();
    this.#duplicatesIgnored = 0;
    this.#requests = 0;
    this.#failNext = undefined;
  }

  /** Books a delivery (the HTTP handler's and the in-process tests' entry): 201 new, 200 repeated, or the injected failure. */
  receive(deliveryId: string, body: Record<string, unknown>): { status: number; delivery?: BookedDelivery } {
    this.#requests += 1;
    const injected = this.#injectedFailure();
    if (injected) return { status: injected };
    const existing = this.#deliveries.get(deliveryId);
    if (existing) {
      this.#duplicatesIgnored += 1;
      return { status: 200, delivery: existing };
    }
    const manifest = (body.manifest ?? {}) as Record<string, unknown>;
    const file = (body.file ?? {}) as Record<string, unknown>;
    const bytes = typeof file.content === 'string' ? Buffer.from(file.content, 'base64') : undefined;
    const delivery: BookedDelivery = {
      deliveryId,
      receivedAt: new Date().toISOString(),
      outboxRecordId: typeof body.outboxRecordId === 'string' ? body.outboxRecordId : null,
      manifestId: typeof manifest.id === 'string' ? manifest.id : null,
      replacesManifestId: typeof manifest.replacesManifestId === 'string' ? manifest.replacesManifestId : null,
      period: manifest.period ?? null,
      entryCount: typeof manifest.entryCount === 'number' ? manifest.entryCount : null,
      entries: Array.isArray(manifest.entries) ? (manifest.entries as { id: string; revision: number }[]).map((e) => ({ id: e.id, revision: e.revision })) : [],
      contentHash: typeof manifest.contentHash === 'string' ? manifest.contentHash : null,
      fileSha256: bytes ? `sha256:${createHash('sha256').update(bytes).digest('hex')}` : null,
      fileBytes: bytes?.length ?? 0,
    };
    this.#deliveries.set(deliveryId, delivery);
    return { status: 201, delivery };
  }

  /** The status of an injected failure to answer now, if one is pending. */
  #injectedFailure(): number | undefined {
    if (!this.#failNext || this.#failNext.times <= 0) return undefined;
    this.#failNext.times -= 1;
    return this.#failNext.status;
  }

  lookup(deliveryId: string): BookedDelivery | undefined {
    return this.#deliveries.get(deliveryId);
  }

  /** Serves `path` (below FAKE_PAYROLL_PREFIX). */
  handle(req: IncomingMessage, res: ServerResponse, path: string, body: string | undefined): void {
    const method = (req.method ?? 'GET').toUpperCase();
    const rest = path.slice(FAKE_PAYROLL_PREFIX.length) || '/';
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const parsed = (): Record<string, unknown> | undefined => {
      try {
        const value: unknown = JSON.parse(body || '{}');
        return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    };
    if (method === 'GET' && rest === '/deliveries') return json(200, { items: this.deliveries(), duplicatesIgnored: this.#duplicatesIgnored, requests: this.#requests });
    if (method === 'POST' && rest === '/_fail-next') {
      const input = parsed();
      const status = Number(input?.status ?? 503);
      this.failNext(Number.isInteger(status) && status >= 400 && status <= 599 ? status : 503, Math.max(1, Math.min(10, Number(input?.times ?? 1) || 1)));
      return json(200, { failNext: this.#failNext });
    }
    if (method === 'POST' && rest === '/_reset') {
      this.reset();
      return json(200, { reset: true });
    }
    const auth = req.headers.authorization ?? '';
    if (!/^Bearer \S+/.test(auth)) return json(401, { error: 'unauthorized' });
    if (method === 'GET' && rest === '/ping') {
      const injected = this.#injectedFailure();
      return injected ? json(injected, { error: 'injected failure' }) : json(200, { ok: true });
    }
    if (method === 'POST' && rest === '/deliveries') {
      const key = req.headers['idempotency-key'];
      const input = parsed();
      if (typeof key !== 'string' || key === '' || !input) return json(400, { error: 'Idempotency-Key and a JSON body are required' });
      const { status, delivery } = this.receive(key, input);
      return delivery ? json(status, { deliveryId: delivery.deliveryId, status: 'RECEIVED', duplicate: status === 200 }) : json(status, { error: 'injected failure' });
    }
    const lookup = /^\/deliveries\/([^/]+)$/.exec(rest);
    if (method === 'GET' && lookup) {
      const found = this.lookup(decodeURIComponent(lookup[1]));
      return found ? json(200, { ...found, status: 'RECEIVED' }) : json(404, { error: 'not found' });
    }
    return json(404, { error: 'no such fake provider route' });
  }
}

/** The one fake payroll provider of this process (the local gateway serves it). */
export const fakePayroll = new FakePayrollProvider();
