import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * The shared secret store: values a function must keep but never show (provider credentials).
 * In AWS, AWS Secrets Manager, every name under the prefix the stack sets in
 * SECRET_STORE_PREFIX (`wfm/<env>/`); the function's role may touch only names under it.
 * Locally (`npm start`, tests), one JSON file per secret under LOCAL_SECRET_STORE_DIR
 * (`.local/secret-store/` by default), written with mode 0600.
 *
 * Values never reach a log line, an error message or an audit entry: callers get them back
 * only from `get`, and errors name the secret, never its value.
 */
export const SECRET_STORE_PREFIX_ENV = 'SECRET_STORE_PREFIX';
export const LOCAL_SECRET_STORE_DIR_ENV = 'LOCAL_SECRET_STORE_DIR';

export interface SecretStore {
  /** Creates or replaces the value of `name` (a path of lower-case words and ids, e.g. `integrations/<org>/<id>`). */
  put(name: string, value: string): Promise<void>;
  /** The current value, or undefined when none was stored. */
  get(name: string): Promise<string | undefined>;
  /** Deletes `name` (Secrets Manager keeps it recoverable for 7 days); one that does not exist is no error. */
  remove(name: string): Promise<void>;
}

const NAME = /^[a-z0-9][a-z0-9/-]{0,400}$/;

function checkedName(name: string): string {
  if (!NAME.test(name) || name.includes('..') || name.includes('//')) throw new Error('A secret name is lower-case words, digits, "-" and "/".');
  return name;
}

let client: SecretsManagerClient | undefined;

/** Secrets Manager, every name under `prefix`. */
export function secretsManagerStore(prefix: string): SecretStore {
  const id = (name: string) => `${prefix}${checkedName(name)}`;
  // Loaded on first use: only the routes and the worker that touch provider credentials need it.
  const sdk = () => import('@aws-sdk/client-secrets-manager');
  const sm = async () => (client ??= new (await sdk()).SecretsManagerClient({}));
  return {
    async put(name, value) {
      const { CreateSecretCommand, PutSecretValueCommand, ResourceNotFoundException } = await sdk();
      try {
        await (await sm()).send(new PutSecretValueCommand({ SecretId: id(name), SecretString: value }));
      } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error;
        await (await sm()).send(new CreateSecretCommand({ Name: id(name), SecretString: value, Description: 'Provider credentials of a WFM integration' }));
      }
    },
    async remove(name) {
      const { DeleteSecretCommand, ResourceNotFoundException } = await sdk();
      try {
        await (await sm()).send(new DeleteSecretCommand({ SecretId: id(name), RecoveryWindowInDays: 7 }));
      } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error;
      }
    },
    async get(name) {
      const { GetSecretValueCommand, ResourceNotFoundException } = await sdk();
      try {
        const out = await (await sm()).send(new GetSecretValueCommand({ SecretId: id(name) }));
        return out.SecretString;
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return undefined;
        throw error;
      }
    },
  };
}

/** One file per secret under `dir` (0600, written through a temporary file); the local stand-in for Secrets Manager. */
export function fileSecretStore(dir: string): SecretStore {
  const file = (name: string) => join(dir, `${checkedName(name)}.json`);
  return {
    async put(name, value) {
      const path = file(name);
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const temporary = `${path}.tmp`;
      writeFileSync(temporary, `${JSON.stringify({ value })}\n`, { mode: 0o600 });
      chmodSync(temporary, 0o600);
      renameSync(temporary, path);
    },
    async remove(name) {
      rmSync(file(name), { force: true });
    },
    async get(name) {
      const path = file(name);
      if (!existsSync(path)) return undefined;
      return (JSON.parse(readFileSync(path, 'utf8')) as { value: string }).value;
    },
  };
}

const localWrappers: ((store: SecretStore) => SecretStore)[] = [];

/**
 * Wraps every local secret store handed out from now on (the local runtime's IAM guard,
 * services/local/permissions.ts). Secrets Manager is never wrapped: its role decides there.
 */
export function wrapLocalSecretStores(wrap: (store: SecretStore) => SecretStore): void {
  if (!localWrappers.includes(wrap)) localWrappers.push(wrap);
}

/** The secret store of this environment: Secrets Manager when SECRET_STORE_PREFIX is set, else the local folder. */
export function secretStore(): SecretStore {
  const prefix = process.env[SECRET_STORE_PREFIX_ENV];
  if (prefix) return secretsManagerStore(prefix);
  const local = fileSecretStore(resolve(process.cwd(), process.env[LOCAL_SECRET_STORE_DIR_ENV] ?? '.local/secret-store'));
  return localWrappers.reduce((store, wrap) => wrap(store), local);
}
