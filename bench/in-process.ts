import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, localClient, startDynamoDbLocal, type DynamoDbLocal } from '../services/local/dynamodb';
import { startLocalGateway, type LocalGateway } from '../services/local/gateway';
import { LOCAL_DOCUMENTS_BUCKET, LOCAL_REPORTS_BUCKET, startS3Local, type S3Local } from '../services/local/s3';
import { BUCKET_ENV, S3_ENDPOINT_ENV } from '../services/shared/aws/s3';
import { seedDemo, type DemoData } from '../services/local/seed';
import { putEmployee } from '../services/employees/store';
import { defaultDb, type Db } from '../services/shared/ddb/client';
import { dayAttribute, DAY_ITEM_TYPE, entryKeys, entryToItem, guardFromItem, guardToItem, intervalValue, timelineToItem } from '../services/timesheets/model';
import type { TimeEntry } from '../services/timesheets/domain';
import { callSummary, installMeter, type Call, type Meter } from './lib/meter';
import { round, since, summarize } from './lib/stats';

/**
 * The phases that run the API in this process (the local gateway and the real handlers, on a
 * DynamoDB Local of their own), so that an SDK middleware on the handlers' own client can count
 * their DynamoDB calls: calls and capacity per operation, and the scale shape.
 */
export interface InProcess {
  readonly db: Db;
  readonly demo: DemoData;
  readonly gateway: LocalGateway;
  readonly meter: Meter;
  readonly orgUrl: string;
  stop(): Promise<void>;
}

export async function startInProcess(): Promise<InProcess> {
  // The demo seed stores its documents' files: the embedded S3 server, as `npm start` and the tests run it.
  const [ddb, s3]: [DynamoDbLocal, S3Local] = await Promise.all([startDynamoDbLocal({ port: 0 }), startS3Local({ port: 0, buckets: [LOCAL_DOCUMENTS_BUCKET, LOCAL_REPORTS_BUCKET] })]);
  const tableName = 'wfm-bench';
  const client = localClient(ddb.endpoint);
  await ensureTable(client, tableName);
  client.destroy();
  // What the stack gives the Lambda functions; the handlers read it on first use.
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: ddb.endpoint,
    API_ENVIRONMENT: 'TEST',
    CURSOR_SECRET: 'bench-cursor-secret',
    RESTRICTED_DATA_LOCAL_KEY: Buffer.alloc(32, 9).toString('base64'),
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR',
    [S3_ENDPOINT_ENV]: s3.endpoint,
    [BUCKET_ENV.documents]: LOCAL_DOCUMENTS_BUCKET,
    [BUCKET_ENV.reports]: LOCAL_REPORTS_BUCKET,
  });
  const db = defaultDb();
  const meter = installMeter(db.doc);
  const demo = await seedDemo(db, 'bench-seed');
  const gateway = await startLocalGateway({ port: 0, host: '127.0.0.1' });
  return {
    db,
    demo,
    gateway,
    meter,
    orgUrl: `${gateway.url}/v1/organizations/${demo.organizationId}`,
    stop: async () => {
      await gateway.close();
      await ddb.stop();
      await s3.stop();
    },
  };
}

interface Sent {
  readonly status: number;
  readonly body: any;
  readonly etag: string | null;
  readonly ms: number;
}

export async function send(method: string, url: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  const start = performance.now();
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': url.includes('/scim/') ? 'application/scim+json' : 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const ms = since(start);
  return { status: res.status, body: text ? JSON.parse(text) : undefined, etag: res.headers.get('etag'), ms };
}

