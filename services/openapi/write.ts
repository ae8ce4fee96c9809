import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { generatedFiles } from './generate';

/**
 * `npm run openapi`: writes docs/openapi.json and the typed client's types
 * (clients/typescript/openapi.ts) from the route table and the zod schemas.
 * `npm run openapi -- --check` writes nothing and fails when a committed file differs.
 */
const check = process.argv.includes('--check');
const files = await generatedFiles();
const stale = Object.entries(files).filter(([path, text]) => !existsSync(path) || readFileSync(path, 'utf8') !== text);
if (check) {
  if (stale.length > 0) {
    console.error(`Out of date: ${stale.map(([path]) => path).join(', ')}. Run \`npm run openapi\` and commit the result.`);
    process.exit(1);
  }
  console.log(`up to date: ${Object.keys(files).join(', ')}`);
} else {
  for (const [path, text] of stale) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  for (const path of Object.keys(files)) console.log(`${stale.some(([p]) => p === path) ? 'wrote' : 'unchanged'} ${path}`);
}
