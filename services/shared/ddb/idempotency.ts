import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { IdempotencyConfig, IdempotencyItemAlreadyExistsError, IdempotencyRecordStatus, IdempotencyValidationError } from '@aws-lambda-powertools/idempotency';
import { BasePersistenceLayer, IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import type { JsonValue as JSONValue } from '../json';
import { AppError, IdempotencyInProgressError, IdempotencyKeyReusedError } from '../errors';
import { logger } from '../logger';
import { conditionalUpdate, type Db } from './client';
import { collectAll } from './read';
import { TransactionCancelledError, type TxItem } from './transaction';

/** What a replay gives back: the original status, headers and body. */
export interface StoredResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The body exactly as it was sent: a replay must be byte-identical, and DynamoDB keeps the
   * members of a map in an order of its own.
   */
  readonly bodyText?: string;
  readonly contentType?: string;
}

/** decisions.md: idempotency records are kept 24 hours (DynamoDB TTL). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
export const IDEMPOTENCY_LABEL = 'idempotency';

/**
 * The personal-data subject a stored response concerns (a route's `erasableSubject`): its
 * record is linked from the subject's partition, where an erasure finds it.
 */
export interface ResponseSubject {
  readonly organizationId: string;
  readonly type: string;
  readonly id: string;
}

/**
 * `IDEMSUBJ#<org>#<type>#<id>`: the partition of the links to the records about one subject
 * (ids only, never a value), and the record's `subject` member.
 */
export const subjectPartition = (s: ResponseSubject): string => `IDEMSUBJ#${s.organizationId}#${s.type}#${s.id}`;
export const IDEMPOTENCY_SUBJECT_LABEL = 'idempotency-subject';

interface IdempotencyData {
  /** organization + API key + method + route + Idempotency-Key */
  readonly key: string;
  /** Everything that makes the request what it is: path parameters, body, If-Match. */
  readonly input: JSONValue;
  [member: string]: JSONValue;
}

/**
 * Powertools' idempotency model (IN_PROGRESS / COMPLETED / EXPIRED records, payload hashes,
 * key reuse detection) on our single table, with one difference: Powertools' own DynamoDB
 * layer writes the COMPLETED record with its own UpdateItem, so it could never be atomic with
 * the change it protects. Here `_updateRecord` only captures that record, and `completionItem`
 * hands it to the caller, who commits it in the SAME TransactWriteItems as the entry and its
 * audit entry. The IN_PROGRESS lock is a conditional PutItem before the work starts.
 */
export class TransactionalIdempotencyStore extends BasePersistenceLayer {
  /**
   * Completed records captured by `_updateRecord`, keyed by the response object itself (the
   * reference saveSuccess passes on): two requests of one key completing at once in one
   * process (the local runtime serves many) never take each other's record.
   */
  readonly #captured = new WeakMap<object, IdempotencyRecord>();

  constructor(private readonly db: Db) {
    super();
    this.configure({
      config: new IdempotencyConfig({
        eventKeyJmesPath: 'key',
        payloadValidationJmesPath: 'input',
        expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
        hashFunction: 'sha256',
        throwOnNoIdempotencyKey: true,
      }),
      keyPrefix: 'IDEM',
    });
  }

