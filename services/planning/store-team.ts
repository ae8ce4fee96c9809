import type { Db } from '../shared/ddb/client';
import { collectAll } from '../shared/ddb/read';
import { shiftKeys } from './model';

/**
 * Who works at a location, by the plan: the employees of its PUBLISHED shifts that start in
 * [from, to) (one Query of the location's shifts on GSI3, ids only). Messages resolve a
 * location's team with it.
 */
export async function employeesWithPublishedShifts(db: Db, organizationId: string, locationId: string, from: string, to: string): Promise<string[]> {
  const items = await collectAll(db, {
    IndexName: 'GSI3',
    KeyConditionExpression: 'GSI3PK = :pk AND GSI3SK BETWEEN :from AND :to',
    FilterExpression: '#state = :published AND attribute_type(employeeId, :string)',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':pk': shiftKeys.byLocation(organizationId, locationId), ':from': from, ':to': to, ':published': 'PUBLISHED', ':string': 'S' },
    ProjectionExpression: 'employeeId',
  });
  return [...new Set(items.map((i) => i.employeeId).filter((id): id is string => typeof id === 'string'))];
}
