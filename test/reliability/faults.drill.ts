import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { isAlive, startLocalRuntime, type LocalRuntime } from '../../bench/lib/local-runtime';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../services/local/dynamodb';
import { createDb, type Db } from '../../services/shared/ddb/client';
import { call, itemsOfType, type ApiFixture, type ApiResponse } from '../support/api';
import { addEmployee, dayInterval, errorShapeProblems, expectConsistent, leaksIn, manualBody, record, tally } from './support';

/**
 * Fault drill: the local runtime (`npm start`, persistent data) runs in a process of its own;
 * its DynamoDB Local is killed with SIGKILL in the middle of a write load and started again on
 * the same port with the same data directory. Clients retry as the contract tells them (same
 * Idempotency-Key, after Retry-After). Proves that during the outage clients get 5xx problems
 * without internal text, that no acknowledged write is lost or applied twice, and that the
 * table holds every invariant of the consistency checker afterwards.
 *
 * The API runs outside jest on purpose: inside jest's module sandbox Node's own errors
 * (ECONNREFUSED) fail `instanceof Error`, the SDK wraps them without their `code`, and an
 * outage would look like a 500 instead of the 503 the handlers give in Lambda.
 */
const WORKERS = 6;
const LOAD_BEFORE_KILL_MS = 1_500;
const OUTAGE_MS = 2_000;
const LOAD_AFTER_RESTART_MS = 3_000;
const GIVE_UP_MS = 60_000;
/** How long before the kill an acknowledged write may still be lost by DynamoDB Local (see below). */
const LOST_WINDOW_MS = 1_000;

let runtime: LocalRuntime;
let restarted: DynamoDbLocal | undefined;
let db: Db;

beforeAll(async () => {
  runtime = await startLocalRuntime({ persistent: true });
  db = createDb({ tableName: runtime.tableName, endpoint: runtime.dynamoDbEndpoint });
});

afterAll(async () => {
  await runtime?.stop();
  await restarted?.stop();
});

interface Attempt {
  readonly at: number;
  readonly res: ApiResponse;
}