  /**
   * The COMPLETED record of `data` as transaction items; no I/O of its own. With the lock
   * (`locked`), only the request holding it completes the record; without one, only a request
   * that finds the key free does (as the lock's own PutItem would): a concurrent duplicate
   * loses that condition in its transaction, nothing of it commits, and it replays.
   * A response about an erasable `subject` names it (`subject`), and a link to the record is
   * put on the subject's partition in the same transaction: an erasure that commits after this
   * write reads it there, strongly consistent (no index to wait for).
   */
  async completionItems(data: IdempotencyData, response: StoredResponse, locked = true, subject?: ResponseSubject): Promise<TxItem[]> {
    const token = { ...response };
    await this.saveSuccess(data, token as unknown as JSONValue);
    const record = this.#captured.get(token);
    this.#captured.delete(token);
    if (!record) throw new Error('The completed idempotency record was not captured.');
    const item = { ...toItem(record), ...(subject ? { subject: subjectPartition(subject) } : {}) };
    const completion: TxItem = locked
      ? {
          label: IDEMPOTENCY_LABEL,
          op: {
            Put: {
              Item: item,
              // Only the request holding the IN_PROGRESS lock completes it, and only once.
              ConditionExpression: '#status = :inProgress',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':inProgress': IdempotencyRecordStatus.INPROGRESS },
            },
          },
        }
      : { label: IDEMPOTENCY_LABEL, op: { Put: { Item: item, ...keyIsFree(Date.now()) } } };
    if (!subject) return [completion];
    const link = { PK: subjectPartition(subject), SK: item.PK, itemType: 'IdempotencySubjectLink', expiresAt: item.expiresAt };
    return [completion, { label: IDEMPOTENCY_SUBJECT_LABEL, op: { Put: { Item: link } } }];
  }

  /** The table key of `data`'s record: what a store reads along with its own items (ReadAlong). */
  recordKey(data: IdempotencyData): { PK: string; SK: string } {
    return keyOf(this.getHashedIdempotencyKey(data));
  }

  /** A record read raw (a BatchGetItem of a store), or undefined when the key is free: absent or expired. */
  liveRecord(item: Record<string, unknown> | undefined, nowMs = Date.now()): IdempotencyRecord | undefined {
    if (!item) return undefined;
    const expired = typeof item.expiresAt === 'number' && item.expiresAt < Math.floor(nowMs / 1000);
    const lockLapsed = item.status === IdempotencyRecordStatus.INPROGRESS && typeof item.inProgressExpiresAt === 'number' && item.inProgressExpiresAt < nowMs;
    return expired || lockLapsed ? undefined : fromItem(item);
  }

  /** The record's item as stored (consistent), or undefined. */
  async readRawRecord(data: IdempotencyData): Promise<Record<string, unknown> | undefined> {
    const out = await this.db.doc.send(new GetCommand({ TableName: this.db.tableName, Key: this.recordKey(data), ConsistentRead: true }));
    return out.Item;
  }

  async readRecord(data: IdempotencyData): Promise<IdempotencyRecord | undefined> {
    try {
      return await this._getRecord(this.getHashedIdempotencyKey(data));
    } catch {
      return undefined;
    }
  }

  protected async _putRecord(record: IdempotencyRecord): Promise<void> {
    try {
      await this.db.doc.send(
        new PutCommand({
          TableName: this.db.tableName,
          Item: toItem(record),
          ...keyIsFree(Date.now()),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        const existing = error.Item ? fromItem(unmarshallIfNeeded(error.Item)) : undefined;
        throw new IdempotencyItemAlreadyExistsError(`Idempotency record exists: ${record.idempotencyKey}`, existing);
      }
      throw error;
    }
  }

  protected async _getRecord(idempotencyKey: string): Promise<IdempotencyRecord> {
    const out = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: keyOf(idempotencyKey), ConsistentRead: true }),
    );
    if (!out.Item) throw new Error('No idempotency record.');
    return fromItem(out.Item);
  }

  protected async _updateRecord(record: IdempotencyRecord): Promise<void> {
    if (typeof record.responseData === 'object' && record.responseData !== null) this.#captured.set(record.responseData, record);
  }

  protected async _deleteRecord(record: IdempotencyRecord): Promise<void> {
    try {
      await this.db.doc.send(
        new DeleteCommand({
          TableName: this.db.tableName,
          Key: keyOf(record.idempotencyKey),
          // Never delete a COMPLETED record: a failure after the commit must still replay.
          ConditionExpression: '#status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':inProgress': IdempotencyRecordStatus.INPROGRESS },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

export interface IdempotentCall {
  /** `<organizationId>#<keyId>#<METHOD>#<route>`: the scope decisions.md sets. */
  readonly scope: string;
  /** The client's Idempotency-Key. */
  readonly idempotencyKey: string;
  readonly input: JSONValue;
  /** How long the IN_PROGRESS lock may live: the time the request has left. */
  readonly lockMillis: number;
}

export interface IdempotentOutcome {
  readonly response: StoredResponse;
  readonly replayed: boolean;
}

/**
 * Builds the transaction items that complete the idempotency record with this response; with
 * a `subject`, the record is linked from that subject's partition (an erasure of it finds it).
 */
export type Completion = (response: StoredResponse, subject?: ResponseSubject) => Promise<readonly TxItem[]>;

/**
 * Runs `work` at most once per idempotency key.
 * 1. Take the IN_PROGRESS lock (conditional put). If a record exists: another input is
 *    IDEMPOTENCY_KEY_REUSED, a COMPLETED one is replayed, an IN_PROGRESS one is
 *    IDEMPOTENCY_REQUEST_IN_PROGRESS.
 * 2. Run `work`; it commits the COMPLETED record (from `complete`) in its own transaction.
 * 3. If `work` fails, release the lock (only while still IN_PROGRESS) so that a corrected
 *    retry may run; if its transaction lost the record's condition, resolve as in 1.
 */
export async function runIdempotent(
  store: TransactionalIdempotencyStore,
  call: IdempotentCall,
  work: (complete: Completion) => Promise<StoredResponse>,
): Promise<IdempotentOutcome> {
  const data: IdempotencyData = { key: `${call.scope}#${call.idempotencyKey}`, input: call.input };
  try {
    await store.saveInProgress(data, call.lockMillis);
  } catch (error) {
    if (error instanceof IdempotencyItemAlreadyExistsError) {
      return resolveExisting(store, data, error.existingRecord ?? (await store.readRecord(data)));
    }
    throw error;
  }
  try {
    const response = await work((r, subject) => store.completionItems(data, r, true, subject));
    return { response, replayed: false };
  } catch (error) {
    if (error instanceof TransactionCancelledError && error.failed(IDEMPOTENCY_LABEL)) {
      return resolveExisting(store, data, await store.readRecord(data));
    }
    await store.deleteRecord(data).catch((cleanupError: unknown) => {
      logger.warn('Could not release the idempotency lock; it expires by itself', { error: cleanupError as Error });
    });
    throw error;
  }
}

/**
 * The record of a key as a store may read it along with its own items (one BatchGetItem
 * instead of a call of its own): `settle` answers a replay, a reuse or an in-flight request
 * right there (by throwing IdempotentOutcomeFound), before the use case decides anything.
 */
export interface ReadAlong {
  readonly key: { readonly PK: string; readonly SK: string };
  settle(item: Record<string, unknown> | undefined): void;
}

/** Thrown by ReadAlong.settle when the key already has an answer; the runner returns it. */
export class IdempotentOutcomeFound extends Error {
  constructor(readonly outcome: IdempotentOutcome) {
    super('The idempotency key already has an outcome.');
    this.name = 'IdempotentOutcomeFound';
  }
}

/**
 * Runs `work` at most once per idempotency key WITHOUT an IN_PROGRESS lock: for writes whose
 * only effect is the one transaction `work` commits with the record (decisions.md allows
 * the lock to be skipped there: the transaction alone decides).
 * 1. `work` reads the record along with its own reads (`readAlong`), or not at all. A record
 *    found answers as with the lock: COMPLETED replays, another input is
 *    IDEMPOTENCY_KEY_REUSED, an IN_PROGRESS lock of a locked request is
 *    IDEMPOTENCY_REQUEST_IN_PROGRESS.
 * 2. `work` commits the COMPLETED record on the condition that the key is still free: of two
 *    concurrent duplicates exactly one commits; the other's transaction is cancelled (nothing
 *    of it is written) and it resolves the record as in 1 (a replay).
 * 3. A refusal (an AppError: 409, 412, 422...) reads the record once more (GetItem): a
 *    duplicate that committed meanwhile (its entry may be what this one's overlap check
 *    refused) wins with its response; otherwise the refusal stands. Other failures (500)
 *    stand as they are; a retry replays if the commit went through. Nothing to release:
 *    there is no lock.
 */
export async function runIdempotentInTransaction(
  store: TransactionalIdempotencyStore,
  call: Omit<IdempotentCall, 'lockMillis'>,
  work: (complete: Completion, readAlong: ReadAlong) => Promise<StoredResponse>,
): Promise<IdempotentOutcome> {
  const data: IdempotencyData = { key: `${call.scope}#${call.idempotencyKey}`, input: call.input };
  const readAlong: ReadAlong = {
    key: store.recordKey(data),
    settle(item) {
      const existing = store.liveRecord(item);
      if (existing) throw new IdempotentOutcomeFound(resolveExisting(store, data, existing));
    },
  };
  try {
    const response = await work((r, subject) => store.completionItems(data, r, false, subject), readAlong);
    return { response, replayed: false };
  } catch (error) {
    if (error instanceof IdempotentOutcomeFound) return error.outcome;
    if (error instanceof IdempotencyKeyReusedError || error instanceof IdempotencyInProgressError) throw error;
    const lostTheRecord = error instanceof TransactionCancelledError && error.failed(IDEMPOTENCY_LABEL);
    if (!lostTheRecord && !(error instanceof AppError)) throw error;
    const existing = store.liveRecord(await store.readRawRecord(data));
    if (existing) return resolveExisting(store, data, existing);
    if (lostTheRecord) throw new IdempotencyInProgressError();
    throw error;
  }
}

/** How many stored responses of one subject an erasure rewrites at once. */
export const ERASE_BATCH_SIZE = 25;

export interface EraseOptions {
  /** Stored responses rewritten at once. @default ERASE_BATCH_SIZE */
  readonly batchSize?: number;
}

/**
 * Replaces every stored response about `subject` by `tombstone` (an erasure's last step, after
 * its own commit: no write about the subject can commit after it).
 * 1. Read the links on the subject's partition, all pages, strongly consistent: every write
 *    committed before the erasure put its link in its own transaction, so none is missed.
 *    Records written before links existed are on the subject's GSI1 partition instead (the
 *    version before put them there); they are read too, until the last of them has expired
 *    (24 h after that version stopped writing).
 * 2. In batches of `batchSize` conditional UpdateItems: only while the record is still there,
 *    COMPLETED and about this subject (a key freed and reused meanwhile is another record),
 *    set the response to the tombstone; the record no longer names the subject. Status,
 *    payload hash and expiry stay: a retry with the same key still never runs the write again,
 *    and replays the tombstone. A record gone meanwhile is skipped. Then the link is deleted.
 * Running it again finds only what a failed run left: it completes an interrupted purge.
 * Returns how many records were rewritten.
 */
export async function eraseStoredResponses(db: Db, subject: ResponseSubject, tombstone: StoredResponse, options: EraseOptions = {}): Promise<number> {
  const { batchSize = ERASE_BATCH_SIZE } = options;
  const partition = subjectPartition(subject);
  const linked = await collectAll(db, { KeyConditionExpression: 'PK = :subject', ExpressionAttributeValues: { ':subject': partition }, ProjectionExpression: 'PK, SK', ConsistentRead: true });
  const indexed = await collectAll(db, { IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :subject', ExpressionAttributeValues: { ':subject': partition }, ProjectionExpression: 'PK' });
  const records = [...new Set([...linked.map((link) => String(link.SK)), ...indexed.map((record) => String(record.PK))])];
  let rewritten = 0;
  for (let i = 0; i < records.length; i += batchSize) {
    const applied = await Promise.all(
      records.slice(i, i + batchSize).map(async (recordPk) => {
        const done = await conditionalUpdate(db, {
          Key: { PK: recordPk, SK: 'IDEM' },
          UpdateExpression: 'SET #response = :tombstone REMOVE #subject, GSI1PK, GSI1SK',
          ConditionExpression: 'attribute_exists(PK) AND #status = :completed AND (#subject = :subject OR GSI1PK = :subject)',
          ExpressionAttributeNames: { '#response': 'response', '#status': 'status', '#subject': 'subject' },
          ExpressionAttributeValues: { ':tombstone': { ...tombstone }, ':completed': IdempotencyRecordStatus.COMPLETED, ':subject': partition },
        });
        await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: { PK: partition, SK: recordPk } }));
        return done;
      }),
    );
    rewritten += applied.filter(Boolean).length;
  }
  return rewritten;
}

function resolveExisting(
  store: TransactionalIdempotencyStore,
  data: IdempotencyData,
  existing: IdempotencyRecord | undefined,
): IdempotentOutcome {
  if (!existing) throw new IdempotencyInProgressError();
  try {
    store.processExistingRecord(existing, data);
  } catch (error) {
    if (error instanceof IdempotencyValidationError) throw new IdempotencyKeyReusedError({ cause: error });
    throw error;
  }
  if (existing.getStatus() === IdempotencyRecordStatus.COMPLETED) {
    return { response: existing.getResponse() as unknown as StoredResponse, replayed: true };
  }
  throw new IdempotencyInProgressError();
}

/**
 * Timeline: a key is free when no record exists, when its 24 h retention has passed (TTL
 * deletes lazily), or when an IN_PROGRESS lock outlived the request that took it (that
 * request crashed before committing).
 */
const keyIsFree = (nowMs: number) => ({
  ConditionExpression: 'attribute_not_exists(PK) OR expiresAt < :nowSeconds OR (#status = :inProgress AND inProgressExpiresAt < :nowMs)',
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: {
    ':nowSeconds': Math.floor(nowMs / 1000),
    ':nowMs': nowMs,
    ':inProgress': IdempotencyRecordStatus.INPROGRESS,
  },
});

const keyOf = (hashedKey: string) => ({ PK: `IDEM#${hashedKey}`, SK: 'IDEM' });

function toItem(record: IdempotencyRecord): { readonly PK: string; readonly SK: string; readonly expiresAt: number | undefined } & Record<string, unknown> {
  return {
    ...keyOf(record.idempotencyKey),
    itemType: 'IdempotencyRecord',
    idempotencyKey: record.idempotencyKey,
    status: record.getStatus(),
    payloadHash: record.payloadHash,
    expiresAt: record.expiryTimestamp,
    inProgressExpiresAt: record.inProgressExpiryTimestamp,
    response: record.responseData,
  };
}

function fromItem(item: Record<string, unknown>): IdempotencyRecord {
  return new IdempotencyRecord({
    idempotencyKey: item.idempotencyKey as string,
    status: item.status as (typeof IdempotencyRecordStatus)[keyof typeof IdempotencyRecordStatus],
    payloadHash: item.payloadHash as string | undefined,
    expiryTimestamp: item.expiresAt as number | undefined,
    inProgressExpiryTimestamp: item.inProgressExpiresAt as number | undefined,
    responseData: item.response as JSONValue | undefined,
  });
}

function unmarshallIfNeeded(item: Record<string, unknown>): Record<string, unknown> {
  // The document client leaves the item of a ConditionalCheckFailedException in wire format.
  const first = Object.values(item)[0];
  if (first && typeof first === 'object' && !Array.isArray(first) && Object.keys(first).length === 1 && /^(S|N|M|L|BOOL|NULL|B|SS|NS|BS)$/.test(Object.keys(first)[0])) {
    return unmarshall(item as Record<string, AttributeValue>);
  }
  return item;
}
