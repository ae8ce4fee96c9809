import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TABLE_SPEC, type TableSpec } from '../../services/shared/ddb/table-spec';

export interface AppTableProps {
  /**
   * Keep the table and its data: deletion protection on, and RETAIN when the resource leaves
   * the stack or the stack is deleted. Set it for LIVE.
   * @default false - TEST data is disposable: the table is deleted with the stack
   */
  readonly retain?: boolean;
  /**
   * Key schema, indexes and TTL attribute.
   * @default TABLE_SPEC - the spec that local CreateTable also uses
   */
  readonly spec?: TableSpec;
}

/**
 * The single table, built from the same spec as the local DynamoDB table: string keys,
 * every GSI projecting ALL, on-demand billing, point-in-time recovery, TTL, and server-side
 * encryption with the AWS-managed key (no key policy to maintain; the functions need no KMS
 * grant for it). The physical name is generated: functions get it through TABLE_NAME.
 *
 * Give it the construct ID `Table` and never rename it: the ID is the logical ID, and a new
 * logical ID means a new, empty table.
 */
export class AppTable extends TableV2 {
  readonly spec: TableSpec;

  constructor(scope: Construct, id: string, props: AppTableProps = {}) {
    const spec = props.spec ?? TABLE_SPEC;
    const retain = props.retain ?? false;
    super(scope, id, {
      partitionKey: { name: spec.partitionKey, type: AttributeType.STRING },
      sortKey: { name: spec.sortKey, type: AttributeType.STRING },
      globalSecondaryIndexes: spec.globalSecondaryIndexes.map((index) => ({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      })),
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: spec.timeToLiveAttribute,
      encryption: TableEncryptionV2.awsManagedKey(),
      deletionProtection: retain,
      removalPolicy: retain ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY,
    });
    this.spec = spec;
  }

  /** ARNs of the table's GSIs, one per index of the spec (no `index/*` wildcard). */
  static indexArns(tableArn: string, spec: TableSpec = TABLE_SPEC): string[] {
    return spec.globalSecondaryIndexes.map((index) => `${tableArn}/index/${index.indexName}`);
  }
}
