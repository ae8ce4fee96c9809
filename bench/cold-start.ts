import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { TRACER_MODULES } from '../lib/constructs/tracer-layer';
import { AREAS, FUNCTIONS } from '../services/registry';
import { functionConstructId, handlerEntry } from '../services/shared/area';
import { REPO_ROOT } from './lib/local-runtime';
import { buildLikeStack, STACK_EXTERNALS, stackBuildOptions } from './lib/stack-build';
import { bundleFiles, staticClosure } from '../lib/constructs/bundling';
import { loadOnce } from './lib/import-time';
import { median, round } from './lib/stats';

/**
 * Cold start proxy: each Lambda bundle that `cdk synth` writes (asset.<hash>/index.mjs) is
 * imported in fresh Node processes; the median load time is set against a minimal bundle that
 * only imports the DynamoDB client, built with the same esbuild options as the stack's
 * bundles (lib/constructs/area-function.ts). The ratio shows what our code adds to the SDK.
 */
export interface BundleLoad {
  /** What a cold start reads: the entry and the chunks it imports statically (lib/constructs/bundling.ts staticClosure). */
  readonly bytes: number;
  /** Every .mjs file of the bundle, the chunks loaded on demand included. */
  readonly assetBytes?: number;
  /** What the bundle holds (esbuild metafile of its entry, the stack's options): KB per package, largest first. */
  readonly contents?: readonly { readonly name: string; readonly kb: number }[];
  readonly importMsMedian: number;
  readonly processMsMedian: number;
  readonly vsBareSdk: number;
  /** The same against the DynamoDB client bundled whole (issue 18's baseline, see ColdStartResults.api). */
  readonly vsWholeChainClient: number;
}

/** Median and worst import ratio over the functions on the request path (API_FUNCTIONS). */
export interface RatioSpread {
  readonly median: number;
  readonly worst: number;
  readonly worstBundle: string;
}

export interface ColdStartResults {
  readonly runsPerBundle: number;
  readonly bareSdk: Omit<BundleLoad, 'vsBareSdk' | 'vsWholeChainClient'>;
  /**
   * The same bare client with the whole default credential chain bundled (no externals but the
   * Tracer's): the baseline before issue 18, kept as a reference row, not in the ratios.
   */
  readonly bareSdkWholeChain?: BundleLoad;
  readonly bundles: Record<string, BundleLoad>;
  /**
   * The functions a request waits for (API_FUNCTIONS), against both baselines:
   * - `likeForLike`: the DynamoDB client built as the functions are (the unreached credential
   *   providers left out too): what our code and our dependencies add to the SDK;
   * - `wholeChainClient`: the DynamoDB client bundled whole, as issue 18 measured its 1.62 and
   *   set its targets (<= 1.25 median, <= 1.4 worst) against: the same ruler before and after.
   */
  readonly api?: { readonly functions: readonly string[]; readonly likeForLike: RatioSpread; readonly wholeChainClient: RatioSpread };
  readonly synthSeconds: number;
}

/** The functions on the request path: the authorizer, the API reference and every area's function (not workers, sweepers or the evidence channel). */
export const API_FUNCTIONS: readonly string[] = ['authorizer', 'openapi', ...AREAS.map((a) => a.name)].map(functionConstructId);

export function spread(bundles: Record<string, number>, names: readonly string[]): RatioSpread {
  const rows = names.filter((n) => bundles[n] !== undefined).map((n) => [n, bundles[n]] as const);
  const worst = rows.reduce((a, b) => (b[1] > a[1] ? b : a), ['', 0] as readonly [string, number]);
  return { median: round(median(rows.map((r) => r[1]))), worst: worst[1], worstBundle: worst[0] };
}

