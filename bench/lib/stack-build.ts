import { join } from 'node:path';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { ENTRY_FILE, FUNCTION_EXTERNALS, functionBuildOptions } from '../../lib/constructs/bundling';
import { REPO_ROOT } from './local-runtime';

/** What the stack leaves out of every function bundle (lib/constructs/bundling.ts). */
export const STACK_EXTERNALS: readonly string[] = FUNCTION_EXTERNALS;

/**
 * The esbuild options the stack bundles a function with (lib/constructs/bundling.ts: minified
 * ESM for node22 with a require() banner, the stack's externals and code splitting), for the
 * bench's own builds. `external` replaces the stack's externals (e.g. the bare client with the
 * whole credential chain, as a reference row).
 */
export const stackBuildOptions = (external: readonly string[] = STACK_EXTERNALS): BuildOptions => ({
  ...functionBuildOptions(external),
  nodePaths: [`${REPO_ROOT}/node_modules`],
  logLevel: 'silent',
});

/**
 * Bundles `entry` as the stack does into `outdir` (index.mjs and its chunks); returns the entry
 * file. `singleFile`: one file without code splitting, as NodejsFunction bundles by default
 * (and as the stack did before issue 18): the baseline bundle the issue measured against.
 */
export async function buildLikeStack(entry: string, outdir: string, options: { readonly external?: readonly string[]; readonly plugins?: Plugin[]; readonly singleFile?: boolean } = {}): Promise<string> {
  const plugins = options.plugins ? { plugins: options.plugins } : {};
  if (options.singleFile) {
    await build({ ...stackBuildOptions(options.external), splitting: false, entryPoints: [entry], outfile: join(outdir, ENTRY_FILE), ...plugins });
  } else {
    await build({ ...stackBuildOptions(options.external), entryPoints: { index: entry }, outdir, ...plugins });
  }
  return join(outdir, ENTRY_FILE);
}
