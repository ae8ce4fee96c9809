import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkJobQueueSend, guardObjectPermissions, guardSecretStore, guardTablePermissions, LocalAccessDeniedError, objectAccessesOf, runAsFunction, tableActionsOf } from '../../services/local/permissions';
import { areaJobQueue, checkLocalJobSends } from '../../services/shared/aws/job-queue';
import { fileSecretStore } from '../../services/shared/aws/secrets';
import { copyObject, getObject, presignGet, putObject, s3Client } from '../../services/shared/aws/s3';
import type { Db } from '../../services/shared/ddb/client';
import { createTestTable } from '../support/table';

/**
 * IAM, locally: the local gateway runs each handler as its registry function, and a call outside
 * that function's `permissions.table`, or an object action outside its bucket rows, fails as
 * AccessDenied would in AWS.
 */
describe('local table permissions', () => {
  let db: Db;
  beforeAll(async () => {
    db = await createTestTable();
    guardTablePermissions(db);
  });

  it('lets a function make the calls its row grants, and refuses the others with the missing action named', async () => {
    // The authorizer may GetItem and UpdateItem only.
    await expect(runAsFunction('authorizer', () => db.doc.send(new GetCommand({ TableName: db.tableName, Key: { PK: 'X', SK: 'Y' } })))).resolves.toBeDefined();
    const query = () => db.doc.send(new QueryCommand({ TableName: db.tableName, KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': 'X' } }));
    await expect(runAsFunction('authorizer', query)).rejects.toThrow(LocalAccessDeniedError);
    await expect(runAsFunction('authorizer', query)).rejects.toThrow(/authorizer function is not granted dynamodb:Query/);
    // Outside a function (the seed, the CLI, a test's own reads) nothing is checked.
    await expect(query()).resolves.toBeDefined();
  });

  it('needs the action of every item of a transaction', async () => {
    const tx = () =>
      db.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: db.tableName, Item: { PK: 'T', SK: '1' } } },
            { Delete: { TableName: db.tableName, Key: { PK: 'T', SK: '2' } } },
          ],
        }),
      );
    // work-events may append and update, never delete.
    await expect(runAsFunction('evidence-ingest', tx)).rejects.toThrow(/not granted dynamodb:DeleteItem/);
    expect(tableActionsOf('TransactWriteItemsCommand', { TransactItems: [{ Put: {} }, { ConditionCheck: {} }, { Update: {} }] })).toEqual(['PutItem', 'ConditionCheckItem', 'UpdateItem']);
    expect(tableActionsOf('BatchWriteCommand', {})).toEqual(['BatchWriteItem']);
    expect(tableActionsOf('ScanCommand', {})).toEqual(['Scan']);
  });

  it('lets the sweepers run within their grants, as npm start runs them every minute', async () => {
    // The handlers use the process's client (TABLE_NAME of this test file's table).
    const { defaultDb } = await import('../../services/shared/ddb/client');
    guardTablePermissions(defaultDb());
    const { handler: sweepReports } = await import('../../services/reports/handler-sweeper');
    const { handler: sweepIntegrations } = await import('../../services/integrations/handler-sweeper');
    await expect(runAsFunction('reports-sweeper', () => sweepReports())).resolves.toEqual({ requeued: 0 });
    await expect(runAsFunction('integrations-sweeper', () => sweepIntegrations())).resolves.toEqual({ requeued: 0 });
  });

  it('refuses a function the registry does not know', () => {
    expect(() => runAsFunction('no-such-function', async () => undefined)).toThrow(/no function named no-such-function/);
  });
});

