import { randomUUID } from 'node:crypto';
import { checkTable } from '../../scripts/check-consistency';
import { putEmployee } from '../../services/employees/store';
import type { ApiName } from '../../services/routes';
import type { Db } from '../../services/shared/ddb/client';
import { call, type ApiFixture, type ApiResponse, type CallOptions } from '../support/api';

/**
 * Helpers of the reliability drills (not a drill itself): request bodies with intervals that
 * never collide by accident, extra employees, the shape every error must have, and a check
 * that no internal text (stack, SDK message, table name, endpoint) reaches a client.
 */

/** A closed interval on its own day, `day` days after 2030-01-01. */
export function dayInterval(day: number, from = '08:00', to = '16:00'): { startedAt: string; endedAt: string } {
  const date = new Date(Date.UTC(2030, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
  return { startedAt: `${date}T${from}:00Z`, endedAt: `${date}T${to}:00Z` };
}

export function manualBody(api: ApiFixture, employeeId: string, interval: { startedAt: string; endedAt: string }, over: Record<string, unknown> = {}) {
  return {
    employeeId,
    context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[0] },
    ...interval,
    breakMinutes: 30,
    reason: 'Reliability drill',
    ...over,
  };
}

/** A further employee of an organization, so that a drill has a timeline of its own. */
export async function addEmployee(db: Db, organizationId: string): Promise<string> {
  const id = randomUUID();
  const at = new Date().toISOString();
  await putEmployee(db, { id, organizationId, userName: `${id}@drill.example`, emails: [], active: true, createdAt: at, updatedAt: at, version: 1 });
  return id;
}

export const timesheetsUrl = (api: ApiFixture) => `${api.orgUrl()}/timesheets`;

export const post = (api: ApiFixture, body: unknown, options: Partial<CallOptions> = {}): Promise<ApiResponse> =>
  call('POST', timesheetsUrl(api), { token: api.demo.keys.admin, idempotencyKey: randomUUID(), body, ...options });

/** Text a client must never see: stacks, SDK and Java messages, table names, endpoints, env names. */
export function leakPatterns(extra: readonly string[] = []): RegExp[] {
  const escaped = extra.filter((s) => s.length > 0).map((s) => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'));
  return [
    /\bat [\w$.<>]+ \(/, // a stack frame
    /\.(?:ts|js|mjs|cjs):\d+/,
    /node_modules/,
    /dynamodb|dynamo-db/i,
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up/i,
    /TransactionCanceled|ConditionalCheckFailed|ValidationException|ResourceNotFoundException|ProvisionedThroughput/,
    /aws-sdk|@aws-sdk|smithy|\$metadata/i,
    /java\.|com\.amazon|sqlite/i,
    /TABLE_NAME|DYNAMODB_ENDPOINT|CURSOR_SECRET/,
    /\btest-[0-9a-f]{8}-[0-9a-f]{4}/, // a test table name
    /127\.0\.0\.1:\d+/,
    ...escaped,
  ];
}

export function leaksIn(text: string, extra: readonly string[] = []): string[] {
  return leakPatterns(extra)
    .filter((p) => p.test(text))
    .map((p) => String(p));
}

export type ErrorFormatName = ApiName;

/**
 * Problems (RFC 9457, decisions.md) on the public API, the SCIM error schema on SCIM routes;
 * both with X-Request-Id. Returns a list of what is wrong (empty: well-formed).
 */
export function errorShapeProblems(res: ApiResponse, format: ErrorFormatName): string[] {
  const wrong: string[] = [];
  const requestId = res.headers.get('x-request-id');
  if (!requestId) wrong.push('no X-Request-Id');
  const type = res.headers.get('content-type') ?? '';
  const body = res.body as Record<string, unknown> | undefined;
  if (format === 'scim') {
    if (!/^application\/scim\+json/.test(type)) wrong.push(`content-type ${type}`);
    if (!Array.isArray(body?.schemas) || !(body!.schemas as unknown[]).includes('urn:ietf:params:scim:api:messages:2.0:Error')) wrong.push('not the SCIM error schema');
    if (body?.status !== String(res.status)) wrong.push(`status member ${JSON.stringify(body?.status)}`);
    if (typeof body?.detail !== 'string' || body.detail === '') wrong.push('no detail');
  } else {
    if (type !== 'application/problem+json') wrong.push(`content-type ${type}`);
    if (typeof body?.code !== 'string') wrong.push('no code');
    if (body?.status !== res.status) wrong.push(`status member ${JSON.stringify(body?.status)}`);
    if (typeof body?.type !== 'string' || typeof body?.title !== 'string' || typeof body?.detail !== 'string') wrong.push('type/title/detail missing');
    if (body?.requestId !== requestId) wrong.push('requestId differs from X-Request-Id');
  }
  return wrong;
}

/** Runs `count` calls at once (a start barrier: all are issued before any is awaited). */
export async function concurrently<T>(count: number, run: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => run(i)));
}

/** Status histogram, e.g. `{ "201": 1, "409 TIME_ENTRY_OVERLAP": 15 }`. */
export function tally(responses: readonly ApiResponse[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of responses) {
    const code = (r.body as { code?: string; scimType?: string } | undefined)?.code ?? (r.body as { scimType?: string } | undefined)?.scimType;
    const label = r.status < 300 ? `${r.status}` : `${r.status}${code ? ` ${code}` : ''}`;
    out[label] = (out[label] ?? 0) + 1;
  }
  return out;
}

/** Appends one line to the drills' result log (docs/reliability.md quotes the latest numbers). */
export function record(drill: string, facts: Record<string, unknown>): void {
  process.stdout.write(`[drill] ${drill}: ${JSON.stringify(facts)}\n`);
}

/** Runs the consistency checker on the whole table; fails with the violations found. */
export async function expectConsistent(db: Db): Promise<void> {
  const report = await checkTable(db);
  expect(report.violations).toEqual([]);
}
