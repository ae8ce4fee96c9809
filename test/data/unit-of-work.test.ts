import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { auditEntry } from '../../services/audit/model';
import type { Db } from '../../services/shared/ddb/client';
import { createDb } from '../../services/shared/ddb/client';
import { inUnitOfWork, TransactionUnit } from '../../services/shared/ddb/unit-of-work';
import type { Actor } from '../../services/shared/domain/actor';
import type { TxItem } from '../../services/shared/ddb/transaction';
import { createTestTable } from '../support/table';

/**
 * A unit of work's abort effects on DynamoDB Local: they undo what a use case did outside the
 * table before the commit (credentials written to the secret store first) exactly when nothing
 * of the unit was written, and never after a commit or a commit whose outcome is unclear.
 */
let db: Db;
const ORG = randomUUID();
const actor: Actor = { principal: { organizationId: ORG, keyId: 'k1', keyLabel: 'test key', environment: 'TEST', scopes: new Set() }, requestId: 'req' };

const putOnce = (pk: string): TxItem => ({
  label: 'probe',
  op: { Put: { Item: { PK: pk, SK: 'PROBE' }, ConditionExpression: 'attribute_not_exists(PK)' } },
});
const change = (pk: string) => ({ items: [putOnce(pk)], audit: auditEntry({ id: randomUUID(), actor, occurredAt: new Date().toISOString(), action: 'probe.created', entity: { type: 'probe', id: pk } }) });
const stored = async (pk: string) => (await db.doc.send(new GetCommand({ TableName: db.tableName, Key: { PK: pk, SK: 'PROBE' } }))).Item;

beforeAll(async () => {
  db = await createTestTable();
});

it('runs no abort effect when the unit commits', async () => {
  const undone: string[] = [];
  const pk = `PROBE#${randomUUID()}`;
  await inUnitOfWork(db, async (unit) => {
    unit.onAbort(async () => void undone.push('secret'));
    unit.stage(change(pk));
  });
  expect(await stored(pk)).toBeDefined();
  expect(undone).toEqual([]);
});

it('runs the abort effects when the transaction is refused, and nothing of the unit was written', async () => {
  const taken = `PROBE#${randomUUID()}`;
  await inUnitOfWork(db, async (unit) => unit.stage(change(taken)));
  const other = `PROBE#${randomUUID()}`;
  const undone: string[] = [];
  const unit = new TransactionUnit(db);
  unit.onAbort(async () => void undone.push('first'));
  unit.onAbort(async () => {
    throw new Error('the secret store is down');
  });
  unit.onAbort(async () => void undone.push('third'));
  unit.stage(change(other));
  unit.stage(change(taken));
  await expect(unit.commit()).rejects.toThrow();
  await unit.abandon();
  await unit.abandon();
  expect(undone).toEqual(['first', 'third']);
  expect(await stored(other)).toBeUndefined();
});

it('runs the abort effects when the work throws before the commit', async () => {
  const undone: string[] = [];
  await expect(
    inUnitOfWork(db, async (unit) => {
      unit.onAbort(async () => void undone.push('secret'));
      throw new Error('a rule refused the request');
    }),
  ).rejects.toThrow('a rule refused the request');
  expect(undone).toEqual(['secret']);
});

it('leaves the effects alone when the commit failed with an unclear outcome (it may have been written)', async () => {
  const undone: string[] = [];
  const elsewhere = createDb({ tableName: `missing-${randomUUID()}`, endpoint: process.env.DYNAMODB_ENDPOINT! });
  const unit = new TransactionUnit(elsewhere);
  unit.onAbort(async () => void undone.push('secret'));
  unit.stage(change(`PROBE#${randomUUID()}`));
  await expect(unit.commit()).rejects.toThrow();
  await unit.abandon();
  expect(undone).toEqual([]);
});
