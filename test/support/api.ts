import { createHash } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalGateway, type LocalGateway } from '../../services/local/gateway';
import { seedDemo, type DemoData } from '../../services/local/seed';
import type { Db } from '../../services/shared/ddb/client';
import { createTestTable } from './table';

/**
 * The API as a client sees it, for test/api: a fresh table with the demo seed, and the local
 * gateway (real authorizer, real handlers, API-Gateway-shaped events) on a free port.
 *
 *   const api = await startApi();
 *   afterAll(() => api.close());
 *   const res = await call('GET', `${api.orgUrl()}/timesheets`, { token: api.demo.keys.admin });
 */
export interface ApiFixture {
  readonly db: Db;
  readonly demo: DemoData;
  readonly gateway: LocalGateway;
  /** `<gateway>/v1/organizations/<organizationId>`; the demo organization by default. */
  orgUrl(organizationId?: string): string;
  close(): Promise<void>;
}

export interface StartApiOptions {
  readonly seedSecret?: string;
  /** @default 0: every request runs the authorizer (no policy cache between tests). */
  readonly authorizerCacheSeconds?: number;
  /** @default - no per-key throttling */
  readonly perKeyThrottle?: { readonly rateLimit: number; readonly burstLimit: number };
  /** @default - no access log */
  readonly accessLogPath?: string;
}

export async function startApi(options: StartApiOptions = {}): Promise<ApiFixture> {
  const db = await createTestTable();
  const demo = await seedDemo(db, options.seedSecret ?? 'api-test-seed-secret');
  const gateway = await startLocalGateway({
    port: 0,
    host: '127.0.0.1',
    authorizerCacheSeconds: options.authorizerCacheSeconds ?? 0,
    ...(options.perKeyThrottle ? { perKeyThrottle: options.perKeyThrottle } : {}),
    ...(options.accessLogPath ? { accessLogPath: options.accessLogPath } : {}),
  });
  return {
    db,
    demo,
    gateway,
    orgUrl: (organizationId = demo.organizationId) => `${gateway.url}/v1/organizations/${organizationId}`,
    close: () => gateway.close(),
  };
}

export interface CallOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Serialized as JSON with `Content-Type: application/json`. */
  readonly body?: unknown;
  /** Sent as it is (with `headers` naming the Content-Type), instead of `body`. */
  readonly rawBody?: string;
  readonly idempotencyKey?: string;
  readonly ifMatch?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A response with its body read once: `text` as received, `body` parsed when it is JSON. */
export interface ApiResponse<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: T;
  /** The X-Request-Id header. */
  readonly requestId: string | null;
}

export async function call<T = any>(method: string, url: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {
    ...(options.token !== undefined ? { Authorization: `Bearer ${options.token}` } : {}),
    ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...(options.idempotencyKey !== undefined ? { 'Idempotency-Key': options.idempotencyKey } : {}),
    ...(options.ifMatch !== undefined ? { 'If-Match': options.ifMatch } : {}),
    ...options.headers,
  };
  const res = await fetch(url, {
    method,
    headers,
    body: options.rawBody ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined),
  });
  const text = await res.text();
  let body: unknown = undefined;
  if (text !== '' && /json/.test(res.headers.get('content-type') ?? '')) body = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, body: body as T, requestId: res.headers.get('x-request-id') };
}

/** Appends query parameters (undefined values left out), percent-encoded. */
export function withQuery(url: string, query: Readonly<Record<string, string | number | undefined>>): string {
  const params = Object.entries(query)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return params.length === 0 ? url : `${url}${url.includes('?') ? '&' : '?'}${params.join('&')}`;
}

/**
 * Asserts an RFC 9457 problem as decisions.md shapes it: status, `code`, `application/problem+json`,
 * `X-Request-Id` equal to the body's `requestId`, and the standard members. Returns the body.
 */
export function expectProblem(res: ApiResponse, status: number, code: string): any {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.body).toMatchObject({
    type: expect.stringMatching(/^https:\/\//),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    code,
    requestId: res.requestId,
  });
  return res.body;
}

/** Asserts a 422 VALIDATION_ERROR whose `errors` name exactly these body pointers (any order). */
export function expectPointers(res: ApiResponse, pointers: readonly string[]): void {
  const body = expectProblem(res, 422, 'VALIDATION_ERROR');
  expect(body.errors.map((e: { pointer?: string }) => e.pointer).sort()).toEqual([...pointers].sort());
  for (const e of body.errors) expect(e.detail).toEqual(expect.any(String));
}

/** Asserts a 422 VALIDATION_ERROR naming these query parameters. */
export function expectParameters(res: ApiResponse, parameters: readonly string[]): void {
  const body = expectProblem(res, 422, 'VALIDATION_ERROR');
  expect(body.errors.map((e: { parameter?: string }) => e.parameter).sort()).toEqual([...parameters].sort());
}

/** Every item of the table (a Scan is fine in a test; the service itself never scans). */
export async function scanTable(db: Db): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.doc.send(new ScanCommand({ TableName: db.tableName, ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * A digest of the table's entity state, to prove a request wrote nothing. An API key's last use
 * (`lastUsedAt`, `lastRoute`) is left out: the authorizer records it on any authenticated
 * request, including the refused ones, and it is telemetry, not an entity's state.
 */
export async function tableFingerprint(db: Db): Promise<string> {
  const items = (await scanTable(db)).map((item) => {
    if (!String(item.PK).startsWith('KEY#')) return sortedJson(item);
    const { lastUsedAt: _at, lastRoute: _route, ...rest } = item;
    return sortedJson(rest);
  });
  return createHash('sha256').update(JSON.stringify(items.sort())).digest('hex');
}

/** JSON with object members in name order: DynamoDB Local may return an updated item's attributes in another order. */
const sortedJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));

export async function itemsOfType(db: Db, itemType: string): Promise<Record<string, any>[]> {
  return (await scanTable(db)).filter((i) => i.itemType === itemType);
}

/** How many items of each `itemType` the table holds: compare before and after a rejected write. */
export async function countByType(db: Db): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const item of await scanTable(db)) counts[item.itemType] = (counts[item.itemType] ?? 0) + 1;
  return counts;
}

/** The key id of a `<prefix><key-id>.<secret>` token (the audit actor's keyId). */
export const keyIdOf = (token: string): string => {
  const m = /^wfm_(?:test|live)_([a-z2-7]+)\./.exec(token);
  if (!m) throw new Error('Not an API key token.');
  return m[1];
};

/** Walks a cursor-paged list from `url` to its end; returns every page. */
export async function walkPages<T = any>(url: string, token: string, maxPages = 100): Promise<ApiResponse<{ items: T[]; nextCursor: string | null }>[]> {
  const pages: ApiResponse<{ items: T[]; nextCursor: string | null }>[] = [];
  let cursor: string | undefined;
  do {
    const page = await call<{ items: T[]; nextCursor: string | null }>('GET', withQuery(url, { cursor }), { token });
    if (page.status !== 200) throw new Error(`Page ${pages.length + 1} answered ${page.status}: ${page.text}`);
    pages.push(page);
    cursor = page.body.nextCursor ?? undefined;
    if (pages.length > maxPages) throw new Error('Too many pages: the cursor does not advance.');
  } while (cursor !== undefined);
  return pages;
}
