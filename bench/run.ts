import './lib/env';
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { measureColdStart, type ColdStartResults } from './cold-start';
import { measureObservabilityCost, type ObservabilityCostResults } from './observability-cost';
import { measureCallsPerOp, measureScale, startInProcess, type CallsPerOp, type ScaleShape } from './in-process';
import { REPO_ROOT } from './lib/local-runtime';
import { median, round } from './lib/stats';
import { measureThroughput, RAW_LIST_QUERY, type LoadResult, type ThroughputResults } from './throughput';
import { renderMarkdown } from './report';

/**
 * `npm run bench`: speed, cost and limits of the API on this machine, one run, written to
 * bench/results/latest.json and latest.md. BENCH_QUICK=1 for a short run (about a minute);
 * BENCH_PHASES=calls,scale,throughput,coldstart to run only some phases; BENCH_OUT=<name> writes
 * bench/results/<name>.json and .md instead of latest (a partial run then keeps the full one).
 */
export interface BenchResults {
  readonly version: 1;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly quick: boolean;
  readonly machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string; kernel: string; loadAverage1mAtStart: number; loadAverage1mAtEnd: number };
  readonly commit: { sha: string; subject: string; dirty: boolean };
  readonly settings: Record<string, unknown>;
  readonly ratios: {
    /** API POST /timesheets req/s over raw TransactWriteItems (same shape) ops/s, both at their best connection count. */
    readonly createVsRawTransact?: number;
    /** API GET /timesheets req/s over the raw Query of a list page (ONE Query: the physical minimum), both at their best connection count. */
    readonly listVsRawQuery?: number;
    /** Median over the Lambda bundles of (bundle import time / bare DynamoDB client bundle import time). */
    readonly coldStartVsBareSdk?: number;
    readonly byConnections?: Record<string, { createVsRawTransact: number; listVsRawQuery: number }>;
  };
  readonly dynamodbCallsPerOp?: Record<string, CallsPerOp>;
  readonly throughput?: ThroughputResults;
  readonly scale?: ScaleShape;
  readonly coldStart?: ColdStartResults;
  /** Metrics and tracing's share of a cold start (bench/observability-cost.ts), with the cold start phase. */
  readonly observabilityCost?: ObservabilityCostResults;
  readonly durationsS: Record<string, number>;
}

const quick = process.env.BENCH_QUICK === '1' || process.env.BENCH_QUICK === 'true';
const phases = new Set((process.env.BENCH_PHASES ?? 'calls,scale,throughput,coldstart').split(',').map((p) => p.trim()));
const settings = quick
  ? { connections: [1, 8, 32], durationS: 2, warmupS: 0.5, scaleSizes: [10, 1000], scaleSamples: 12, coldStartRuns: 3, callRepeats: 3 }
  : { connections: [1, 8, 32], durationS: 5, warmupS: 1, scaleSizes: [10, 1000, 10000], scaleSamples: 30, coldStartRuns: 7, callRepeats: 5 };

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  // Other work on the machine (a jest run, a build) skews every figure: the load is reported.
  const loadAtStart = round(loadavg()[0]);
  const durationsS: Record<string, number> = {};
  const timed = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    log(`${name}...`);
    try {
      return await run();
    } finally {
      durationsS[name] = round((performance.now() - t) / 1000, 1);
      log(`${name} took ${durationsS[name]} s`);
    }
  };

  let dynamodbCallsPerOp: Record<string, CallsPerOp> | undefined;
  let scale: ScaleShape | undefined;
  if (phases.has('calls') || phases.has('scale')) {
    const app = await startInProcess();
    try {
      if (phases.has('calls')) dynamodbCallsPerOp = await timed('calls per operation', () => measureCallsPerOp(app, settings.callRepeats));
      if (phases.has('scale')) scale = await timed('scale shape', () => measureScale(app, { sizes: settings.scaleSizes, samples: settings.scaleSamples }));
    } finally {
      await app.stop();
    }
  }
  const throughput = phases.has('throughput') ? await timed('throughput', () => measureThroughput(settings)) : undefined;
  const coldStart = phases.has('coldstart') ? await timed('cold start', () => measureColdStart(settings.coldStartRuns)) : undefined;
  const observabilityCost = phases.has('coldstart') ? await timed('metrics and tracing cost', () => measureObservabilityCost(settings.coldStartRuns)) : undefined;

  const results: BenchResults = {
    version: 1,
    startedAt,
    finishedAt: new Date().toISOString(),
    quick,
    machine: { ...machine(), loadAverage1mAtStart: loadAtStart, loadAverage1mAtEnd: round(loadavg()[0]) },
    commit: commit(),
    settings,
    ratios: ratios(throughput, coldStart),
    ...(dynamodbCallsPerOp ? { dynamodbCallsPerOp } : {}),
    ...(throughput ? { throughput } : {}),
    ...(scale ? { scale } : {}),
    ...(coldStart ? { coldStart } : {}),
    ...(observabilityCost ? { observabilityCost } : {}),
    durationsS,
  };
  const dir = join(REPO_ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const name = process.env.BENCH_OUT ?? 'latest';
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(dir, `${name}.md`), renderMarkdown(results));
  log(`wrote bench/results/${name}.json and ${name}.md`);
  console.log(JSON.stringify({ ratios: results.ratios, durationsS }, null, 2));
}

const best = (results: readonly LoadResult[] | undefined) => Math.max(0, ...(results ?? []).map((r) => r.reqPerSec));
const at = (results: readonly LoadResult[] | undefined, connections: number) => results?.find((r) => r.connections === connections)?.reqPerSec ?? 0;

function ratios(throughput: ThroughputResults | undefined, coldStart: ColdStartResults | undefined): BenchResults['ratios'] {
  const out: { -readonly [K in keyof BenchResults['ratios']]: BenchResults['ratios'][K] } = {};
  if (throughput) {
    const create = throughput.api['POST /timesheets (distinct intervals)'];
    const transact = throughput.raw['TransactWriteItems (create shape)'];
    const list = throughput.api['GET /timesheets (limit 50)'];
    const query = throughput.raw[RAW_LIST_QUERY];
    out.createVsRawTransact = round(best(create) / best(transact), 3);
    out.listVsRawQuery = round(best(list) / best(query), 3);
    out.byConnections = Object.fromEntries(
      (create ?? []).map((r) => [String(r.connections), { createVsRawTransact: round(r.reqPerSec / at(transact, r.connections), 3), listVsRawQuery: round(at(list, r.connections) / at(query, r.connections), 3) }]),
    );
  }
  if (coldStart) out.coldStartVsBareSdk = round(median(Object.values(coldStart.bundles).map((b) => b.vsBareSdk)), 2);
  return out;
}

function machine(): Omit<BenchResults['machine'], 'loadAverage1mAtStart' | 'loadAverage1mAtEnd'> {
  const list = cpus();
  return { cpus: list.length, cpuModel: list[0]?.model ?? 'unknown', memoryGiB: round(totalmem() / 2 ** 30, 1), node: process.version, platform: process.platform, kernel: release() };
}

function commit(): BenchResults['commit'] {
  const git = (args: string) => execSync(`git ${args}`, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  try {
    return { sha: git('rev-parse HEAD'), subject: git('log -1 --format=%s'), dirty: git('status --porcelain --untracked-files=no') !== '' };
  } catch {
    return { sha: 'unknown', subject: '', dirty: true };
  }
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

main().catch((error: unknown) => {
  console.error(`[bench] failed: ${(error as Error).stack ?? error}`);
  process.exit(1);
});
