import type { Db } from '../shared/ddb/client';
import { boundedQuery, type BoundedCount } from '../shared/ddb/count';
import { MAX_SHIFT_MS, shiftKeys } from './model';

/**
 * The dashboard's figure of this area (services/overview): employees on a PUBLISHED shift at
 * `now`. A shift lasts at most 24 hours (model.ts), so every shift running at `now` started in
 * [now - 24 h, now]: one bounded Query of that GSI1 range (the shifts of the last day, at most
 * COUNT_CAP items read: boundedQuery), filtered on state and end, projecting only the employee; each employee
 * counts once, however many shifts of theirs overlap.
 */
export async function countEmployeesOnShift(db: Db, organizationId: string, now: Date): Promise<BoundedCount> {
  const at = now.toISOString();
  const employees = new Set<string>();
  const { capped } = await boundedQuery(
    db,
    {
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :lo AND :hi',
      FilterExpression: '#state = :published AND endsAt > :now AND attribute_type(employeeId, :string)',
      ProjectionExpression: 'employeeId',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':pk': shiftKeys.byOrganization(organizationId),
        ':lo': new Date(now.getTime() - MAX_SHIFT_MS).toISOString(),
        ':hi': `${at}#\uffff`,
        ':published': 'PUBLISHED',
        ':now': at,
        ':string': 'S',
      },
    },
    (out) => {
      for (const item of out.Items ?? []) employees.add(item.employeeId as string);
    },
  );
  return { count: employees.size, capped };
}
