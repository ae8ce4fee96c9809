import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { auditItem, type AuditEntry } from '../audit/model';
import type { Db } from '../shared/ddb/client';
import { batchGet, collect, collectAll } from '../shared/ddb/read';
import { MAX_WORDS, searchIds, searchIndexItems, searchWords } from '../shared/ddb/search';
import { commit, type TxItem } from '../shared/ddb/transaction';

/**
 * An employee of one organization: the record time entries and work events refer to, and
 * the one SCIM provisions (services/scim). The same person in another organization is
 * another record. Bank data never lives on this item.
 *
 * Items (docs/scim.md lists the access patterns):
 *   employee       PK ORG#<org>#EMP#<id>                          SK EMP
 *   unique guard   PK ORG#<org>#EMPUNIQUE#<attribute>#<digest>     SK GUARD      (userName lower-cased, externalId as is)
 *   email lookup   PK ORG#<org>#EMPEMAIL#<digest of lower email>   SK EMP#<id>
 *   GSI1 ORG#<org>#EMPLOYEES                         / <createdAt>#<id>   every employee, creation order
 *   GSI2 ORG#<org>#EMPDISPLAYNAME#<digest of lower>  / <createdAt>#<id>   by displayName (sparse)
 * Values inside keys are SHA-256 digests: no name or e-mail address ever appears in a key
 * (keys end up in logs and error messages), and long values never hit the key size limit.
 */
export interface Employee {
  readonly id: string;
  readonly organizationId: string;
  readonly userName: string;
  readonly displayName?: string;
  readonly givenName?: string;
  readonly familyName?: string;
  /** SCIM name.formatted. */
  readonly formattedName?: string;
  readonly title?: string;
  readonly emails: readonly EmployeeEmail[];
  readonly phoneNumbers?: readonly EmployeePhoneNumber[];
  readonly addresses?: readonly EmployeeAddress[];
  readonly externalId?: string;
  /** Organization access; false after SCIM deactivation. History is kept either way. */
  readonly active: boolean;
  /** The SCIM resource was deleted (RFC 7644 §3.6): 404 over SCIM, employee kept. */
  readonly scimDeleted?: boolean;
  readonly employeeNumber?: string;
  readonly department?: string;
  readonly managerId?: string;
  /**
   * Sensitive fields, kept by the employees API only (never SCIM, search or audit); served
   * only to keys with employees:read_sensitive. RFC 3339 full-date.
   */
  readonly dateOfBirth?: string;
  readonly personalAddress?: PersonalAddress;
  readonly taxId?: string;
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

export interface EmployeePhoneNumber {
  readonly value: string;
  readonly type?: string;
  readonly primary?: boolean;
}

export interface EmployeeAddress {
  readonly formatted?: string;
  readonly streetAddress?: string;
  readonly locality?: string;
  readonly region?: string;
  readonly postalCode?: string;
  readonly country?: string;
  readonly type?: string;
  readonly primary?: boolean;
}

/** The employee's private address (sensitive), apart from SCIM's `addresses`. */
export interface PersonalAddress {
  readonly streetAddress: string;
  readonly postalCode?: string;
  readonly locality: string;
  readonly region?: string;
  /** ISO 3166-1 alpha-2. */
  readonly country: string;
}

/** The attributes unique per organization (uniqueness guards). */
export type UniqueAttribute = 'userName' | 'externalId';

/**
 * The value a uniqueness guard is keyed on: userName is case-insensitive (RFC 7643
 * caseExact false), externalId case-exact.
 */
export const uniqueValueOf = (attribute: UniqueAttribute, value: string): string => (attribute === 'userName' ? value.toLowerCase() : value);

const digest = (value: string): string => createHash('sha256').update(value, 'utf8').digest('base64url');

export const employeeKeys = {
  employee: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#EMP#${id}`, SK: 'EMP' }),
  /** GSI1: the employees of an organization in creation order (stable paging). */
  byOrganization: (organizationId: string, createdAt?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#EMPLOYEES`,
    ...(createdAt && id ? { GSI1SK: `${createdAt}#${id}` } : {}),
  }),
  /** GSI2 (sparse): employees with this displayName, case-insensitive. */
  byDisplayName: (organizationId: string, displayName: string, createdAt?: string, id?: string) => ({
    GSI2PK: `ORG#${organizationId}#EMPDISPLAYNAME#${digest(displayName.toLowerCase())}`,
    ...(createdAt && id ? { GSI2SK: `${createdAt}#${id}` } : {}),
  }),
  /** One item per organization and unique value; `employeeId` names its owner. */
  uniqueGuard: (organizationId: string, attribute: UniqueAttribute, value: string) => ({
    PK: `ORG#${organizationId}#EMPUNIQUE#${attribute}#${digest(uniqueValueOf(attribute, value))}`,
    SK: 'GUARD',
  }),
  /** One item per employee and e-mail address (lower-cased); several employees may share one. */
  emailLookup: (organizationId: string, email: string, id: string) => ({ PK: employeeKeys.emailPartition(organizationId, email), SK: `EMP#${id}` }),
  emailPartition: (organizationId: string, email: string) => `ORG#${organizationId}#EMPEMAIL#${digest(email.toLowerCase())}`,
};

