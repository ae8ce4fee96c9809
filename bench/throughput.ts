import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { auditItem } from '../services/audit/model';
import { employeeExistsCheck, putEmployee } from '../services/employees/store';
import { employeeKeys } from '../services/employees/public';
import { locationExistsCheck } from '../services/locations/store';
import { locationKeys } from '../services/locations/public';
import { organizationKeys, timesheetCapabilityCheck } from '../services/organization/public';
import { fenceFromItem, planStaleness, reportKeys } from '../services/reports/public';
import { createDb, type Db } from '../services/shared/ddb/client';
import { commit, type TxItem } from '../services/shared/ddb/transaction';
import type { TimeEntry } from '../services/timesheets/domain';
import { dayItems, putNewEntry, putNextGuard, timelineItems } from '../services/timesheets/store';
import { ENTRY_ATTRIBUTES, guardFromItem, entryKeys, nextGuard, utcDaysOf } from '../services/timesheets/model';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet, projectionOf } from '../services/shared/ddb/read';
import { startLocalRuntime, type LocalRuntime } from './lib/local-runtime';
import { percentile, round } from './lib/stats';

/**
 * Throughput and latency of the API as `npm start` serves it (its own process), driven by
 * autocannon from this process, next to the raw DynamoDB Local throughput of the same
 * TransactWriteItems and Query shapes from this process, in the same run and on the same
 * DynamoDB Local, so that the report can give ratios rather than absolute times.
 */
/** The raw shape a list page is set against. */
export const RAW_LIST_QUERY = 'Query (list page shape: GSI1, limit 51)';
export const RAW_CREATE_SEQUENCE = 'create call sequence (BatchGetItem, TransactWriteItems)';
export const RAW_LIST_QUERY_PROJECTED = "Query (list page shape, the API's projection: the entry's attributes, no keys)";
/** Paired rounds: the ratios are their medians. */
const PAIRED_ROUNDS = 5;

export interface LoadResult {
  readonly connections: number;
  readonly durationS: number;
  readonly requests: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** For non-2xx answers: status -> count (e.g. 503 TRANSACTION_CONFLICT under contention). */
  readonly statuses?: Record<string, number>;
}

export interface ThroughputResults {
  readonly api: Record<string, LoadResult[]>;
  readonly raw: Record<string, LoadResult[]>;
  /** The raw create transaction: items and actions, to compare with the API's (calls per op). */
  readonly rawTransactShape: { items: number; actions: string[] };
  /**
   * The two headline ratios measured again with API and raw runs alternating in short slices
   * (same connections), so that both sides of a ratio see the same moment of a shared
   * machine; the median of the per-round ratios.
   */
  readonly paired?: { readonly connections: number; readonly sliceS: number; readonly rounds: number; readonly createVsRawTransact: number; readonly listVsRawQuery: number; readonly createVsRawSequence?: number; readonly listVsProjectedQuery?: number; readonly perRound: { create: number; list: number; createVsSequence?: number; listVsProjected?: number }[] };
}

const ADMIN_SCOPES = 'admin';

export async function measureThroughput(options: { connections: readonly number[]; durationS: number; warmupS: number }): Promise<ThroughputResults> {
  const runtime = await startLocalRuntime();
  try {
    return await run(runtime, options);
  } finally {
    await runtime.stop();
  }
}