interface Operation {
  readonly kind: 'create' | 'correct';
  readonly worker: number;
  readonly attempts: Attempt[];
  /** The entry a correction changes. */
  readonly entryId?: string;
  final?: ApiResponse;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const retryable = (r: ApiResponse) => r.status >= 500 || (r.status === 409 && r.body?.code === 'IDEMPOTENCY_REQUEST_IN_PROGRESS');

/** One logical write, retried with the same Idempotency-Key until it is answered for good. */
async function untilAnswered(op: Operation, send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const started = Date.now();
  for (;;) {
    let res: ApiResponse;
    try {
      res = await send();
    } catch (error) {
      throw new Error(`The local gateway itself failed: ${(error as Error).message}`);
    }
    op.attempts.push({ at: Date.now(), res });
    if (!retryable(res) || Date.now() - started > GIVE_UP_MS) return res;
    await sleep(Math.min(Number(res.headers.get('retry-after') ?? '1') * 1000, 1_000) * (0.5 + Math.random() / 2));
  }
}

it('loses no acknowledged write and half-writes nothing when DynamoDB Local is killed and restarted', async () => {
  const demo = runtime.demo;
  const fixture = { demo, orgUrl: (org = demo.organizationId) => `${runtime.url}/v1/organizations/${org}` } as unknown as ApiFixture;
  const employees = await Promise.all(Array.from({ length: WORKERS }, () => addEmployee(db, demo.organizationId)));
  const operations: Operation[] = [];
  let stopAt = Number.POSITIVE_INFINITY;
  let killedAt = 0;
  let restartedAt = 0;

  async function worker(w: number): Promise<void> {
    for (let day = 0; Date.now() < stopAt; day += 1) {
      const create: Operation = { kind: 'create', worker: w, attempts: [] };
      operations.push(create);
      const key = randomUUID();
      const body = manualBody(fixture, employees[w], dayInterval(day));
      create.final = await untilAnswered(create, () => call('POST', `${fixture.orgUrl()}/timesheets`, { token: demo.keys.admin, idempotencyKey: key, body }));
      if (create.final.status !== 201) return;
      const correct: Operation = { kind: 'correct', worker: w, attempts: [], entryId: create.final.body.id };
      operations.push(correct);
      const patchKey = randomUUID();
      const etag = create.final.headers.get('etag')!;
      correct.final = await untilAnswered(correct, () =>
        call('PATCH', `${fixture.orgUrl()}/timesheets/${create.final!.body.id}`, { token: demo.keys.admin, idempotencyKey: patchKey, ifMatch: etag, body: { breakMinutes: 45, reason: 'Fault drill' } }),
      );
      if (correct.final.status !== 200) return;
    }
  }

  const load = Promise.all(employees.map((_, w) => worker(w)));
  await sleep(LOAD_BEFORE_KILL_MS);
  killedAt = Date.now();
  process.kill(runtime.dynamoDbPid, 'SIGKILL');
  while (isAlive(runtime.dynamoDbPid)) await sleep(20);
  await sleep(OUTAGE_MS);
  restarted = await startDynamoDbLocal({ port: runtime.dynamoDbPort, dataDir: join(runtime.localDir, 'dynamodb') });
  restartedAt = Date.now();
  stopAt = restartedAt + LOAD_AFTER_RESTART_MS;
  await load;

  const attempts = operations.flatMap((o) => o.attempts);
  const failures = attempts.filter((a) => a.res.status >= 500);
  const firstSuccessAfterRestart = attempts.filter((a) => a.at >= restartedAt && a.res.status < 300).map((a) => a.at).sort()[0];
  record('DynamoDB Local killed and restarted', {
    workers: WORKERS,
    operations: operations.length,
    requests: attempts.length,
    outageMs: restartedAt - killedAt,
    outcome: tally(attempts.map((a) => a.res)),
    recoveredAfterRestartMs: firstSuccessAfterRestart ? firstSuccessAfterRestart - restartedAt : null,
    replayedAfterRetry: operations.filter((o) => o.final?.headers.get('idempotency-replayed') === 'true').length,
  });

  // The fault reached clients, and they saw only well-formed 5xx problems without internal text.
  expect(failures.length).toBeGreaterThan(0);
  for (const { res } of failures) {
    expect({ status: res.status, wrong: errorShapeProblems(res, 'public'), leaks: leaksIn(res.text, [runtime.tableName, String(runtime.dynamoDbPort)]) }).toEqual({
      status: res.status,
      wrong: [],
      leaks: [],
    });
    expect(['SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']).toContain(res.body.code);
  }
  // DynamoDB Local acknowledges a transaction before its storage has it on disk: a write
  // acknowledged in the last moment before SIGKILL can be gone after the restart (seen: a
  // create answered 3 ms before the kill, a correction likewise). Real DynamoDB acknowledges
  // only durable writes. Such a write must be gone whole (the checker below finds no fragment:
  // no audit entry, timeline item or idempotency record without its entry revision), and
  // nothing acknowledged earlier than that window may be missing.
  const stored = await itemsOfType(db, 'TimeEntry');
  const ackAt = (o: Operation) => o.attempts.at(-1)!.at;
  const entryOf = (id: string) => stored.find((e) => e.id === id);
  const durable = (o: Operation) => (o.kind === 'create' ? entryOf(o.final!.body.id) !== undefined : entryOf(o.entryId!)?.revision === 2);
  const acknowledged = operations.filter((o) => o.final?.status === (o.kind === 'create' ? 201 : 200));
  const lost = acknowledged.filter((o) => !durable(o));
  record('acknowledged writes lost by DynamoDB Local', { count: lost.length, kinds: lost.map((o) => o.kind), msBeforeKill: lost.map((o) => killedAt - ackAt(o)) });
  for (const o of lost) expect(killedAt - ackAt(o)).toBeLessThan(LOST_WINDOW_MS);
  const lostCreates = new Set(lost.filter((o) => o.kind === 'create').map((o) => o.final!.body.id as string));

  // Every write was answered for good once the table was back (a correction of a lost create: 404).
  for (const o of operations) {
    const expected = o.kind === 'create' ? 201 : lostCreates.has(o.entryId!) ? 404 : 200;
    expect({ kind: o.kind, status: o.final?.status }).toEqual({ kind: o.kind, status: expected });
  }
  expect(firstSuccessAfterRestart).toBeDefined();

  // Nothing is applied twice: each employee has exactly the entries it was told about (less the lost ones).
  for (const [w, employeeId] of employees.entries()) {
    const told = operations.filter((o) => o.worker === w && o.kind === 'create').map((o) => o.final!.body.id as string).filter((id) => !lostCreates.has(id));
    expect(stored.filter((e) => e.employeeId === employeeId).map((e) => e.id).sort()).toEqual([...new Set(told)].sort());
  }
  for (const o of acknowledged.filter((x) => x.kind === 'correct' && durable(x))) expect(entryOf(o.entryId!)?.breakMinutes).toBe(45);
  // The seed written before the kill survived it (data on disk), and the whole table holds.
  expect((await itemsOfType(db, 'Organization')).length).toBeGreaterThanOrEqual(3);
  await expectConsistent(db);
});
