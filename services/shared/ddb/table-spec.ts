/**
 * The single table, as data: the CDK construct (lib/constructs/app-table.ts) and the local
 * CreateTable (services/local/dynamodb.ts) both read it, so the two never drift. The key
 * design of each entity lives in its store; docs/data-model.md lists every access pattern.
 */
export interface IndexSpec {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

export interface TableSpec {
  readonly partitionKey: string;
  readonly sortKey: string;
  /** Epoch seconds; DynamoDB TTL removes expired idempotency records. */
  readonly timeToLiveAttribute: string;
  readonly globalSecondaryIndexes: readonly IndexSpec[];
}

export const TABLE_SPEC: TableSpec = {
  partitionKey: 'PK',
  sortKey: 'SK',
  timeToLiveAttribute: 'expiresAt',
  globalSecondaryIndexes: [
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
    { indexName: 'GSI3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
  ],
};

export type IndexName = 'GSI1' | 'GSI2' | 'GSI3';
