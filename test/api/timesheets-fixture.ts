import { randomUUID } from 'node:crypto';
import { putEmployee } from '../../services/employees/store';
import { ingestEvidence } from '../../services/evidence-ingest/handler';
import { sealRestricted } from '../../services/shared/crypto/restricted';
import type { Db } from '../../services/shared/ddb/client';
import { call, itemsOfType, type ApiFixture, type ApiResponse, type CallOptions } from '../support/api';

/**
 * Helpers of the timesheets-*.test.ts files (not a test file itself): request bodies, calls
 * with a fresh Idempotency-Key, and the stored items of one entry.
 */

/** A closed interval on its own day, `day` days after 2025-01-01: tests never collide by accident. */
export function dayInterval(day: number, from = '08:00', to = '16:00'): { startedAt: string; endedAt: string } {
  const date = new Date(Date.UTC(2025, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
  return { startedAt: `${date}T${from}:00Z`, endedAt: `${date}T${to}:00Z` };
}

export interface ManualBody {
  employeeId: string;
  context: Record<string, unknown>;
  startedAt: string;
  endedAt: string;
  breakMinutes: number;
  reason: string;
  overlapOverride?: boolean;
  overlapReason?: string;
  [extra: string]: unknown;
}

export function manualBody(api: ApiFixture, interval: { startedAt: string; endedAt: string }, over: Partial<ManualBody> = {}): ManualBody {
  return {
    employeeId: api.demo.employees[2],
    context: { kind: 'REGISTERED_LOCATION', locationId: api.demo.locations[0] },
    ...interval,
    breakMinutes: 30,
    reason: 'Forgot to scan at the depot',
    ...over,
  };
}

export const timesheetsUrl = (api: ApiFixture, organizationId?: string) => `${api.orgUrl(organizationId)}/timesheets`;
export const entryUrl = (api: ApiFixture, id: string, organizationId?: string) => `${timesheetsUrl(api, organizationId)}/${id}`;

type WriteOptions = Omit<CallOptions, 'body'> & { readonly token?: string };

/** POST /timesheets with a fresh Idempotency-Key unless one is given. */
export const createEntry = (api: ApiFixture, body: unknown, options: WriteOptions = {}): Promise<ApiResponse> =>
  call('POST', timesheetsUrl(api), { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ...options, body });

export const correctEntry = (api: ApiFixture, id: string, ifMatch: string | undefined, body: unknown, options: WriteOptions = {}): Promise<ApiResponse> =>
  call('PATCH', entryUrl(api, id), { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ...(ifMatch !== undefined ? { ifMatch } : {}), ...options, body });

export const voidEntry = (api: ApiFixture, id: string, ifMatch: string | undefined, body: unknown, options: WriteOptions = {}): Promise<ApiResponse> =>
  call('POST', `${entryUrl(api, id)}/void`, { token: api.demo.keys.admin, idempotencyKey: randomUUID(), ...(ifMatch !== undefined ? { ifMatch } : {}), ...options, body });

export const getEntryResponse = (api: ApiFixture, id: string, token = api.demo.keys.admin): Promise<ApiResponse> => call('GET', entryUrl(api, id), { token });

/** Creates an entry and fails the test unless it was created. */
export async function createdEntry(api: ApiFixture, body: unknown, options: WriteOptions = {}): Promise<ApiResponse> {
  const res = await createEntry(api, body, options);
  if (res.status !== 201) throw new Error(`Expected 201, got ${res.status}: ${res.text}`);
  return res;
}

export const etagOf = (id: string, revision: number) => `"time-entry:${id}:r${revision}"`;

/** Stored TimeEntry items of one employee (a Scan: test-side only). */
export async function storedEntriesOf(db: Db, employeeId: string): Promise<Record<string, any>[]> {
  return (await itemsOfType(db, 'TimeEntry')).filter((i) => i.employeeId === employeeId);
}

/** Stored audit items of one time entry, oldest first. */
export async function auditItemsOf(db: Db, entryId: string): Promise<Record<string, any>[]> {
  return (await itemsOfType(db, 'AuditEntry')).filter((i) => i.entity?.id === entryId).sort((a, b) => (a.occurredAt < b.occurredAt ? -1 : 1));
}

/** The ids of the demo's seeded SCANNED entries, read from the table. */
export async function scannedEntry(db: Db, employeeId: string, state: 'OPEN' | 'CLOSED'): Promise<Record<string, any>> {
  const found = (await storedEntriesOf(db, employeeId)).filter((e) => e.origin === 'SCANNED' && e.state === state);
  if (found.length !== 1) throw new Error(`Expected one seeded ${state} SCANNED entry of ${employeeId}, found ${found.length}.`);
  return found[0];
}

/** A further employee of the demo organization, so that a test has a timeline of its own. */
export async function addEmployee(api: ApiFixture, organizationId = api.demo.organizationId): Promise<string> {
  const id = randomUUID();
  const at = new Date().toISOString();
  await putEmployee(api.db, { id, organizationId, userName: `${id}@test.example`, emails: [], active: true, createdAt: at, updatedAt: at, version: 1 });
  return id;
}

/** A verified scan through the internal evidence channel (as the scan service sends it). */
export async function scan(api: ApiFixture, employeeId: string, type: 'CHECK_IN' | 'CHECK_OUT', clientTimestamp: string, locationId = api.demo.locations[0]) {
  const deps = { db: api.db, now: () => new Date(), newId: randomUUID, seal: sealRestricted };
  return ingestEvidence(deps, api.demo.organizationId, { employeeId, locationId, type, clientTimestamp, offline: false, verificationState: 'VERIFIED' });
}
