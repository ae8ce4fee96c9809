import type { BuildOptions } from 'esbuild';
import { ESM_REQUIRE_BANNER, UNREACHED_CREDENTIAL_PROVIDERS } from '../../lib/constructs/area-function';
import { TRACER_MODULES } from '../../lib/constructs/tracer-layer';
import { REPO_ROOT } from './local-runtime';

/** What the stack leaves out of every function bundle (lib/constructs/area-function.ts). */
export const STACK_EXTERNALS: readonly string[] = [...TRACER_MODULES, ...UNREACHED_CREDENTIAL_PROVIDERS];

/**
 * The esbuild options the stack bundles a function with (lib/constructs/area-function.ts:
 * one minified ESM file for node22 with a require() banner and the stack's externals), for the
 * bench's own builds. `external` replaces the stack's externals (e.g. the bare client with the
 * whole credential chain, as a reference row).
 */
export const stackBuildOptions = (external: readonly string[] = STACK_EXTERNALS): BuildOptions => ({
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  mainFields: ['module', 'main'],
  nodePaths: [`${REPO_ROOT}/node_modules`],
  banner: { js: ESM_REQUIRE_BANNER },
  external: [...external],
  logLevel: 'silent',
});