export async function measureColdStart(runs: number): Promise<ColdStartResults> {
  const work = mkdtempSync(join(tmpdir(), 'wfm-coldstart-'));
  try {
    const out = join(work, 'cdk.out');
    const started = performance.now();
    // Synth to a folder of our own: others may synth into cdk.out at the same time.
    const synth = spawnSync(join(REPO_ROOT, 'node_modules/.bin/cdk'), ['synth', '-c', 'env=test', '--quiet', '-o', out], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 });
    if (synth.status !== 0) throw new Error(`cdk synth failed (${synth.status}): ${(synth.stderr || synth.stdout).slice(-2000)}`);
    const synthSeconds = round((performance.now() - started) / 1000, 1);

    const bundles = functionBundles(out);
    const bare = join(work, 'bare');
    const wholeChain = join(work, 'bare-whole-chain');
    writeFileSync(join(work, 'bare.ts'), "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nconst client = new DynamoDBClient({});\nexport const handler = async () => ({ statusCode: 200, body: String(client !== undefined) });\n");
    const bareBuild = (outdir: string, external: readonly string[], singleFile = false) => buildLikeStack(join(work, 'bare.ts'), outdir, { external, singleFile });
    // The stack's externals too: the bare client leaves out the credential providers Lambda
    // never reaches, as every function does, so the ratio shows what our code adds and not
    // what the bundling options take away from both.
    await bareBuild(bare, STACK_EXTERNALS);
    // The baseline: the client bundled whole into one file, as NodejsFunction does by default.
    await bareBuild(wholeChain, TRACER_MODULES, true);
    // Round-robin over the bundles, after one untimed pass that warms the file cache, so that
    // a slower moment of the machine hits every bundle alike.
    const files: Record<string, string> = { [BARE]: join(bare, 'index.mjs'), [BARE_WHOLE_CHAIN]: join(wholeChain, 'index.mjs'), ...bundles };
    for (const file of Object.values(files)) loadOnce(file);
    const samples: Record<string, { imports: number[]; processes: number[] }> = {};
    for (let i = 0; i < runs; i += 1) {
      for (const [name, file] of Object.entries(files)) {
        const one = loadOnce(file);
        (samples[name] ??= { imports: [], processes: [] }).imports.push(one.importMs);
        samples[name].processes.push(one.processMs);
      }
    }
    const summary = (name: string) => ({ bytes: staticClosure(files[name]).bytes, assetBytes: bundleFiles(dirname(files[name])).reduce((sum, f) => sum + statSync(f).size, 0), importMsMedian: round(median(samples[name].imports)), processMsMedian: round(median(samples[name].processes)) });
    const bareLoad = summary(BARE);
    const wholeChainLoad = summary(BARE_WHOLE_CHAIN);
    const contents = await bundleContents();
    const result: Record<string, BundleLoad> = {};
    for (const name of Object.keys(bundles)) {
      const load = summary(name);
      result[name] = {
        ...load,
        vsBareSdk: round(load.importMsMedian / bareLoad.importMsMedian),
        vsWholeChainClient: round(load.importMsMedian / wholeChainLoad.importMsMedian),
        ...(contents[name] ? { contents: contents[name] } : {}),
      };
    }
    const ratioOf = (pick: (b: BundleLoad) => number) => Object.fromEntries(Object.entries(result).map(([k, v]) => [k, pick(v)]));
    return {
      runsPerBundle: runs,
      bareSdk: bareLoad,
      bareSdkWholeChain: { ...wholeChainLoad, vsBareSdk: round(wholeChainLoad.importMsMedian / bareLoad.importMsMedian), vsWholeChainClient: 1 },
      bundles: result,
      api: { functions: API_FUNCTIONS, likeForLike: spread(ratioOf((b) => b.vsBareSdk), API_FUNCTIONS), wholeChainClient: spread(ratioOf((b) => b.vsWholeChainClient), API_FUNCTIONS) },
      synthSeconds,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Function logical id (without its hash suffix) -> bundle file, from the TEST api stack and
 * its nested stacks (each area's functions live in a nested AreaStack of its own).
 */
function functionBundles(out: string): Record<string, string> {
  const templates = readdirSync(out).filter((f) => /Test.*Api.*\.template\.json$/.test(f));
  if (templates.length === 0) throw new Error(`No api stack template in ${out}`);
  const found: Record<string, string> = {};
  for (const templateFile of templates) {
    const template = JSON.parse(readFileSync(join(out, templateFile), 'utf8')) as { Resources: Record<string, { Type: string; Properties: any }> };
    for (const [id, resource] of Object.entries(template.Resources)) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const key = String(resource.Properties?.Code?.S3Key ?? '');
      const file = join(out, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs');
      if (existsSync(file)) found[id.replace(/[0-9A-F]{8}$/, '')] = file;
    }
  }
  return found;
}

const BARE = 'bare DynamoDB client';
const BARE_WHOLE_CHAIN = 'bare DynamoDB client, whole credential chain';

/** What lib/constructs/area-function.ts leaves out of every bundle (esbuild `external`). */

/**
 * The metafile summary of each function's bundle: esbuild builds its entry again with the
 * stack's options (lib/constructs/area-function.ts) and reports the bytes each package (or
 * services/<area>) contributes, so a heavy dependency that reaches a bundle shows by name.
 */
async function bundleContents(): Promise<Record<string, { name: string; kb: number }[]>> {
  const out: Record<string, { name: string; kb: number }[]> = {};
  for (const fn of FUNCTIONS) {
    const built = await build({ ...stackBuildOptions(), entryPoints: { index: join(REPO_ROOT, handlerEntry(fn)) }, outdir: 'out', write: false, metafile: true });
    const outputs = built.metafile.outputs;
    const entry = Object.keys(outputs).find((o) => outputs[o].entryPoint !== undefined);
    if (!entry) continue;
    // The entry's static closure: what a cold start loads (chunks behind import() are not).
    const closure = new Set<string>();
    const visit = (o: string) => {
      if (closure.has(o) || !outputs[o]) return;
      closure.add(o);
      for (const i of outputs[o].imports) if (i.kind === 'import-statement') visit(i.path);
    };
    visit(entry);
    const bytes: Record<string, number> = {};
    for (const [file, input] of [...closure].flatMap((o) => Object.entries(outputs[o].inputs))) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? file.replace(/^(\.\.\/)+[^/]+\//, '').split('/').slice(0, 2).join('/');
      bytes[pkg] = (bytes[pkg] ?? 0) + input.bytesInOutput;
    }
    out[functionConstructId(fn.name)] = Object.entries(bytes)
      .sort((a, b) => b[1] - a[1])
      .map(([name, b]) => ({ name, kb: round(b / 1024, 1) }));
  }
  return out;
}

