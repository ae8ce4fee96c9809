import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { TRACER_MODULES, writeTracerLayer } from '../lib/constructs/tracer-layer';
import { handlerEntry } from '../lib/paths';
import { FUNCTIONS } from '../services/registry';
import { functionConstructId } from '../services/shared/area';
import { API_FUNCTIONS, spread, type RatioSpread } from './cold-start';
import { REPO_ROOT } from './lib/local-runtime';
import { buildLikeStack } from './lib/stack-build';
import { staticClosure } from '../lib/constructs/bundling';
import { loadOnce } from './lib/import-time';
import { median, round } from './lib/stats';

/**
 * What metrics and tracing (services/shared/observability.ts) add to a cold start, in one run:
 * every function's entry is bundled twice with the stack's esbuild options (the Tracer external,
 * as the stack has it), as it is and with the observability kit replaced by a no-op stub (no
 * Powertools Metrics, no Tracer), and each bundle is imported in fresh Node processes,
 * round-robin with a bundle of only the DynamoDB client:
 *
 *   without       the stubbed bundle: the function without metrics and tracing
 *   off           the real bundle as deployed by default: metrics, no SDK tracing
 *                 (POWERTOOLS_TRACE_ENABLED=false; also what npm start and jest load)
 *   on            the real bundle with SDK tracing (`-c sdkTracing=true`): AWS_EXECUTION_ENV set and
 *                 the tracer layer on NODE_PATH, as Lambda gives them; the Tracer and the X-Ray SDK
 *                 are evaluated while the handler module loads
 *
 * off/without is the default's cost; on/without what SDK tracing adds on top.
 */
export interface ObservabilityLoad {
  readonly bytesWithout: number;
  readonly bytesWith: number;
  readonly importMsWithout: number;
  readonly importMsOff: number;
  readonly importMsOn: number;
  /** off ÷ without, median of the per-round ratios: the cost of metrics as deployed by default. */
  readonly offVsWithout: number;
  /** on ÷ without: the cost of metrics and SDK tracing, as Lambda pays it with -c sdkTracing=true. */
  readonly onVsWithout: number;
  readonly withoutVsBareSdk: number;
  readonly offVsBareSdk: number;
  readonly onVsBareSdk: number;
  /** off ÷ the DynamoDB client bundled whole: issue 18's ruler (bench/cold-start.ts, RatioSpread). */
  readonly offVsWholeChainClient: number;
  readonly onVsWholeChainClient: number;
}

export interface ObservabilityCostResults {
  readonly runsPerBundle: number;
  readonly bareSdkImportMs: number;
  readonly bundles: Record<string, ObservabilityLoad>;
  /** Medians over the functions. */
  readonly medianOffVsWithout: number;
  readonly medianOnVsWithout: number;
  readonly medianWithoutVsBareSdk: number;
  readonly medianOffVsBareSdk: number;
  readonly worstOffVsBareSdk: number;
  readonly medianOnVsBareSdk: number;
  readonly worstOnVsBareSdk: number;
  /** Import ms that metrics (off − without) and SDK tracing (on − off) add, medians. */
  readonly medianMetricsMs: number;
  readonly medianSdkTracingMs: number;
  readonly medianAddedBytes: number;
  readonly largestBundleBytes: number;
  /** The request-path functions (API_FUNCTIONS) against issue 18's ruler, the DynamoDB client bundled whole. */
  readonly wholeChainClientImportMs: number;
  readonly apiOffVsWholeChainClient: RatioSpread;
  readonly apiOnVsWholeChainClient: RatioSpread;
  readonly apiOffVsBareSdk: RatioSpread;
}

/** The kit's exports, doing nothing: the function as it was before metrics and tracing. */
const STUB = `
export const BUSINESS_METRICS = {};
export const REQUEST_METRICS = {};
export class MetricsBuffer { count() {} duration() {} absorb() {} get entries() { return []; } }
export const metricsEnabled = () => false;
export const publishRequestFigures = () => {};
export const publishFigures = () => {};
export const tracingEnabled = () => false;
export const traceClient = (client) => client;
export const tracingMiddleware = () => undefined;
`;

const KIT = join(REPO_ROOT, 'services/shared/observability.ts');

