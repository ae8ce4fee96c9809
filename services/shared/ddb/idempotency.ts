import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  IdempotencyConfig,
  IdempotencyItemAlreadyExistsError,
  IdempotencyRecordStatus,
  IdempotencyValidationError,
} from '@aws-lambda-powertools/idempotency';
import { BasePersistenceLayer, IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';
import type { JsonValue as JSONValue } from '../json';
import { IdempotencyInProgressError, IdempotencyKeyReusedError } from '../errors';
import { logger } from '../logger';
import type { Db } from './client';
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
  readonly #captured = new Map<string, IdempotencyRecord>();

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

  /** The COMPLETED record of `data` as a transaction item; no I/O of its own. */
  async completionItem(data: IdempotencyData, response: StoredResponse): Promise<TxItem> {
    await this.saveSuccess(data, response as unknown as JSONValue);
    const hashedKey = this.getHashedIdempotencyKey(data);
    const record = this.#captured.get(hashedKey);
    this.#captured.delete(hashedKey);
    if (!record) throw new Error('The completed idempotency record was not captured.');
    return {
      label: IDEMPOTENCY_LABEL,
      op: {
        Put: {
          Item: toItem(record),
          // Only the request holding the IN_PROGRESS lock completes it, and only once.
          ConditionExpression: '#status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':inProgress': IdempotencyRecordStatus.INPROGRESS },
        },
      },
    };
  }

  async readRecord(data: IdempotencyData): Promise<IdempotencyRecord | undefined> {
    try {
      return await this._getRecord(this.getHashedIdempotencyKey(data));
    } catch {
      return undefined;
    }
  }

  protected async _putRecord(record: IdempotencyRecord): Promise<void> {
    const nowMs = Date.now();
    try {
      await this.db.doc.send(
        new PutCommand({
          TableName: this.db.tableName,
          Item: toItem(record),
          // Timeline: a key is free when no record exists, when its 24 h retention has
          // passed (TTL deletes lazily), or when an IN_PROGRESS lock outlived the request
          // that took it (that request crashed before committing).
          ConditionExpression: 'attribute_not_exists(PK) OR expiresAt < :nowSeconds OR (#status = :inProgress AND inProgressExpiresAt < :nowMs)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':nowSeconds': Math.floor(nowMs / 1000),
            ':nowMs': nowMs,
            ':inProgress': IdempotencyRecordStatus.INPROGRESS,
          },
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
    this.#captured.set(record.idempotencyKey, record);
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

/** Builds the transaction item that completes the idempotency record with this response. */
export type Completion = (response: StoredResponse) => Promise<TxItem>;

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
    const response = await work((r) => store.completionItem(data, r));
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

const keyOf = (hashedKey: string) => ({ PK: `IDEM#${hashedKey}`, SK: 'IDEM' });

function toItem(record: IdempotencyRecord): Record<string, unknown> {
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