export const EMPLOYEE_ENTITY = 'Employee';
const GUARD_ENTITY = 'EmployeeUniqueGuard';
const EMAIL_LOOKUP_ENTITY = 'EmployeeEmailLookup';

export function employeeToItem(e: Employee): Record<string, unknown> {
  return {
    ...employeeKeys.employee(e.organizationId, e.id),
    ...employeeKeys.byOrganization(e.organizationId, e.createdAt, e.id),
    ...(e.displayName ? employeeKeys.byDisplayName(e.organizationId, e.displayName, e.createdAt, e.id) : {}),
    itemType: EMPLOYEE_ENTITY,
    ...e,
  };
}

export function employeeFromItem(item: Record<string, unknown>): Employee {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g1s, GSI2PK: _g2, GSI2SK: _g2s, itemType: _itemType, ...rest } = item;
  return { emails: [], ...rest } as unknown as Employee;
}

export async function getEmployee(db: Db, organizationId: string, id: string): Promise<Employee | undefined> {
  const out = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: employeeKeys.employee(organizationId, id), ConsistentRead: true }));
  return out.Item ? employeeFromItem(out.Item) : undefined;
}

/** Employees by id, in the order asked; ids that do not exist are left out. */
export async function getEmployees(db: Db, organizationId: string, ids: readonly string[]): Promise<Employee[]> {
  const found: Employee[] = [];
  for (let i = 0; i < ids.length; i += 100) {
    const items = await batchGet(db, ids.slice(i, i + 100).map((id) => employeeKeys.employee(organizationId, id)));
    for (const item of items) if (item) found.push(employeeFromItem(item));
  }
  return found;
}

/**
 * Plain put, for seeds and tests: the employee with its uniqueness guards and e-mail lookups,
 * unconditionally (last writer wins). SCIM writes through its own conditional transactions.
 */
export async function putEmployee(db: Db, e: Employee): Promise<void> {
  const plain = (label: string, Item: Record<string, unknown>): TxItem => ({ label, op: { Put: { Item } } });
  await commit(db, [
    plain(EMPLOYEE_LABEL, employeeToItem(e)),
    plain('guard:userName', guardItem(e.organizationId, 'userName', e.userName, e.id)),
    ...(e.externalId ? [plain('guard:externalId', guardItem(e.organizationId, 'externalId', e.externalId, e.id))] : []),
    ...uniqueEmails(e.emails).map((email, i) => plain(`email:${i}`, emailLookupItem(e.organizationId, email, e.id))),
  ]);
}

export const EMPLOYEE_LABEL = 'employee';

/** Holds only while the employee exists in this organization. */
export const employeeExistsCheck = (organizationId: string, id: string): TxItem => ({
  label: EMPLOYEE_LABEL,
  op: { ConditionCheck: { Key: employeeKeys.employee(organizationId, id), ConditionExpression: 'attribute_exists(PK)' } },
});

/**
 * Writes the next state of an employee: a new one only if the id is free, an existing one
 * only if nobody changed it since it was read (`expectedVersion`).
 */
export function putEmployeeItem(e: Employee, expectedVersion?: number): TxItem {
  return {
    label: EMPLOYEE_LABEL,
    op: {
      Put: {
        Item: employeeToItem(e),
        ...(expectedVersion === undefined
          ? { ConditionExpression: 'attribute_not_exists(PK)' }
          : { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expectedVersion } }),
      },
    },
  };
}

// ---- uniqueness guards -------------------------------------------------------------------