async function run(runtime: LocalRuntime, options: { connections: readonly number[]; durationS: number; warmupS: number }): Promise<ThroughputResults> {
  const { demo } = runtime;
  const base = `${runtime.url}/v1/organizations/${demo.organizationId}`;
  // autocannon sends `path` as the request target: origin-form, as clients send it (the local
  // gateway answers an absolute-form target with 404, as API Gateway would not see one).
  const basePath = new URL(base).pathname;
  const db = createDb({ tableName: runtime.tableName, endpoint: runtime.dynamoDbEndpoint });
  const maxConnections = Math.max(...options.connections);
  const admin = demo.keys[ADMIN_SCOPES];
  const auth = { Authorization: `Bearer ${admin}` };

  // Employees of their own per connection: writes of different employees never wait on one guard.
  const employees = await Promise.all(Array.from({ length: maxConnections }, () => newEmployee(db, demo.organizationId)));
  // Spare chains: a chain whose ETag went stale (a request of the previous run committed late) is
  // refreshed before it goes back to the pool, and the others keep every connection busy meanwhile.
  const patchEmployees = await Promise.all(Array.from({ length: maxConnections + 8 }, () => newEmployee(db, demo.organizationId)));
  const rawEmployees = await Promise.all(Array.from({ length: maxConnections }, () => newEmployee(db, demo.organizationId)));
  const nextDay = new Map<string, number>();
  const dayFor = (employeeId: string) => {
    const d = nextDay.get(employeeId) ?? 0;
    nextDay.set(employeeId, d + 1);
    return d;
  };
  const body = (employeeId: string) => ({ employeeId, context: { kind: 'REGISTERED_LOCATION', locationId: demo.locations[0] }, ...interval(dayFor(employeeId)), breakMinutes: 30, reason: 'Bench' });

  // A list of 200 entries in the past, an entry per PATCH chain, and one to GET.
  const listEmployees = await Promise.all(Array.from({ length: 4 }, () => newEmployee(db, demo.organizationId)));
  await Promise.all(listEmployees.map(async (e) => { for (let i = 0; i < 50; i += 1) await post(base, auth, body(e)); }));
  const chains = await Promise.all(patchEmployees.map(async (e) => { const r = await post(base, auth, body(e)); return { id: r.body.id as string, etag: r.etag, n: 0 }; }));
  const one = chains[0].id;

  const autocannonRun = async (connections: number, durationS: number, request: autocannon.Request, statuses: Record<string, number>) => {
    const result = await autocannon({ url: base, connections, duration: durationS, pipelining: 1, timeout: 20, requests: [request] });
    const ok = result['2xx'];
    return {
      connections,
      durationS,
      requests: result.requests.total,
      ok,
      non2xx: result.non2xx,
      errors: result.errors,
      reqPerSec: round(ok / result.duration, 1),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      ...(Object.keys(statuses).length > 0 ? { statuses } : {}),
    } satisfies LoadResult;
  };

  const counting = (statuses: Record<string, number>) => (status: number, responseBody: string) => {
    if (status < 300) return;
    let code = '';
    try {
      code = JSON.parse(responseBody).code ?? '';
    } catch {
      /* not JSON */
    }
    const key = `${status}${code ? ` ${code}` : ''}`;
    statuses[key] = (statuses[key] ?? 0) + 1;
  };

  const scenarios: Record<string, (statuses: Record<string, number>) => autocannon.Request> = {
    'GET /timesheets (limit 50)': (s) => ({ method: 'GET', path: `${basePath}/timesheets?limit=50`, headers: auth, onResponse: counting(s) }),
    'GET /timesheets/{id}': (s) => ({ method: 'GET', path: `${basePath}/timesheets/${one}`, headers: auth, onResponse: counting(s) }),
    // autocannon hands setupRequest a fresh context each time round its request list, so the
    // state of a connection lives in a pool instead: a request takes an employee (or an entry's
    // ETag chain) from the pool and its response gives it back. With one request in flight per
    // connection, no two requests ever share an employee or a chain.
    'POST /timesheets (distinct intervals)': (s) => {
      const free = [...employees];
      return {
        method: 'POST',
        path: `${basePath}/timesheets`,
        setupRequest: (req: any, context: any) => {
          context.employee = free.shift();
          return { ...req, headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() }, body: JSON.stringify(body(context.employee)) };
        },
        onResponse: (status: number, responseBody: string, context: any) => {
          counting(s)(status, responseBody);
          free.push(context.employee);
        },
      };
    },
    'PATCH /timesheets/{id} (ETag chain per connection)': (s) => {
      const free = [...chains];
      return {
        method: 'PATCH',
        path: `${basePath}/timesheets/${one}`,
        setupRequest: (req: any, context: any) => {
          const chain = (context.chain = free.shift()!);
          chain.n += 1;
          return {
            ...req,
            path: `${basePath}/timesheets/${chain.id}`,
            headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID(), 'If-Match': chain.etag },
            body: JSON.stringify({ breakMinutes: 30 + (chain.n % 2), reason: 'Bench' }),
          };
        },
        onResponse: (status: number, responseBody: string, context: any, headers: any) => {
          counting(s)(status, responseBody);
          const etag = headers?.etag ?? headers?.ETag;
          const chain = context.chain as (typeof chains)[number];
          if (status === 200 && etag) chain.etag = etag;
          if (status === 412) void refreshChain(chain).then(() => free.push(chain));
          else free.push(chain);
        },
      };
    },
    'SCIM GET /Users?filter=userName eq': (s) => ({
      method: 'GET',
      path: `${basePath}/scim/v2/Users?filter=${encodeURIComponent('userName eq "ada.lindqvist@acme.example"')}`,
      headers: { Authorization: `Bearer ${demo.keys.scim}` },
      onResponse: counting(s),
    }),
  };

  // A run ends with requests in flight: their PATCH may commit without the chain seeing the
  // new ETag. Each run therefore starts from the current ETags.
  const refreshChain = async (c: (typeof chains)[number]) => {
    const res = await fetch(`${base}/timesheets/${c.id}`, { headers: auth });
    await res.text();
    c.etag = res.headers.get('etag')!;
  };
  const refreshChains = async () => {
    await new Promise((r) => setTimeout(r, 1_000)); // let the previous run's last requests finish
    await Promise.all(chains.map(refreshChain));
  };

  const api: Record<string, LoadResult[]> = {};
  for (const [name, scenario] of Object.entries(scenarios)) {
    if (options.warmupS > 0) {
      await refreshChains();
      await autocannonRun(4, options.warmupS, scenario({}), {});
    }
    api[name] = [];
    for (const connections of options.connections) {
      await refreshChains();
      const statuses: Record<string, number> = {};
      api[name].push(await autocannonRun(connections, options.durationS, scenario(statuses), statuses));
      log(`${name} x${connections}: ${api[name].at(-1)!.reqPerSec} req/s`);
    }
  }

  // ---- raw DynamoDB Local: the same shapes, no HTTP, no handler ------------------------------
  const rawDb = createDb({ tableName: runtime.tableName, endpoint: runtime.dynamoDbEndpoint });
  const guards = new Map<string, number>();
  const rawTransact = async (employeeId: string, when = interval(dayFor(employeeId))) => {
    const now = new Date().toISOString();
    const entry: TimeEntry = {
      id: randomUUID(),
      organizationId: demo.organizationId,
      employeeId,
      context: { kind: 'REGISTERED_LOCATION', locationId: demo.locations[0] },
      ...when,
      breakMinutes: 30,
      origin: 'MANUAL',
      state: 'CLOSED',
      adjusted: false,
      revision: 1,
      createdAt: now,
      updatedAt: now,
    } as TimeEntry;
    const version = guards.get(employeeId) ?? 0;
    const guard = guardFromItem(demo.organizationId, employeeId, version === 0 ? undefined : { version, openEntries: {}, maxClosedDurationMs: 8 * 3_600_000, dayIndex: true });
    // The export fence check (and stale marks, none here): the handler's own planner.
    const stale = await planStaleness(rawDb, fenceFromItem(demo.organizationId, undefined), undefined, entry, { at: now, requestId: randomUUID() });
    const items: TxItem[] = [
      putNewEntry(entry),
      ...stale.items,
      ...timelineItems(undefined, entry),
      ...dayItems(undefined, entry),
      auditItem({
        id: randomUUID(),
        organizationId: entry.organizationId,
        occurredAt: now,
        actor: { type: 'API_KEY', keyId: 'bench', label: 'Bench' },
        action: 'time_entry.created',
        entity: { type: 'time_entry', id: entry.id },
        references: { employeeId },
        reason: 'Bench',
        after: { startedAt: entry.startedAt, endedAt: entry.endedAt, breakMinutes: 30, state: 'CLOSED', revision: 1, contextKind: 'REGISTERED_LOCATION', locationId: demo.locations[0] },
        staleExportManifestIds: [],
        requestId: randomUUID(),
      }),
      putNextGuard(guard, nextGuard(guard, undefined, entry)),
      employeeExistsCheck(demo.organizationId, employeeId),
      locationExistsCheck(demo.organizationId, demo.locations[0]),
      timesheetCapabilityCheck(demo.organizationId),
      // The idempotency record the handler commits with the change (here: a new key each time).
      { label: 'idempotency', op: { Put: { Item: { PK: `IDEM#bench-${randomUUID()}`, SK: 'IDEM', itemType: 'IdempotencyRecord', status: 'COMPLETED', response: { statusCode: 201, body: { id: entry.id } } }, ConditionExpression: 'attribute_not_exists(PK)' } } },
    ];
    await commit(rawDb, items);
    guards.set(employeeId, version + 1);
    return items;
  };
  const shape = await rawTransact(rawEmployees[0]);
  const rawCreateSequence = async (employeeId: string) => {
    // What a create sends besides HTTP: the snapshot (with the idempotency record and the day items of the interval read along), the transaction.
    const when = interval(dayFor(employeeId));
    await batchGet(rawDb, [
      organizationKeys.organization(demo.organizationId),
      employeeKeys.employee(demo.organizationId, employeeId),
      entryKeys.guard(demo.organizationId, employeeId),
      entryKeys.stats(demo.organizationId),
      reportKeys.fence(demo.organizationId),
      ...utcDaysOf(when).map((day) => entryKeys.day(demo.organizationId, employeeId, day)),
      locationKeys.location(demo.organizationId, demo.locations[0]),
      { PK: `IDEM#bench-${randomUUID()}`, SK: 'IDEM' },
    ]);
    await rawTransact(employeeId, when);
  };

  const rawScenarios: Record<string, (worker: number) => Promise<unknown>> = {
    'TransactWriteItems (create shape)': (w) => rawTransact(rawEmployees[w]),
    [RAW_CREATE_SEQUENCE]: (w) => rawCreateSequence(rawEmployees[w]),
    // The physical minimum of a page: ONE Query of the organization's entries by start (limit + 1, to know whether more follow).
    [RAW_LIST_QUERY]: () => rawDb.doc.send(new QueryCommand({ TableName: rawDb.tableName, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': entryKeys.byOrganization(demo.organizationId) }, Limit: 51 })),
    // The same Query as the API sends it: only the entry's own attributes (like for like).
    [RAW_LIST_QUERY_PROJECTED]: () => rawDb.doc.send(new QueryCommand({ TableName: rawDb.tableName, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': entryKeys.byOrganization(demo.organizationId) }, Limit: 51, ...projectionOf(ENTRY_ATTRIBUTES) })),
  };
  const raw: Record<string, LoadResult[]> = {};
  for (const [name, op] of Object.entries(rawScenarios)) {
    if (options.warmupS > 0) await closedLoop(4, options.warmupS, op);
    raw[name] = [];
    for (const connections of options.connections) {
      raw[name].push(await closedLoop(connections, options.durationS, op));
      log(`raw ${name} x${connections}: ${raw[name].at(-1)!.reqPerSec} ops/s`);
    }
  }
  // Paired: API and raw alternate slice by slice, so that load from outside hits both alike.
  const pairedConnections = 8;
  const sliceS = options.durationS >= 5 ? 3 : 2;
  const perRound: { create: number; list: number; createVsSequence: number; listVsProjected: number }[] = [];
  // Five rounds, the order inside a round alternating (API first, then raw first), so that
  // neither side always follows the other's leftovers (DynamoDB Local's GC, a warm cache).
  for (let round = 0; round < PAIRED_ROUNDS; round += 1) {
    const apiFirst = round % 2 === 0;
    const pair = async <T>(api: () => Promise<T>, raw: () => Promise<T>): Promise<[T, T]> => {
      if (apiFirst) {
        const a = await api();
        return [a, await raw()];
      }
      const r = await raw();
      return [await api(), r];
    };
    const [apiCreate, rawCreate] = await pair(
      () => autocannonRun(pairedConnections, sliceS, scenarios['POST /timesheets (distinct intervals)']({}), {}),
      () => closedLoop(pairedConnections, sliceS, rawScenarios['TransactWriteItems (create shape)']),
    );
    const rawSequence = await closedLoop(pairedConnections, sliceS, rawScenarios[RAW_CREATE_SEQUENCE]);
    const rawProjected = await closedLoop(pairedConnections, sliceS, rawScenarios[RAW_LIST_QUERY_PROJECTED]);
    const [apiList, rawList] = await pair(
      () => autocannonRun(pairedConnections, sliceS, scenarios['GET /timesheets (limit 50)']({}), {}),
      () => closedLoop(pairedConnections, sliceS, rawScenarios[RAW_LIST_QUERY]),
    );
    perRound.push({
      create: round3(apiCreate.reqPerSec / rawCreate.reqPerSec),
      list: round3(apiList.reqPerSec / rawList.reqPerSec),
      createVsSequence: round3(apiCreate.reqPerSec / rawSequence.reqPerSec),
      listVsProjected: round3(apiList.reqPerSec / rawProjected.reqPerSec),
    });
    log(`paired round ${round + 1}: create ${perRound.at(-1)!.create}, list ${perRound.at(-1)!.list}, create vs its raw call sequence ${perRound.at(-1)!.createVsSequence}`);
  }
  const mid = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const paired = { connections: pairedConnections, sliceS, rounds: perRound.length, createVsRawTransact: mid(perRound.map((r) => r.create)), listVsRawQuery: mid(perRound.map((r) => r.list)), createVsRawSequence: mid(perRound.map((r) => r.createVsSequence)), listVsProjectedQuery: mid(perRound.map((r) => r.listVsProjected)), perRound };
  rawDb.doc.destroy();
  db.doc.destroy();
  return { api, raw, rawTransactShape: { items: shape.length, actions: shape.map((i) => `${Object.keys(i.op)[0]} ${i.label}`) }, paired };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** `workers` loops calling `op` back to back for `durationS` seconds. */
async function closedLoop(workers: number, durationS: number, op: (worker: number) => Promise<unknown>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + durationS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await op(w);
          latencies.push(performance.now() - t);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return {
    connections: workers,
    durationS,
    requests: latencies.length + errors,
    ok: latencies.length,
    non2xx: 0,
    errors,
    reqPerSec: round(latencies.length / elapsed, 1),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
  };
}

async function post(base: string, auth: Record<string, string>, body: unknown): Promise<{ body: any; etag: string }> {
  const res = await fetch(`${base}/timesheets`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`setup create answered ${res.status}: ${text}`);
  return { body: JSON.parse(text), etag: res.headers.get('etag')! };
}

async function newEmployee(db: Db, organizationId: string): Promise<string> {
  const id = randomUUID();
  const at = new Date().toISOString();
  await putEmployee(db, { id, organizationId, userName: `${id}@bench.example`, emails: [], active: true, createdAt: at, updatedAt: at, version: 1 });
  return id;
}

/** A closed 8-hour interval on its own day from 2050 on: creates never overlap by accident. */
const interval = (day: number) => {
  const date = new Date(Date.UTC(2050, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
  return { startedAt: `${date}T08:00:00Z`, endedAt: `${date}T16:00:00Z` };
};

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
