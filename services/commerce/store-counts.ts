import type { Db } from '../shared/ddb/client';
import { boundedCount, type BoundedCount } from '../shared/ddb/count';
import { commerceKeys } from './model';

/**
 * The dashboard's figure of this area (services/overview): ISSUED invoices whose due date is
 * before `today` (YYYY-MM-DD). ISSUED invoices sit on their own GSI2 partition (model.ts): the
 * count reads that partition (the unpaid invoices, bounded by the cap) and filters on the due
 * date; an invoice without a due date is never overdue.
 */
export const countOverdueInvoices = (db: Db, organizationId: string, today: string): Promise<BoundedCount> =>
  boundedCount(db, {
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk',
    FilterExpression: 'dueDate < :today',
    ExpressionAttributeValues: { ':pk': commerceKeys.invoicesInState(organizationId, 'ISSUED'), ':today': today },
  });