function guardItem(organizationId: string, attribute: UniqueAttribute, value: string, employeeId: string): Record<string, unknown> {
  return { ...employeeKeys.uniqueGuard(organizationId, attribute, value), itemType: GUARD_ENTITY, organizationId, attribute, employeeId };
}

export const guardLabel = (attribute: UniqueAttribute): string => `guard:${attribute}`;

/** Claims a value nobody holds: fails if a concurrent write claimed it first. */
export const claimGuardItem = (organizationId: string, attribute: UniqueAttribute, value: string, employeeId: string): TxItem => ({
  label: guardLabel(attribute),
  op: { Put: { Item: guardItem(organizationId, attribute, value, employeeId), ConditionExpression: 'attribute_not_exists(PK)' } },
});

/** The employee keeps a value it holds: fails if the guard moved to another employee meanwhile. */
export const keepGuardItem = (organizationId: string, attribute: UniqueAttribute, value: string, employeeId: string): TxItem => ({
  label: guardLabel(attribute),
  op: {
    ConditionCheck: {
      Key: employeeKeys.uniqueGuard(organizationId, attribute, value),
      ConditionExpression: 'employeeId = :me',
      ExpressionAttributeValues: { ':me': employeeId },
    },
  },
});

/**
 * Moves a value from a retired holder (an employee whose SCIM resource was deleted) to
 * `employeeId`; pair it with `retiredHolderCheck` so that a holder re-linked meanwhile keeps it.
 */
export const takeOverGuardItem = (organizationId: string, attribute: UniqueAttribute, value: string, employeeId: string, fromEmployeeId: string): TxItem => ({
  label: guardLabel(attribute),
  op: {
    Put: {
      Item: guardItem(organizationId, attribute, value, employeeId),
      ConditionExpression: 'employeeId = :from',
      ExpressionAttributeValues: { ':from': fromEmployeeId },
    },
  },
});

/** Frees a value the employee no longer has (only while the employee still holds it). */
export const releaseGuardItem = (organizationId: string, attribute: UniqueAttribute, value: string, employeeId: string): TxItem => ({
  label: `release:${attribute}`,
  op: {
    Delete: {
      Key: employeeKeys.uniqueGuard(organizationId, attribute, value),
      ConditionExpression: 'employeeId = :me',
      ExpressionAttributeValues: { ':me': employeeId },
    },
  },
});

/** The holder of a taken-over value is still deleted over SCIM and unchanged since it was read. */
export const retiredHolderCheck = (organizationId: string, employeeId: string, version: number): TxItem => ({
  label: `holder:${employeeId}`,
  op: {
    ConditionCheck: {
      Key: employeeKeys.employee(organizationId, employeeId),
      ConditionExpression: 'version = :version AND scimDeleted = :deleted',
      ExpressionAttributeValues: { ':version': version, ':deleted': true },
    },
  },
});

export interface UniqueValue {
  readonly attribute: UniqueAttribute;
  readonly value: string;
}

const uniqueKeyString = (u: UniqueValue) => `${u.attribute}\u0000${uniqueValueOf(u.attribute, u.value)}`;

/**
 * Who holds each value: one BatchGetItem of the guards. The result maps
 * `holderKey(value)` to the holding employee's id; values nobody holds are absent.
 */
export async function readGuardHolders(db: Db, organizationId: string, values: readonly UniqueValue[]): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  if (values.length === 0) return holders;
  const items = await batchGet(db, values.map((v) => employeeKeys.uniqueGuard(organizationId, v.attribute, v.value)));
  items.forEach((item, i) => {
    if (item && typeof item.employeeId === 'string') holders.set(uniqueKeyString(values[i]), item.employeeId);
  });
  return holders;
}

export const holderKey = uniqueKeyString;

// ---- e-mail lookups -----------------------------------------------------------------------

const emailLookupItem = (organizationId: string, email: string, employeeId: string): Record<string, unknown> => ({
  ...employeeKeys.emailLookup(organizationId, email, employeeId),
  itemType: EMAIL_LOOKUP_ENTITY,
  organizationId,
  employeeId,
});

/** The distinct addresses of a list, lower-cased (the lookup is case-insensitive). */
export const uniqueEmails = (emails: readonly { readonly value: string }[] | undefined): string[] => [...new Set((emails ?? []).map((e) => e.value.toLowerCase()))];

