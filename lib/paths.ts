import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The project root: the nearest folder at or above the working directory that holds
 * cdk.json. The CDK CLI (`npx tsx bin/app.ts`) and jest both start in the project, and this
 * file must not use `import.meta` (jest runs it as CommonJS), so the root is found by walking
 * up rather than from this file's location.
 */
export function projectRoot(from: string = process.cwd()): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'cdk.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No cdk.json found in ${from} or any folder above it: run the CDK app and the tests from the project.`);
    dir = parent;
  }
}

/** A path inside the project. */
export const fromRoot = (...segments: string[]): string => join(projectRoot(), ...segments);

export { handlerEntry } from '../services/shared/area';

/** The `context` of cdk.json (feature flags): what the CLI passes to the app, for tests that build the app in memory. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(fromRoot('cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return { ...cdkJson.context };
}
