import { copyFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { buildSync, type BuildOptions } from 'esbuild';
import { fromRoot } from '../paths';
import { TRACER_MODULES } from './tracer-layer';

/**
 * The credential providers of the SDK's default chain that a Lambda function never reaches:
 * the chain tries the environment first (`fromEnv`), and Lambda always sets
 * AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN from the function's role. The
 * chain loads these only after the environment failed, each through a dynamic `import()`
 * (`@aws-sdk/credential-provider-node`, defaultProvider.js and remoteProvider.js; esbuild's
 * metafile shows no static import of them), so leaving them out of the bundle (esbuild
 * `external`) removes ~90 KB per function (with `@aws-sdk/nested-clients`, the SSO/STS/sign-in
 * clients they bring) without changing what runs. Local code runs from node_modules, unbundled.
 */
export const UNREACHED_CREDENTIAL_PROVIDERS = [
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-http',
  '@smithy/credential-provider-imds',
] as const;

/** What no function bundle holds: the Tracer (the TracerLayer serves it where SDK tracing is on) and the providers above. */
export const FUNCTION_EXTERNALS: readonly string[] = [...TRACER_MODULES, ...UNREACHED_CREDENTIAL_PROVIDERS];

/** Bundled CommonJS dependencies call require(); ESM has none, so every output file gets one. */
export const ESM_REQUIRE_BANNER = "import { createRequire as topLevelCreateRequire } from 'node:module'; const require = topLevelCreateRequire(import.meta.url);";

/** The entry file Lambda loads (`index.handler`); the chunks sit beside it under chunks/. */
export const ENTRY_FILE = 'index.mjs';

/**
 * esbuild's options for a function bundle (the stack's, and the bench's own builds): minified
 * ESM for Node 22 with the AWS SDK inside (its version is the lockfile's, not the runtime's),
 * and code splitting: what a module loads by dynamic `import()` (the S3 client and presigner,
 * SQS, KMS, Secrets Manager, each only where some routes need it; the SDK's own lazy parts) is
 * a chunk of its own, read from disk only when a request first needs it, so a cold start reads
 * only the entry's static imports. `external` replaces FUNCTION_EXTERNALS (the bench's bare
 * client with the whole credential chain).
 */
export const functionBuildOptions = (external: readonly string[] = FUNCTION_EXTERNALS): BuildOptions => ({
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  mainFields: ['module', 'main'],
  banner: { js: ESM_REQUIRE_BANNER },
  external: [...external],
  splitting: true,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});

/**
 * The code of one function: `entry` bundled by the local esbuild (never Docker) into
 * `index.mjs` with its chunks and source maps, plus `assets` copied beside it (file name ->
 * path from the project root). The asset's hash is its output's, as NodejsFunction's is.
 */
export function functionCode(entry: string, assets: Readonly<Record<string, string>> = {}): Code {
  return Code.fromAsset(fromRoot(), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: local bundling always answers (esbuild is a dependency of the project).
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
      // Part of the asset cache key, which leaves out the `local` function: without what tells
      // two functions apart, every function of the app would get the first one's bundle.
      environment: { WFM_ENTRY: entry, WFM_ASSETS: JSON.stringify(assets) },
      local: {
        tryBundle(outputDir: string): boolean {
          buildSync({ ...functionBuildOptions(), entryPoints: { index: fromRoot(entry) }, outdir: outputDir, sourcemap: true, absWorkingDir: fromRoot() });
          for (const [name, from] of Object.entries(assets)) copyFileSync(fromRoot(from), join(outputDir, name));
          return true;
        },
      },
    },
  });
}

/**
 * The files a cold start reads: the entry and every chunk it imports statically (not those
 * behind a dynamic `import()`), with their bytes. For the tests and the bench.
 */
export function staticClosure(entryFile: string): { files: string[]; bytes: number } {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    // esbuild writes static chunk imports as `import{...}from"./chunks/x.mjs"` (or `import"./x.mjs"`).
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[\w*${}\s,]+from\s*)?["'](\.{1,2}\/[^"']+)["']/g)) visit(resolve(dirname(file), m[1]));
  };
  visit(resolve(entryFile));
  const files = [...seen];
  return { files, bytes: files.reduce((sum, f) => sum + statSync(f).size, 0) };
}

/** Every JavaScript file of a function's bundle folder (the entry and its chunks), sorted. */
export function bundleFiles(bundleDir: string): string[] {
  return readdirSync(bundleDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.mjs'))
    .map((f) => join(bundleDir, f))
    .sort();
}

/** Every JavaScript file of a function's asset (entry and chunks), concatenated: what the function can ever run. */
export function assetCode(assetDir: string): string {
  return bundleFiles(assetDir)
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}
