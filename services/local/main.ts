import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { createDb } from '../shared/ddb/client';
import { PER_KEY_THROTTLE } from '../shared/auth/usage';
import { ENV } from '../shared/config';
import { BUCKET_ENV, S3_ENDPOINT_ENV } from '../shared/aws/s3';
import { LOCAL_SECRET_STORE_DIR_ENV } from '../shared/aws/secrets';
import { startDynamoDbLocal, ensureTable, localClient, type DynamoDbLocal } from './dynamodb';
import { LOCAL_DOCUMENTS_BUCKET, LOCAL_REPORTS_BUCKET, startS3Local, type S3Local } from './s3';
import type { LocalGateway } from './gateway';
import { loadLocalSecrets } from './secrets';

/**
 * `npm start`: the whole API on http://127.0.0.1:3000 (PORT, HOST), backed by DynamoDB Local
 * and the embedded S3 server (s3rver) with data under .local/ or WFM_LOCAL_DIR (`--in-memory`
 * for a throw-away run), the demo seed, and demo.json in that folder. Stops cleanly on
 * SIGINT/SIGTERM, DynamoDB Local and S3 included.
 */
const LOCAL_DIR = resolve(process.cwd(), process.env.WFM_LOCAL_DIR ?? '.local');
/** A path in the data folder as a shell in the current folder reaches it: ./.local/demo.json by default, else absolute. */
const shown = (path: string): string => {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? `./${rel}` : path;
};
const TABLE_NAME = process.env.LOCAL_TABLE_NAME ?? 'wfm-local';
const inMemory = process.argv.includes('--in-memory');

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST ?? '127.0.0.1';
  const ddbPort = Number(process.env.DYNAMODB_LOCAL_PORT ?? 0);
  const secrets = loadLocalSecrets(LOCAL_DIR);

  let ddb: DynamoDbLocal | undefined;
  let s3: S3Local | undefined;
  let gateway: LocalGateway | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    clearInterval(sweeper);
    await gateway?.close().catch(() => undefined);
    await ddb?.stop().catch(() => undefined);
    await s3?.stop().catch(() => undefined);
    rmSync(join(LOCAL_DIR, 'runtime.json'), { force: true });
    log('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  let step = waitingFor(`starting DynamoDB Local (${inMemory ? 'in memory' : `data in ${shown(join(LOCAL_DIR, 'dynamodb'))}`}) on ${ddbPort === 0 ? 'a free port' : `port ${ddbPort}`}`);
  ddb = await startDynamoDbLocal({ port: ddbPort, ...(inMemory ? {} : { dataDir: join(LOCAL_DIR, 'dynamodb') }) });
  // "DynamoDB Local pid <n>": test/api/local-runtime.test.ts reads the pid from this line.
  step(`DynamoDB Local pid ${ddb.pid} at ${ddb.endpoint}`);
  step = waitingFor(`creating table ${TABLE_NAME} if missing`);
  const client = localClient(ddb.endpoint);
  const table = await ensureTable(client, TABLE_NAME);
  client.destroy();
  step(`table ${TABLE_NAME} ${table}`);

  // Documents and export files (S3 in AWS): presigned URLs signed by the same adapter, served by s3rver.
  step = waitingFor('starting the S3 server (s3rver)');
  s3 = await startS3Local({ port: Number(process.env.S3_LOCAL_PORT ?? 0), host, buckets: [LOCAL_DOCUMENTS_BUCKET, LOCAL_REPORTS_BUCKET], ...(inMemory ? {} : { dataDir: join(LOCAL_DIR, 's3') }) });
  step(`S3 (s3rver) at ${s3.endpoint}, buckets ${LOCAL_DOCUMENTS_BUCKET}, ${LOCAL_REPORTS_BUCKET}`);
  process.env[S3_ENDPOINT_ENV] = s3.endpoint;
  process.env[BUCKET_ENV.documents] = LOCAL_DOCUMENTS_BUCKET;
  process.env[BUCKET_ENV.reports] = LOCAL_REPORTS_BUCKET;

  // The handlers and the authorizer read their configuration from the environment, as in Lambda.
  process.env[ENV.TABLE_NAME] = TABLE_NAME;
  process.env[ENV.DYNAMODB_ENDPOINT] = ddb.endpoint;
  process.env[ENV.API_ENVIRONMENT] = 'TEST';
  process.env[ENV.CURSOR_SECRET] = secrets.cursorSecret;
  process.env[ENV.RESTRICTED_DATA_LOCAL_KEY] = secrets.restrictedDataKey;
  // The report worker (SQS + Lambda in AWS) runs locally in-process; its files go to the local bucket.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  // Provider credentials (Secrets Manager in AWS) go to files under .local/secret-store (0600);
  // provider URLs may be http://127.0.0.1 here, where the fake payroll provider answers.
  process.env[LOCAL_SECRET_STORE_DIR_ENV] = join(LOCAL_DIR, 'secret-store');
  process.env.INTEGRATIONS_ALLOW_LOOPBACK_HTTP = 'true';
  process.env.POWERTOOLS_SERVICE_NAME ??= 'wfm-local';

  // Operator commands (npm run keys / orgs) find the running local table here.
  mkdirSync(LOCAL_DIR, { recursive: true });
  writeFileSync(join(LOCAL_DIR, 'runtime.json'), `${JSON.stringify({ tableName: TABLE_NAME, dynamodbEndpoint: ddb.endpoint, s3Endpoint: s3.endpoint, pid: process.pid }, null, 2)}\n`);
  const db = createDb({ tableName: TABLE_NAME, endpoint: ddb.endpoint });
  step = waitingFor('applying the demo seed');
  const { seedDemo } = await import('./seed');
  const demo = await seedDemo(db, secrets.seedSecret);
  step('demo seed applied');

  step = waitingFor(`loading the handlers and listening on ${host}:${port}`);
  const { startLocalGateway } = await import('./gateway');
  gateway = await startLocalGateway({
    port,
    host,
    ...(process.env.AUTHORIZER_CACHE_SECONDS ? { authorizerCacheSeconds: Number(process.env.AUTHORIZER_CACHE_SECONDS) } : {}),
    // The same access-log lines as the deployed stages: npm run consumers reads them.
    accessLogPath: join(LOCAL_DIR, 'access.log'),
    // The deployed per-key usage plan's throttle; WFM_LOCAL_THROTTLE=off for load tests.
    ...(process.env.WFM_LOCAL_THROTTLE === 'off' ? {} : { perKeyThrottle: PER_KEY_THROTTLE }),
  });
  // The reports sweeper, as the EventBridge rule runs it in AWS: once a minute, re-queues
  // export jobs still QUEUED after 2 minutes (their message was lost).
  // Each as its own function: its calls must stay within its grants (permissions.ts).
  const { handler: sweepReports } = await import('../reports/handler-sweeper');
  const { handler: sweepIntegrations } = await import('../integrations/handler-sweeper');
  const { guardTablePermissions, runAsFunction } = await import('./permissions');
  const { defaultDb } = await import('../shared/ddb/client');
  guardTablePermissions(defaultDb());
  const sweep = () => {
    runAsFunction('reports-sweeper', () => sweepReports()).catch((error: unknown) => log(`reports sweeper failed: ${(error as Error).message}`));
    runAsFunction('integrations-sweeper', () => sweepIntegrations()).catch((error: unknown) => log(`integrations sweeper failed: ${(error as Error).message}`));
  };
  sweeper = setInterval(sweep, 60_000);
  sweeper.unref();
  step(`gateway listening at ${gateway.url}`);
  const baseUrl = `${gateway.url}/v1/organizations/${demo.organizationId}`;
  const demoFile = join(LOCAL_DIR, 'demo.json');
  writeFileSync(demoFile, `${JSON.stringify({ baseUrl, ...demo }, null, 2)}\n`, { mode: 0o600 });
  log(`demo data and keys in ${shown(demoFile)}; try: curl -i ${baseUrl}/timesheets -H "Authorization: Bearer $(node -p "require('${shown(demoFile)}').keys.admin")"`);
  log(`fake payroll provider at ${gateway.url}/_fake/payroll (what it received: GET ${gateway.url}/_fake/payroll/deliveries)`);
  log(`ready after ${seconds(performance.now() - started)}`);
  // Exactly this line: tests and scripts wait for it.
  console.log(`ready ${gateway.url}`);
}

const started = performance.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function log(message: string): void {
  console.log(`[wfm-local] ${message}`);
}

/**
 * Says what `npm start` is waiting for now, and returns the function that says it is done,
 * with how long it took: a slow start (a cold JVM, a large seed) shows where the time goes.
 */
function waitingFor(what: string): (done: string) => void {
  const t = performance.now();
  log(`${what}...`);
  return (done) => log(`${done} (${seconds(performance.now() - t)})`);
}

main().catch((error: unknown) => {
  console.error(`[wfm-local] failed to start: ${(error as Error).message}`);
  process.exit(1);
});
