import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { guardTablePermissions, LocalAccessDeniedError, runAsFunction, tableActionsOf } from '../../services/local/table-permissions';
import type { Db } from '../../services/shared/ddb/client';
import { createTestTable } from '../support/table';

/**
 * IAM, locally: the local gateway runs each handler as its registry function, and a call outside
 * that function's `permissions.table` fails as AccessDenied would in AWS.
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
