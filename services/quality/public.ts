import type { TxItem } from '../shared/ddb/transaction';
import { qualityKeys } from './model';

/**
 * What other areas may use of quality (its declared port): the inspection key, to read where
 * an inspection was made, and the existence check their transactions carry (feedback that
 * references an inspection).
 */
export const INSPECTION_LABEL = 'inspection';

export const inspectionKeys = { inspection: qualityKeys.inspection };

export const inspectionExistsCheck = (organizationId: string, id: string): TxItem => ({
  label: INSPECTION_LABEL,
  op: { ConditionCheck: { Key: qualityKeys.inspection(organizationId, id), ConditionExpression: 'attribute_exists(PK)' } },
});
