import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Secrets of the local runtime, made on first start and kept in .local/ (git-ignored):
 * the cursor key, the master key for restricted evidence (stand-in for KMS) and the seed
 * secret from which the demo API keys are derived, so demo keys survive restarts.
 */
export interface LocalSecrets {
  readonly cursorSecret: string;
  readonly restrictedDataKey: string;
  readonly seedSecret: string;
}

export function loadLocalSecrets(dir: string): LocalSecrets {
  const file = join(dir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as LocalSecrets;
  mkdirSync(dir, { recursive: true });
  const secrets: LocalSecrets = {
    cursorSecret: randomBytes(32).toString('base64url'),
    restrictedDataKey: randomBytes(32).toString('base64'),
    seedSecret: randomBytes(32).toString('base64url'),
  };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