describe('local bucket permissions (the embedded S3 server)', () => {
  const documents = process.env.DOCUMENTS_BUCKET!;
  const reports = process.env.REPORTS_BUCKET!;
  beforeAll(async () => {
    guardObjectPermissions(await s3Client(), (bucket) => (bucket === documents ? 'documentsBucket' : bucket === reports ? 'reportsBucket' : undefined));
  });

  it('lets each function act on the prefixes its rows grant, and refuses the rest with the action named', async () => {
    const file = `reports/${randomUUID()}/${randomUUID()}.csv`;
    // The worker writes export files; the reports function reads them, never writes them.
    await runAsFunction('reports-worker', () => putObject(reports, file, Buffer.from('a,b\n'), 'text/csv'));
    await expect(runAsFunction('reports', () => getObject(reports, file))).resolves.toEqual(Buffer.from('a,b\n'));
    await expect(runAsFunction('reports', () => putObject(reports, file, Buffer.from('x'), 'text/csv'))).rejects.toThrow(/reports function is not granted s3:PutObject on reportsBucket reports\//);
    // The payroll dispatch reads the file it delivers; the integrations API function has no bucket.
    await expect(runAsFunction('integrations-worker', () => getObject(reports, file))).resolves.toBeDefined();
    await expect(runAsFunction('integrations', () => getObject(reports, file))).rejects.toThrow(LocalAccessDeniedError);
    // Outside its prefixes, and in a bucket its rows do not name, the same function is refused.
    await expect(runAsFunction('reports-worker', () => putObject(reports, `elsewhere/${randomUUID()}`, Buffer.from('x'), 'text/plain'))).rejects.toThrow(/not granted s3:PutObject/);
    await expect(runAsFunction('reports-worker', () => putObject(documents, `documents/${randomUUID()}`, Buffer.from('x'), 'text/plain'))).rejects.toThrow(/not granted s3:PutObject on documentsBucket/);
    // Outside a function (the runtime, a test's own calls) nothing is checked.
    await expect(getObject(reports, file)).resolves.toBeDefined();
  });

  it('checks a presigned request as the request it signs, and a copy as a read of its source and a write of its target', async () => {
    const upload = `uploads/${randomUUID()}/${randomUUID()}`;
    await putObject(documents, upload, Buffer.from('pdf'), 'application/pdf');
    await expect(runAsFunction('documents', () => presignGet(documents, upload, { expiresIn: 60 }))).resolves.toMatchObject({ method: 'GET' });
    await expect(runAsFunction('messages', () => presignGet(documents, upload, { expiresIn: 60 }))).rejects.toThrow(/messages function is not granted s3:GetObject on documentsBucket/);
    await expect(runAsFunction('documents', () => copyObject(documents, upload, `documents/${randomUUID()}`))).resolves.toBeUndefined();
    await expect(runAsFunction('documents', () => copyObject(documents, upload, `elsewhere/${randomUUID()}`))).rejects.toThrow(/not granted s3:PutObject on documentsBucket elsewhere\//);
    expect(objectAccessesOf('CopyObjectCommand', { Bucket: 'b', Key: 'documents/x', CopySource: 'b/uploads%2Fy' })).toEqual([
      { bucket: 'b', key: 'uploads/y', action: 's3:GetObject' },
      { bucket: 'b', key: 'documents/x', action: 's3:PutObject' },
    ]);
    expect(objectAccessesOf('HeadObjectCommand', { Bucket: 'b', Key: 'k' })).toEqual([{ bucket: 'b', key: 'k', action: 's3:GetObject' }]);
  });
});

describe('local secret-store permissions', () => {
  it('lets the integrations API write and its worker read provider credentials, under integrations/ only', async () => {
    const store = guardSecretStore(fileSecretStore(mkdtempSync(join(tmpdir(), 'wfm-secrets-'))));
    const name = `integrations/${randomUUID()}/${randomUUID()}`;
    await runAsFunction('integrations', () => store.put(name, 'token'));
    await expect(runAsFunction('integrations-worker', () => store.get(name))).resolves.toBe('token');
    await expect(runAsFunction('integrations', () => store.get(name))).rejects.toThrow(/integrations function is not granted integrationSecrets read on integrations\//);
    await expect(runAsFunction('integrations-worker', () => store.put(name, 'other'))).rejects.toThrow(/not granted integrationSecrets write/);
    await expect(runAsFunction('reports', () => store.get(name))).rejects.toThrow(LocalAccessDeniedError);
    await expect(runAsFunction('integrations', () => store.put(`elsewhere/${randomUUID()}`, 'x'))).rejects.toThrow(/not granted integrationSecrets write on elsewhere\//);
    // Outside a function nothing is checked; the value never changed.
    await expect(store.get(name)).resolves.toBe('token');
  });
});

describe('local job-queue permissions', () => {
  it('lets a function send only to the queues its row lists, as sqs:SendMessage would', async () => {
    checkLocalJobSends(checkJobQueueSend);
    const delivered: string[] = [];
    const deliver = async (message: { jobId: string }) => void delivered.push(message.jobId);
    const reports = areaJobQueue({ name: 'reports', queueUrlEnv: 'NO_SUCH_QUEUE_URL', worker: 'report' }).queue(deliver);
    const integrations = areaJobQueue({ name: 'integrations', queueUrlEnv: 'NO_SUCH_QUEUE_URL', worker: 'integration' }).queue(deliver);
    const job = (jobId: string) => ({ organizationId: randomUUID(), jobId });
    // The reports API and its sweeper queue export jobs; the worker only consumes them.
    await runAsFunction('reports', () => reports.send(job('r1')));
    await runAsFunction('reports-sweeper', () => reports.send(job('r2')));
    await expect(runAsFunction('reports-worker', () => reports.send(job('r3')))).rejects.toThrow(/reports-worker function is not granted sqs:SendMessage on the reports queue/);
    // The integrations worker queues its own retries; the reports API never sends integration jobs.
    await runAsFunction('integrations-worker', () => integrations.send(job('i1')));
    await expect(runAsFunction('reports', () => integrations.send(job('i2')))).rejects.toThrow(LocalAccessDeniedError);
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered.sort()).toEqual(['i1', 'r1', 'r2']);
  });
});