/** Lookup items to add and remove when an employee's addresses go from `before` to `after`. */
export function emailLookupChanges(organizationId: string, employeeId: string, before: readonly EmployeeEmail[], after: readonly EmployeeEmail[]): TxItem[] {
  const old = new Set(uniqueEmails(before));
  const next = new Set(uniqueEmails(after));
  return [
    ...[...next].filter((e) => !old.has(e)).map((email, i): TxItem => ({ label: `email:+${i}`, op: { Put: { Item: emailLookupItem(organizationId, email, employeeId) } } })),
    ...[...old].filter((e) => !next.has(e)).map((email, i): TxItem => ({ label: `email:-${i}`, op: { Delete: { Key: employeeKeys.emailLookup(organizationId, email, employeeId) } } })),
  ];
}

// ---- queries ------------------------------------------------------------------------------

/** Ids of the employees with this e-mail address (any type, case-insensitive): one Query. */
export async function employeeIdsByEmail(db: Db, organizationId: string, email: string): Promise<string[]> {
  const items = await collectAll(db, {
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': employeeKeys.emailPartition(organizationId, email) },
    ProjectionExpression: 'employeeId',
    ConsistentRead: true,
  });
  return items.map((i) => i.employeeId as string);
}

/** Ids of the employees with this displayName (case-insensitive), creation order: one Query on GSI2. */
export async function employeeIdsByDisplayName(db: Db, organizationId: string, displayName: string): Promise<string[]> {
  const items = await collectAll(db, {
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk',
    ExpressionAttributeValues: { ':pk': employeeKeys.byDisplayName(organizationId, displayName).GSI2PK },
    ProjectionExpression: 'id',
  });
  return items.map((i) => i.id as string);
}

/**
 * Ids of the organization's employees in creation order (GSI1), leaving out those whose
 * SCIM resource was deleted: one Query, paged through, returning ids only.
 */
export async function listVisibleEmployeeIds(db: Db, organizationId: string): Promise<string[]> {
  const items = await collectAll(db, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    FilterExpression: 'attribute_not_exists(scimDeleted) OR scimDeleted = :no',
    ExpressionAttributeValues: { ':pk': employeeKeys.byOrganization(organizationId).GSI1PK, ':no': false },
    ProjectionExpression: 'id',
  });
  return items.map((i) => i.id as string);
}

/**
 * Employees of the organization in creation order (GSI1), optionally only active or inactive
 * ones: one Query from the position after `after` (a GSI1SK), `limit + 1` read to know
 * whether more follow. `after` of the result is the last returned position when they do.
 */
export async function listEmployeesPage(db: Db, organizationId: string, query: EmployeePageQuery): Promise<EmployeePage> {
  const { items } = await collect(
    db,
    {
      IndexName: 'GSI1',
      KeyConditionExpression: query.after ? 'GSI1PK = :pk AND GSI1SK > :after' : 'GSI1PK = :pk',
      ...(query.active !== undefined ? { FilterExpression: 'active = :active' } : {}),
      ExpressionAttributeValues: {
        ':pk': employeeKeys.byOrganization(organizationId).GSI1PK,
        ...(query.after ? { ':after': query.after } : {}),
        ...(query.active !== undefined ? { ':active': query.active } : {}),
      },
    },
    query.limit + 1,
  );
  const page = items.slice(0, query.limit);
  const more = items.length > query.limit;
  return { employees: page.map(employeeFromItem), ...(more && page.length > 0 ? { after: page[page.length - 1].GSI1SK as string } : {}) };
}

export interface EmployeePageQuery {
  readonly limit: number;
  /** Only active (true) or inactive (false) employees. */
  readonly active?: boolean;
  /** Continuation position from a previous page. */
  readonly after?: string;
}

export interface EmployeePage {
  readonly employees: Employee[];
  /** Position after the last employee returned, when more may follow. */
  readonly after?: string;
}

// ---- search index -------------------------------------------------------------------------

/** The scope of the employees' word-prefix index (services/shared/ddb/search.ts). */
export const EMPLOYEE_SEARCH_SCOPE = 'employee';

/**
 * The words an employee is found by: names, userName and externalId first, then e-mail
 * addresses, up to the index's limit. Never sensitive fields or bank data.
 */
