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

/**
 * The index attributes of an item that sorts by one `position` on every index it joins:
 * `{ GSI1PK, GSI1SK, GSI2PK, ... }`. An undefined partition leaves the item off that index
 * (sparse), e.g. an open shift on no employee's index.
 */
export function onIndexes(position: string, partitions: Readonly<Partial<Record<IndexName, string | undefined>>>): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [index, partition] of Object.entries(partitions)) {
    if (partition === undefined) continue;
    attributes[`${index}PK`] = partition;
    attributes[`${index}SK`] = position;
  }
  return attributes;
}
