import { createHash } from 'node:crypto';
import { traceClient } from '../observability';
import { ConfigurationError, ENV } from '../config';

let cursorKeyPromise: Promise<Buffer> | undefined;

/**
 * The 256-bit key that seals list cursors. Locally and in tests it comes from CURSOR_SECRET;
 * in AWS from the Secrets Manager secret named by CURSOR_SECRET_ARN, read once per container.
 */
export function cursorKey(): Promise<Buffer> {
  cursorKeyPromise ??= loadCursorKey().catch((error: unknown) => {
    cursorKeyPromise = undefined;
    throw error;
  });
  return cursorKeyPromise;
}

async function loadCursorKey(): Promise<Buffer> {
  const inline = process.env[ENV.CURSOR_SECRET];
  if (inline) return deriveKey(inline);
  const arn = process.env[ENV.CURSOR_SECRET_ARN];
  if (!arn) throw new ConfigurationError(`Set ${ENV.CURSOR_SECRET} or ${ENV.CURSOR_SECRET_ARN}.`);
  // Loaded here, once per container: only list routes (their cursors) need it (a chunk of its own, lib/constructs/bundling.ts).
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const out = await traceClient(new SecretsManagerClient({})).send(new GetSecretValueCommand({ SecretId: arn }));
  if (!out.SecretString) throw new ConfigurationError('The cursor secret has no string value.');
  return deriveKey(out.SecretString);
}

/** Any secret string becomes a 32-byte key (the secret itself carries the entropy). */
export const deriveKey = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();
