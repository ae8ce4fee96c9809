import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from '../shared/ddb/client';
import type { TxItem } from '../shared/ddb/transaction';

/**
 * An employee of one organization: the record time entries and work events refer to, and
 * the one SCIM provisions (services/scim). The same person in another organization is
 * another record. Bank data never lives on this item.
 */
export interface Employee {
  readonly id: string;
  readonly organizationId: string;
  readonly userName: string;
  readonly displayName?: string;
  readonly givenName?: string;
  readonly familyName?: string;
  readonly emails: readonly EmployeeEmail[];
  readonly externalId?: string;
  /** Organization access; false after SCIM deactivation. History is kept either way. */
  readonly active: boolean;
  /** The SCIM resource was deleted (RFC 7644 §3.6): 404 over SCIM, employee kept. */
  readonly scimDeleted?: boolean;
  readonly employeeNumber?: string;
  readonly department?: string;
  readonly managerId?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Increases with every change; the weak ETag carries it. */
  readonly version: number;
}

export interface EmployeeEmail {
  readonly value: string;
  readonly type?: string;
  readonly primary?: boolean;
}

export const employeeKeys = {
  employee: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#EMP#${id}`, SK: 'EMP' }),
  /** GSI1: the employees of an organization in creation order (stable paging). */
  byOrganization: (organizationId: string, createdAt?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#EMPLOYEES`,
    ...(createdAt && id ? { GSI1SK: `${createdAt}#${id}` } : {}),
  }),
};

export const EMPLOYEE_ENTITY = 'Employee';

export function employeeToItem(e: Employee): Record<string, unknown> {
  return { ...employeeKeys.employee(e.organizationId, e.id), ...employeeKeys.byOrganization(e.organizationId, e.createdAt, e.id), itemType: EMPLOYEE_ENTITY, ...e };
}

export function employeeFromItem(item: Record<string, unknown>): Employee {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g1s, itemType: _itemType, ...rest } = item;
  return { emails: [], ...rest } as unknown as Employee;
}

export async function getEmployee(db: Db, organizationId: string, id: string): Promise<Employee | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: employeeKeys.employee(organizationId, id), ConsistentRead: true }));
  return out.Item ? employeeFromItem(out.Item) : undefined;
}

/** Plain put, for seeds and tests; SCIM writes through its own transactions. */
export async function putEmployee(db: Db, e: Employee): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: employeeToItem(e) }));
}

export const EMPLOYEE_LABEL = 'employee';

/** Holds only while the employee exists in this organization. */
export const employeeExistsCheck = (organizationId: string, id: string): TxItem => ({
  label: EMPLOYEE_LABEL,
  op: { ConditionCheck: { Key: employeeKeys.employee(organizationId, id), ConditionExpression: 'attribute_exists(PK)' } },
});