export async function measureObservabilityCost(runs: number): Promise<ObservabilityCostResults> {
  const work = mkdtempSync(join(tmpdir(), 'wfm-observability-'));
  try {
    const stubFile = join(work, 'observability-stub.mjs');
    writeFileSync(stubFile, STUB);
    const stub: Plugin = {
      name: 'observability-stub',
      setup(b) {
        b.onResolve({ filter: /observability$/ }, async (args) => {
          const resolved = await b.resolve(`${args.path}.ts`, { resolveDir: args.resolveDir, kind: args.kind });
          return resolved.path === KIT ? { path: stubFile } : undefined;
        });
      },
    };
    const layer = join(work, 'layer');
    writeTracerLayer(layer);
    const lambdaTracing = { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', NODE_PATH: join(layer, 'nodejs/node_modules') };
    const lambdaDefault = { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', POWERTOOLS_TRACE_ENABLED: 'false' };
    writeFileSync(join(work, 'bare.ts'), "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nconst client = new DynamoDBClient({});\nexport const handler = async () => ({ statusCode: 200, body: String(client !== undefined) });\n");
    const bare = await buildLikeStack(join(work, 'bare.ts'), join(work, 'bare'));
    const wholeChain = await buildLikeStack(join(work, 'bare.ts'), join(work, 'bare-whole-chain'), { external: TRACER_MODULES, singleFile: true });

    const files: Record<string, { with: string; without: string }> = {};
    for (const fn of FUNCTIONS) {
      const entry = join(REPO_ROOT, handlerEntry(fn));
      files[fn.name] = {
        with: await buildLikeStack(entry, join(work, fn.name, 'with')),
        without: await buildLikeStack(entry, join(work, fn.name, 'without'), { plugins: [stub] }),
      };
    }

    const loads: Array<{ key: string; file: string; env: Record<string, string> }> = [
      { key: 'bare', file: bare, env: {} },
      { key: 'bare-whole-chain', file: wholeChain, env: {} },
    ];
    for (const [name, f] of Object.entries(files)) {
      loads.push({ key: `${name}/without`, file: f.without, env: lambdaDefault }, { key: `${name}/off`, file: f.with, env: lambdaDefault }, { key: `${name}/on`, file: f.with, env: lambdaTracing });
    }
    // One untimed pass warms the file cache; then round-robin, so that a slow moment hits all alike.
    for (const l of loads) loadOnce(l.file, l.env).importMs;
    const samples: Record<string, number[]> = {};
    for (let i = 0; i < runs; i += 1) for (const l of loads) (samples[l.key] ??= []).push(loadOnce(l.file, l.env).importMs);
    const ms = (key: string) => round(median(samples[key]));
    // The three loads of one function run back to back in each round: the median of the
    // per-round ratios cancels most of what a busy machine does between rounds.
    const paired = (a: string, b: string) => round(median(samples[a].map((x, i) => x / samples[b][i])));

    const bareMs = ms('bare');
    const wholeChainMs = ms('bare-whole-chain');
    const bundles: Record<string, ObservabilityLoad> = {};
    for (const [name, f] of Object.entries(files)) {
      const without = ms(`${name}/without`);
      const on = ms(`${name}/on`);
      const off = ms(`${name}/off`);
      bundles[name] = {
        bytesWithout: staticClosure(f.without).bytes,
        bytesWith: staticClosure(f.with).bytes,
        importMsWithout: without,
        importMsOff: off,
        importMsOn: on,
        offVsWithout: paired(`${name}/off`, `${name}/without`),
        onVsWithout: paired(`${name}/on`, `${name}/without`),
        withoutVsBareSdk: round(without / bareMs),
        offVsBareSdk: round(off / bareMs),
        onVsBareSdk: round(on / bareMs),
        offVsWholeChainClient: round(off / wholeChainMs),
        onVsWholeChainClient: round(on / wholeChainMs),
      };
    }
    const all = Object.values(bundles);
    const med = (pick: (b: ObservabilityLoad) => number) => round(median(all.map(pick)));
    const api = (pick: (b: ObservabilityLoad) => number) => spread(Object.fromEntries(Object.entries(bundles).map(([n, b]) => [functionConstructId(n), pick(b)])), API_FUNCTIONS);
    return {
      runsPerBundle: runs,
      bareSdkImportMs: bareMs,
      bundles,
      medianOffVsWithout: med((b) => b.offVsWithout),
      medianOnVsWithout: med((b) => b.onVsWithout),
      medianWithoutVsBareSdk: med((b) => b.withoutVsBareSdk),
      medianOffVsBareSdk: med((b) => b.offVsBareSdk),
      worstOffVsBareSdk: round(Math.max(...all.map((b) => b.offVsBareSdk))),
      medianOnVsBareSdk: med((b) => b.onVsBareSdk),
      worstOnVsBareSdk: round(Math.max(...all.map((b) => b.onVsBareSdk))),
      medianMetricsMs: round(median(Object.keys(files).map((n) => median(samples[`${n}/off`].map((x, i) => x - samples[`${n}/without`][i]))))),
      medianSdkTracingMs: round(median(Object.keys(files).map((n) => median(samples[`${n}/on`].map((x, i) => x - samples[`${n}/off`][i]))))),
      medianAddedBytes: med((b) => b.bytesWith - b.bytesWithout),
      largestBundleBytes: Math.max(...all.map((b) => b.bytesWith)),
      wholeChainClientImportMs: wholeChainMs,
      apiOffVsWholeChainClient: api((b) => b.offVsWholeChainClient),
      apiOnVsWholeChainClient: api((b) => b.onVsWholeChainClient),
      apiOffVsBareSdk: api((b) => b.offVsBareSdk),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
