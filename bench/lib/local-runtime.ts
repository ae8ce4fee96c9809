import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stopChild } from '../../services/local/process';
import type { DemoData } from '../../services/local/seed';

/**
 * The local runtime as `npm start` runs it (services/local/main.ts: DynamoDB Local, the demo
 * seed, the local API Gateway), in a child process of its own: load generators and fault
 * drills then talk to it over HTTP as clients do, from another process and another realm.
 * Used by the benchmarks and by the fault drill.
 */
export interface LocalRuntime {
  readonly url: string;
  /** PID of the runtime (node) process; stop() ends it and its DynamoDB Local. */
  readonly pid: number;
  /** PID of the DynamoDB Local (Java) process the runtime started. */
  readonly dynamoDbPid: number;
  readonly dynamoDbPort: number;
  readonly dynamoDbEndpoint: string;
  readonly tableName: string;
  /** Where .local lives (demo.json, runtime.json, dynamodb/ data). */
  readonly localDir: string;
  readonly demo: DemoFile;
  /** Everything the runtime printed (for diagnostics). */
  output(): string;
  stop(): Promise<void>;
}

/** `.local/demo.json`: the seed's demo data and the base URL of the running API. */
export type DemoFile = DemoData & { readonly baseUrl: string };

export interface LocalRuntimeOptions {
  /** Keep DynamoDB Local's data on disk (under localDir) instead of `--in-memory`. */
  readonly persistent?: boolean;
  readonly env?: Readonly<Record<string, string>>;
  readonly startTimeoutMs?: number;
}

/** npm scripts and jest both run from the repository root (works under ESM and CommonJS alike). */
export const REPO_ROOT = resolve(process.cwd());

export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  if (!existsSync(join(REPO_ROOT, 'services/local/main.ts'))) throw new Error(`Run from the repository root (cwd is ${REPO_ROOT}).`);
  return start(options);
}

async function start(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const localDir = mkdtempSync(join(tmpdir(), 'wfm-runtime-'));
  const dynamoDbPort = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'services/local/main.ts', ...(options.persistent ? [] : ['--in-memory'])], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DYNAMODB_LOCAL_PORT: String(dynamoDbPort),
      WFM_LOCAL_DIR: localDir,
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      // Load generators and drills send bursts on purpose: no per-key usage-plan throttle.
      WFM_LOCAL_THROTTLE: 'off',
      // The parent's table settings (e.g. a jest run's) must not leak into the runtime.
      TABLE_NAME: '',
      DYNAMODB_ENDPOINT: '',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));

  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`The local runtime did not get ready:\n${output.slice(-3000)}`)), options.startTimeoutMs ?? 60_000);
    const onData = () => {
      const m = /^ready (http:\/\/\S+)$/m.exec(output);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolveUrl(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The local runtime exited (${code}) before it was ready:\n${output.slice(-3000)}`));
    });
  });
  const dynamoDbPid = Number(/DynamoDB Local pid (\d+)/.exec(output)?.[1]);
  const runtime = JSON.parse(readFileSync(join(localDir, 'runtime.json'), 'utf8')) as { tableName: string; dynamodbEndpoint: string };
  const demo = JSON.parse(readFileSync(join(localDir, 'demo.json'), 'utf8')) as DemoFile;

  return {
    url,
    pid: child.pid!,
    dynamoDbPid,
    dynamoDbPort,
    dynamoDbEndpoint: runtime.dynamodbEndpoint,
    tableName: runtime.tableName,
    localDir,
    demo,
    output: () => output,
    stop: async () => {
      await stopChild(child, 10_000);
      rmSync(localDir, { recursive: true, force: true });
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