export function employeeSearchWords(e: Pick<Employee, 'displayName' | 'givenName' | 'familyName' | 'formattedName' | 'userName' | 'externalId' | 'emails'>): string[] {
  const identity = searchWords([e.displayName, e.givenName, e.familyName, e.formattedName, e.userName, e.externalId]);
  const mail = searchWords(e.emails.map((m) => m.value));
  return [...new Set([...identity, ...mail])].slice(0, MAX_WORDS).sort();
}

/**
 * Index items that move an employee from its `before` words to its `after` words, for the
 * transaction that writes the employee; none when the words did not change.
 */
export function employeeSearchItems(before: Employee | undefined, after: Employee): TxItem[] {
  const old = before ? employeeSearchWords(before) : [];
  const next = employeeSearchWords(after);
  if (old.length === next.length && old.every((w, i) => w === next[i])) return [];
  return searchIndexItems(after.organizationId, EMPLOYEE_SEARCH_SCOPE, after.id, old, next);
}

/** Search pages read ahead at most this often to fill a page that the `active` filter thinned. */
const SEARCH_ROUNDS = 10;

/**
 * Employees matching every word of `q` by prefix (name, userName, externalId, e-mail), in the
 * index's order, optionally only active or inactive ones. A page may hold fewer than `limit`
 * employees when many matches were filtered out; `after` says whether more may follow.
 */
export async function searchEmployeesPage(db: Db, organizationId: string, q: string, query: EmployeePageQuery): Promise<EmployeePage> {
  const employees: Employee[] = [];
  let after = query.after;
  for (let round = 0; round < SEARCH_ROUNDS && employees.length < query.limit; round += 1) {
    const page = await searchIds(db, organizationId, EMPLOYEE_SEARCH_SCOPE, q, query.limit - employees.length, after);
    const found = await getEmployees(db, organizationId, page.entityIds);
    employees.push(...found.filter((e) => query.active === undefined || e.active === query.active));
    after = page.after;
    if (after === undefined) break;
  }
  return { employees, ...(after !== undefined ? { after } : {}) };
}

/** A change of a uniqueness guard in an employee's write transaction. */
export type GuardAction =
  | { readonly kind: 'claim'; readonly attribute: UniqueAttribute; readonly value: string }
  | { readonly kind: 'keep'; readonly attribute: UniqueAttribute; readonly value: string }
  | { readonly kind: 'takeOver'; readonly attribute: UniqueAttribute; readonly value: string; readonly from: { readonly id: string; readonly version?: number } }
  | { readonly kind: 'release'; readonly attribute: UniqueAttribute; readonly value: string };

/** Everything one employee change commits, atomically. */
export interface EmployeeWrite {
  /** The stored state the change was computed from; absent for a new employee. */
  readonly before?: Employee;
  readonly after: Employee;
  readonly guards: readonly GuardAction[];
  readonly audit: AuditEntry;
  /** The caller's items for the same transaction (the idempotency record). */
  readonly extra: readonly TxItem[];
}

/**
 * The items of one employee change, whichever API makes it (SCIM or the employees API): the
 * employee (new, or at the version read), its guard actions (with a check that a retired
 * holder is still retired and unchanged), e-mail lookups and search index items added and
 * removed, the audit entry, and the caller's extra items (the idempotency record).
 */
export function employeeChangeItems(write: EmployeeWrite): TxItem[] {
  const org = write.after.organizationId;
  const me = write.after.id;
  const holderChecks = new Map<string, TxItem>();
  const guardItem = (g: GuardAction): TxItem => {
    switch (g.kind) {
      case 'claim':
        return claimGuardItem(org, g.attribute, g.value, me);
      case 'keep':
        return keepGuardItem(org, g.attribute, g.value, me);
      case 'release':
        return releaseGuardItem(org, g.attribute, g.value, me);
      case 'takeOver':
        if (g.from.version !== undefined) holderChecks.set(g.from.id, retiredHolderCheck(org, g.from.id, g.from.version));
        return takeOverGuardItem(org, g.attribute, g.value, me, g.from.id);
    }
  };
  const guards = write.guards.map(guardItem);
  return [
    putEmployeeItem(write.after, write.before?.version),
    ...guards,
    ...holderChecks.values(),
    ...emailLookupChanges(org, me, write.before?.emails ?? [], write.after.emails),
    ...employeeSearchItems(write.before, write.after),
    auditItem(write.audit),
    ...write.extra,
  ];
}