const dayOf = (day: number, from = '08:00', to = '16:00') => {
  const date = new Date(Date.UTC(2040, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
  return { startedAt: `${date}T${from}:00Z`, endedAt: `${date}T${to}:00Z` };
};

async function newEmployee(db: Db, organizationId: string): Promise<string> {
  const id = randomUUID();
  const at = new Date().toISOString();
  await putEmployee(db, { id, organizationId, userName: `${id}@bench.example`, emails: [], active: true, createdAt: at, updatedAt: at, version: 1 });
  return id;
}

// ---- DynamoDB calls and capacity per operation ---------------------------------------------

export interface CallsPerOp {
  readonly calls: number;
  readonly byOperation: Record<string, number>;
  readonly items: number;
  readonly transactionItems: number;
  readonly scannedByQueries: number;
  readonly capacityUnits: number;
  /** The fewest calls this access pattern needs, and why. */
  readonly minimumCalls: number;
  readonly minimumReason: string;
  readonly extraCalls: number;
}

interface BenchOperation {
  readonly run: () => Promise<Sent>;
  readonly minimum: number;
  readonly reason: string;
  /** Samples of this operation. @default the phase's repeat */
  readonly repeat?: number;
}

/**
 * Planning: one employee's published shifts of a month (with planned vs actual), and a bulk
 * publish of 200 drafts (10 employees x 20 days; only the publish is metered).
 */
async function planningOperations(app: InProcess): Promise<Record<string, BenchOperation>> {
  const { demo } = app;
  const admin = demo.keys.admin;
  const shift = (employeeId: string, day: number) => {
    const date = new Date(Date.UTC(2045, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
    return { employeeId, locationId: demo.locations[0], startsAt: `${date}T08:00:00Z`, endsAt: `${date}T16:00:00Z`, breakMinutes: 30 };
  };
  const monthly = await newEmployee(app.db, demo.organizationId);
  for (let d = 0; d < 31; d += 1) {
    const s = await send('POST', `${app.orgUrl}/planning/shifts`, admin, shift(monthly, d), { 'Idempotency-Key': randomUUID() });
    if (s.status !== 201) throw new Error(`POST /planning/shifts answered ${s.status}`);
  }
  await send('POST', `${app.orgUrl}/planning/shifts/publish`, admin, { from: '2045-01-01T00:00:00Z', to: '2045-02-01T00:00:00Z', employeeId: monthly }, { 'Idempotency-Key': randomUUID() });
  let round = 0;
  return {
    'GET /planning/shifts (one employee, one month, 31 shifts)': {
      run: () => send('GET', `${app.orgUrl}/planning/shifts?employeeId=${monthly}&from=2045-01-01T00:00:00Z&to=2045-02-01T00:00:00Z&limit=50`, admin),
      minimum: 2,
      reason: 'one Query of GSI2 for the page, one read of the employee\'s time entries over the month for planned vs actual (the design: TE_STATS GetItem + the two list Queries)',
    },
    'POST /planning/shifts/publish (200 drafts, 10 employees)': {
      repeat: 1,
      run: async () => {
        const employees = await Promise.all(Array.from({ length: 10 }, () => newEmployee(app.db, demo.organizationId)));
        const base = 100 + 40 * round++;
        for (const e of employees) for (let d = 0; d < 20; d += 1) await send('POST', `${app.orgUrl}/planning/shifts`, admin, shift(e, base + d), { 'Idempotency-Key': randomUUID() });
        const from = new Date(Date.UTC(2045, 0, 1) + base * 86_400_000).toISOString();
        const to = new Date(Date.UTC(2045, 0, 1) + (base + 20) * 86_400_000).toISOString();
        const measured = await app.meter.during(() => send('POST', `${app.orgUrl}/planning/shifts/publish`, admin, { from, to }, { 'Idempotency-Key': randomUUID() }));
        if (measured.result.body?.publishedShiftIds?.length !== 200) throw new Error(`bulk publish published ${measured.result.body?.publishedShiftIds?.length}`);
        return { ...measured.result, calls: measured.calls };
      },
      minimum: 201,
      reason: 'one transaction per shift (atomic per shift) plus the drafts Query; the design spends 3 calls a shift (GetItem guard, plan Query, TransactWriteItems: the shift as the drafts Query read it, and all references in one BatchGetItem) + idempotency',
    },
  };
}

export async function measureCallsPerOp(app: InProcess, repeat = 5): Promise<Record<string, CallsPerOp>> {
  const { demo } = app;
  const admin = demo.keys.admin;
  const employeeId = await newEmployee(app.db, demo.organizationId);
  let day = 0;
  const createBody = () => ({ employeeId, context: { kind: 'REGISTERED_LOCATION', locationId: demo.locations[0] }, ...dayOf(day++), breakMinutes: 30, reason: 'Bench' });
  // Warm: the authorizer's policy of each key is cached, as in steady state.
  for (const key of [admin, demo.keys.scim]) await send('GET', `${app.orgUrl}/timesheets?limit=1`, key);
  for (let i = 0; i < 60; i += 1) await send('POST', `${app.orgUrl}/timesheets`, admin, createBody(), { 'Idempotency-Key': randomUUID() });
  const sample = await send('POST', `${app.orgUrl}/timesheets`, admin, createBody(), { 'Idempotency-Key': randomUUID() });
  let etag = sample.etag!;
  const entryId = sample.body.id as string;
  const moving = await send('POST', `${app.orgUrl}/timesheets`, admin, createBody(), { 'Idempotency-Key': randomUUID() });
  let movingEtag = moving.etag!;
  let moves = 0;
  const scimUser = encodeURIComponent('userName eq "ada.lindqvist@acme.example"');

  const operations: Record<string, BenchOperation> = {
    'GET /timesheets (organization, limit 50)': {
      run: () => send('GET', `${app.orgUrl}/timesheets?limit=50`, admin),
      minimum: 1,
      reason: 'one Query of GSI1 (every entry, OPEN ones included, by start) returns a page',
    },
    'GET /timesheets (employee, from/to, limit 50)': {
      run: () => send('GET', `${app.orgUrl}/timesheets?employeeId=${employeeId}&from=2040-01-01T00:00:00Z&to=2040-03-01T00:00:00Z&limit=50`, admin),
      minimum: 2,
      reason: 'the page Query plus the bound that makes the range window finite (organization TE_STATS); OPEN entries need GSI3 as well',
    },
    'GET /timesheets/{id}': { run: () => send('GET', `${app.orgUrl}/timesheets/${entryId}`, admin), minimum: 1, reason: 'one GetItem' },
    'POST /timesheets': {
      run: () => send('POST', `${app.orgUrl}/timesheets`, admin, createBody(), { 'Idempotency-Key': randomUUID() }),
      minimum: 2,
      reason: "one BatchGetItem (organization capability, employee, location, guard, bound, export fence, the employee's day items of the interval's UTC days, and the idempotency record read along: no IN_PROGRESS lock, no overlap Query), one TransactWriteItems",
    },
    'PATCH /timesheets/{id}': {
      run: async () => {
        const res = await send('PATCH', `${app.orgUrl}/timesheets/${entryId}`, admin, { breakMinutes: 30 + (day++ % 2), reason: 'Bench' }, { 'Idempotency-Key': randomUUID(), 'If-Match': etag });
        etag = res.etag ?? etag;
        return res;
      },
      minimum: 3,
      reason: 'BatchGetItem (entry, capability, bound, fence, idempotency record), one consistent Query of the employee\'s partition backwards from the guard down to the overlap window (guard first; at most 100 items, more entries after the window: a second Query of the window), TransactWriteItems',
    },
    'PATCH /timesheets/{id} (interval moved)': {
      run: async () => {
        const res = await send('PATCH', `${app.orgUrl}/timesheets/${moving.body.id}`, admin, { endedAt: moves++ % 2 === 0 ? moving.body.endedAt.replace('T16:', 'T15:') : moving.body.endedAt, reason: 'Bench' }, { 'Idempotency-Key': randomUUID(), 'If-Match': movingEtag });
        movingEtag = res.etag ?? movingEtag;
        return res;
      },
      minimum: 3,
      reason: 'as a break change: BatchGetItem, one Query of guard and window, TransactWriteItems',
    },
    'POST /timesheets/{id}/void': {
      run: async () => {
        const created = await send('POST', `${app.orgUrl}/timesheets`, admin, createBody(), { 'Idempotency-Key': randomUUID() });
        return app.meter.during(() => send('POST', `${app.orgUrl}/timesheets/${created.body.id}/void`, admin, { reason: 'Bench' }, { 'Idempotency-Key': randomUUID(), 'If-Match': created.etag! })).then((r) => ({ ...r.result, calls: r.calls }));
      },
      minimum: 2,
      reason: 'one BatchGetItem (entry, capability, fence, idempotency record), one TransactWriteItems; a void never overlaps, so no guard read (an OPEN entry leaves the guard, a CLOSED one its day items, by updates)',
    },
    'GET /audit (limit 50)': { run: () => send('GET', `${app.orgUrl}/audit?limit=50`, admin), minimum: 1, reason: 'one Query on GSI1' },
    'GET /work-events (limit 50)': { run: () => send('GET', `${app.orgUrl}/work-events?limit=50`, admin), minimum: 1, reason: 'one Query on GSI1' },
    'SCIM GET /Users?filter=userName eq': {
      run: () => send('GET', `${app.orgUrl}/scim/v2/Users?filter=${scimUser}`, demo.keys.scim),
      minimum: 2,
      reason: 'the uniqueness guard names the id (GetItem/BatchGetItem), then the employee record',
    },
    'SCIM POST /Users': {
      run: () => {
        const id = randomUUID();
        return send('POST', `${app.orgUrl}/scim/v2/Users`, demo.keys.scim, { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: `${id}@bench.example`, externalId: id });
      },
      minimum: 2,
      reason: 'one BatchGetItem of the guards (userName, externalId), one TransactWriteItems',
    },
  };

  Object.assign(operations, await planningOperations(app));

  const out: Record<string, CallsPerOp> = {};
  for (const [name, op] of Object.entries(operations)) {
    const samples: Call[][] = [];
    for (let i = 0; i < (op.repeat ?? repeat); i += 1) {
      const measured = await app.meter.during(op.run);
      const r = measured.result as Sent & { calls?: Call[] };
      if (r.status >= 400) throw new Error(`${name} answered ${r.status}: ${JSON.stringify(r.body)}`);
      samples.push(r.calls ?? measured.calls);
    }
    // Calls are deterministic; report the median sample by call count.
    const chosen = [...samples].sort((a, b) => a.length - b.length)[Math.floor(samples.length / 2)];
    const summary = callSummary(chosen);
    out[name] = { ...summary, minimumCalls: op.minimum, minimumReason: op.reason, extraCalls: summary.calls - op.minimum };
  }

  // The authorizer: a request with a key whose policy is not cached.
  const { issueApiKey } = await import('../services/api-keys/issue');
  const fresh = await issueApiKey(app.db, { organizationId: demo.organizationId, environment: 'TEST', label: 'Bench: uncached', scopes: ['timesheets:read'], now: new Date().toISOString() });
  const cold = await app.meter.during(() => send('GET', `${app.orgUrl}/timesheets/${entryId}`, fresh.token));
  const warm = await app.meter.during(() => send('GET', `${app.orgUrl}/timesheets/${entryId}`, fresh.token));
  const authorizerCalls = cold.calls.slice(0, cold.calls.length - warm.calls.length);
  out['authorizer (policy cache miss, once per key per 60 s)'] = { ...callSummary(authorizerCalls), minimumCalls: 1, minimumReason: 'one GetItem of the key record', extraCalls: authorizerCalls.length - 1 };
  return out;
}

// ---- scale shape -----------------------------------------------------------------------------

export interface ScaleShape {
  readonly pageSize: number;
  /** GET /timesheets?employeeId=... (first page) with the employee holding N entries. */
  readonly listByEmployeeHistory: Record<string, ReturnType<typeof summarize> & { itemsReadPerRequest: number }>;
  /** GET /timesheets?employeeId=...&from&to over one month in the middle of the history. */
  readonly listRangeByEmployeeHistory: Record<string, ReturnType<typeof summarize> & { itemsReadPerRequest: number }>;
  /** POST /timesheets for a fresh employee as the organization's entry count grows. */
  readonly createByOrganizationSize: Record<string, ReturnType<typeof summarize>>;
  /** POST /timesheets for the employee that holds the most entries. */
  readonly createForLargestEmployee: ReturnType<typeof summarize> & { entries: number };
  readonly seedItemsPerSecond: number;
}

/** Writes `count` closed 8-hour entries (entry, timeline and day items) for one employee, one per day from 2001. */
async function seedEntries(db: Db, organizationId: string, employeeId: string, count: number): Promise<number> {
  const start = performance.now();
  const items: Record<string, unknown>[] = [];
  const at = new Date().toISOString();
  for (let i = 0; i < count; i += 1) {
    const date = new Date(Date.UTC(2001, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    const e: TimeEntry = {
      id: randomUUID(),
      organizationId,
      employeeId,
      context: { kind: 'REGISTERED_LOCATION', locationId: '00000000-0000-4000-8000-000000000000' },
      startedAt: `${date}T08:00:00.000Z`,
      endedAt: `${date}T16:00:00.000Z`,
      breakMinutes: 30,
      origin: 'MANUAL',
      state: 'CLOSED',
      adjusted: false,
      revision: 1,
      createdAt: at,
      updatedAt: at,
    } as TimeEntry;
    items.push(entryToItem(e), timelineToItem(e));
    items.push({ ...entryKeys.day(organizationId, employeeId, date), itemType: DAY_ITEM_TYPE, [dayAttribute(e.id)]: intervalValue(e) });
  }
  // The guard and the organization's bound know the longest interval, as a real write leaves them.
  items.push(guardToItem(guardFromItem(organizationId, employeeId, { version: 1, maxClosedDurationMs: 8 * 3_600_000, dayIndex: true })));
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) chunks.push(items.slice(i, i + 25));
  const lanes = 4;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let c = lane; c < chunks.length; c += lanes) {
        let pending = chunks[c].map((Item) => ({ PutRequest: { Item } }));
        while (pending.length > 0) {
          const out = await db.doc.send(new BatchWriteCommand({ RequestItems: { [db.tableName]: pending } }));
          pending = (out.UnprocessedItems?.[db.tableName] as typeof pending | undefined) ?? [];
        }
      }
    }),
  );
  return items.length / (since(start) / 1000);
}

export async function measureScale(app: InProcess, options: { sizes: readonly number[]; samples: number }): Promise<ScaleShape> {
  const { demo, db } = app;
  const admin = demo.keys.admin;
  const pageSize = 50;
  const org = demo.organizationId;
  const listByEmployeeHistory: ScaleShape['listByEmployeeHistory'] = {};
  const listRangeByEmployeeHistory: ScaleShape['listRangeByEmployeeHistory'] = {};
  const createByOrganizationSize: ScaleShape['createByOrganizationSize'] = {};
  let orgEntries = 0;
  let seedRate = 0;
  let futureDay = 0;

  const measureCreates = async (label: string, employeeId?: string) => {
    const emp = employeeId ?? (await newEmployee(db, org));
    const samples: number[] = [];
    for (let i = 0; i < options.samples; i += 1) {
      const res = await send('POST', `${app.orgUrl}/timesheets`, admin, { employeeId: emp, context: { kind: 'REGISTERED_LOCATION', locationId: demo.locations[0] }, ...dayOf(20_000 + futureDay++), breakMinutes: 0, reason: 'Bench' }, { 'Idempotency-Key': randomUUID() });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
      samples.push(res.ms);
    }
    createByOrganizationSize[label] = summarize(samples.slice(1));
  };

  await measureCreates(`~${orgEntries} entries`);
  let largest = { employeeId: '', entries: 0 };
  for (const size of options.sizes) {
    const employeeId = await newEmployee(db, org);
    seedRate = Math.max(seedRate, await seedEntries(db, org, employeeId, size));
    orgEntries += size;
    largest = size > largest.entries ? { employeeId, entries: size } : largest;
    const listSamples: number[] = [];
    const rangeSamples: number[] = [];
    let listItems = 0;
    let rangeItems = 0;
    const mid = new Date(Date.UTC(2001, 0, 1) + Math.floor(size / 2) * 86_400_000);
    const from = mid.toISOString();
    const to = new Date(mid.getTime() + 30 * 86_400_000).toISOString();
    for (let i = 0; i < options.samples; i += 1) {
      const page = await app.meter.during(() => send('GET', `${app.orgUrl}/timesheets?employeeId=${employeeId}&limit=${pageSize}`, admin));
      const range = await app.meter.during(() => send('GET', `${app.orgUrl}/timesheets?employeeId=${employeeId}&from=${from}&to=${to}&limit=${pageSize}`, admin));
      if (page.result.status !== 200 || range.result.status !== 200) throw new Error('list failed');
      listSamples.push(page.result.ms);
      rangeSamples.push(range.result.ms);
      listItems = page.calls.reduce((n, c) => n + c.scanned, 0);
      rangeItems = range.calls.reduce((n, c) => n + c.scanned, 0);
    }
    listByEmployeeHistory[`${size} entries`] = { ...summarize(listSamples.slice(1)), itemsReadPerRequest: listItems };
    listRangeByEmployeeHistory[`${size} entries`] = { ...summarize(rangeSamples.slice(1)), itemsReadPerRequest: rangeItems };
    await measureCreates(`~${orgEntries} entries`);
  }
  const samples: number[] = [];
  for (let i = 0; i < options.samples; i += 1) {
    const res = await send('POST', `${app.orgUrl}/timesheets`, admin, { employeeId: largest.employeeId, context: { kind: 'REGISTERED_LOCATION', locationId: demo.locations[0] }, ...dayOf(20_000 + futureDay++), breakMinutes: 0, reason: 'Bench' }, { 'Idempotency-Key': randomUUID() });
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
    samples.push(res.ms);
  }
  const createForLargestEmployee = { ...summarize(samples.slice(1)), entries: largest.entries };
  return { pageSize, listByEmployeeHistory, listRangeByEmployeeHistory, createByOrganizationSize, createForLargestEmployee, seedItemsPerSecond: round(seedRate, 0) };
}

