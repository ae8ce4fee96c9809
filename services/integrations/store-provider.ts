import { promises as dns, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressClass, egressAddressAllowed } from './domain';
import { ProviderError, type PayrollDelivery, type ProviderClient, type ProviderTarget } from './domain-worker';

/**
 * The provider API over HTTPS (the fake payroll provider of `npm start` speaks the same):
 *   POST {baseUrl}/deliveries              Idempotency-Key: <deliveryId>   one payroll delivery
 *   GET  {baseUrl}/deliveries/{deliveryId}  200 booked, 404 not booked
 *   GET  {baseUrl}/ping                     200 when the credentials are accepted
 * Every call carries `Authorization: Bearer <token>` and gives up after 10 s. Answers are
 * classified by status only; a provider's body is never read into an error, a log or a job.
 *
 * Egress (no SSRF, also not by DNS): the socket's own `lookup` resolves the host (every
 * address), refuses the call when ANY address is not public (`addressClass`: loopback,
 * private, link-local, CGNAT, reserved, unique-local, mapped forms...), and hands exactly the
 * checked addresses to the connect, so a name that changes its answer (DNS rebinding) cannot
 * slip between check and connect. An IP literal (never looked up) is checked the same way.
 * TLS still verifies the certificate against the URL's host name. http: and loopback
 * addresses only with `allowLoopback` (the local runtime's fake provider on 127.0.0.1).
 */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** Every address of a host name (node:dns `lookup` by default: what the operating system resolves). */
export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface ProviderHttpOptions {
  /** The local runtime only (INTEGRATIONS_ALLOW_LOOPBACK_HTTP): loopback addresses, and http: to them. */
  readonly allowLoopback?: boolean;
  readonly resolve?: Resolve;
  readonly timeoutMs?: number;
}

/** The egress policy refused the provider's address: never carries the host or the address. */
class AddressRefused extends Error {
  constructor() {
    super('The provider address is refused by the egress policy.');
    this.name = 'AddressRefused';
  }
}

const noAddress = (): NodeJS.ErrnoException => Object.assign(new Error('The provider host has no address.'), { code: 'ENOTFOUND' });

/**
 * The socket's lookup: resolves every address, refuses when any is not allowed, and answers
 * with the checked addresses only (all of them when the socket asks for all: Happy Eyeballs).
 */
function checkedLookup(resolve: Resolve, allowed: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    const answer = (addresses: readonly LookupAddress[]): void => {
      if (addresses.length === 0) return callback(noAddress(), '');
      if (addresses.some((a) => !allowed(a.address))) return callback(new AddressRefused(), '');
      const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
      const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
      if (usable.length === 0) return callback(noAddress(), '');
      if (options.all) return callback(null, usable.map((a) => ({ address: a.address, family: a.family })));
      return callback(null, usable[0].address, usable[0].family);
    };
    resolve(hostname).then(answer, (error: unknown) => callback(error as NodeJS.ErrnoException, ''));
  };
}

interface Call {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** What fetch's `redirect: 'error'` refused (a network error, so RETRYABLE): no redirect is ever followed. */
const REDIRECTS = [301, 302, 303, 307, 308];

const refused = (what: string) => new ProviderError('REJECTED', undefined, what, 'ADDRESS_REFUSED');

/** One call; the answer's status (its body is discarded unread), or a ProviderError. */
async function send(options: ProviderHttpOptions, what: string, call: Call): Promise<number> {
  const allowLoopback = options.allowLoopback === true;
  let url: URL;
  try {
    url = new URL(call.url);
  } catch {
    throw refused(what);
  }
  // https: to public addresses (and loopback ones locally); http: only locally, and only to loopback.
  const tls = url.protocol === 'https:';
  if (!tls && !(url.protocol === 'http:' && allowLoopback)) throw refused(what);
  const allowed = tls ? (address: string) => egressAddressAllowed(address, allowLoopback) : (address: string) => addressClass(address) === 'LOOPBACK';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  // A literal is connected to without a lookup: check it here.
  if (isIP(host) !== 0 && !allowed(host)) throw refused(what);
  const body = call.body === undefined ? undefined : Buffer.from(call.body);
  const request: RequestOptions = {
    hostname: host,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    method: call.method,
    headers: { ...call.headers, ...(body ? { 'Content-Length': String(body.length) } : {}) },
    lookup: checkedLookup(options.resolve ?? systemResolve, allowed),
    // A fresh connection per call: no pooled socket checked under another client's policy.
    agent: false,
    // The certificate is verified (default) against the host name, not the address connected to.
    ...(tls && isIP(host) === 0 ? { servername: host } : {}),
  };
  return new Promise<number>((resolve, reject) => {
    const req = (tls ? httpsRequest : httpRequest)(request, (res: IncomingMessage) => {
      clearTimeout(timer);
      const status = res.statusCode ?? 0;
      res.destroy(); // never read: a provider's body goes nowhere
      if (REDIRECTS.includes(status)) reject(new ProviderError('RETRYABLE', undefined, what));
      else resolve(status);
    });
    const timer = setTimeout(() => req.destroy(new Error('The provider did not answer in time.')), options.timeoutMs ?? PROVIDER_TIMEOUT_MS);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error instanceof AddressRefused ? refused(what) : new ProviderError('RETRYABLE', undefined, what));
    });
    req.end(body);
  });
}

const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

function classify(status: number, what: string, accept: readonly number[] = []): void {
  if ((status >= 200 && status <= 299) || accept.includes(status)) return;
  throw new ProviderError(retryable(status) ? 'RETRYABLE' : 'REJECTED', status, what);
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

/**
 * The URL of one provider endpoint: `path` appended to the base URL's path. Built on the parsed
 * URL, not on its text, so nothing a stored base URL carries after its path (an empty `?` or `#`
 * in a record written before those were refused) can send the call to another path, and a
 * trailing slash does not double.
 */
export function endpoint(baseUrl: string, path: string): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.href;
}

/** The provider client over HTTPS; `options.resolve` replaces node:dns in tests, `allowLoopback` is the local runtime's. */
export function httpProviderClient(options: ProviderHttpOptions = {}): ProviderClient {
  return {
    async deliverPayroll(target, delivery) {
      const status = await send(options, 'Payroll delivery', {
        method: 'POST',
        url: endpoint(target.baseUrl, '/deliveries'),
        headers: headers(target, { 'Content-Type': 'application/json', 'Idempotency-Key': delivery.deliveryId }),
        body: JSON.stringify(payrollDeliveryBody(delivery)),
      });
      classify(status, 'Payroll delivery');
    },

    async deliveryReceived(target, deliveryId) {
      const status = await send(options, 'Payroll delivery lookup', { method: 'GET', url: endpoint(target.baseUrl, `/deliveries/${encodeURIComponent(deliveryId)}`), headers: headers(target) });
      classify(status, 'Payroll delivery lookup', [404]);
      return status !== 404;
    },

    async checkConnection(target) {
      const status = await send(options, 'Connection check', { method: 'GET', url: endpoint(target.baseUrl, '/ping'), headers: headers(target) });
      classify(status, 'Connection check');
    },
  };
}
