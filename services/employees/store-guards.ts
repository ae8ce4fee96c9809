import type { Db } from '../shared/ddb/client';
import { batchGet } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import { EMAIL_LOOKUP_ENTITY, employeeKeys, GUARD_ENTITY, holderKey, type EmployeeEmail, type GuardAction, type UniqueAttribute, type UniqueValue } from './model';

/**
 * The items that keep userName and externalId unique per organization (one guard item per
 * value, naming its holder) and the e-mail lookups (one item per employee and address), with
 * their conditions. SCIM and the employees API write them through the same builders.
 */

export const guardLabel = (attribute: UniqueAttribute): string => `guard:${attribute}`;

export function guardItem(organizationId: string, attribute: UniqueAttribute, value: string, employeeId: string): Record<string, unknown> {
  return { ...employeeKeys.uniqueGuard(organizationId, attribute, value), itemType: GUARD_ENTITY, organizationId, attribute, employeeId };
}

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

/**
 * The items of employee `me`'s guard actions: a claim, keep, release or take-over each, plus
 * one check per retired holder whose value is taken over.
 */
export function guardActionItems(organizationId: string, me: string, actions: readonly GuardAction[]): TxItem[] {
  const holderChecks = new Map<string, TxItem>();
  const items = actions.map((g): TxItem => {
    switch (g.kind) {
      case 'claim':
        return claimGuardItem(organizationId, g.attribute, g.value, me);
      case 'keep':
        return keepGuardItem(organizationId, g.attribute, g.value, me);
      case 'release':
        return releaseGuardItem(organizationId, g.attribute, g.value, me);
      case 'takeOver':
        if (g.from.version !== undefined) holderChecks.set(g.from.id, retiredHolderCheck(organizationId, g.from.id, g.from.version));
        return takeOverGuardItem(organizationId, g.attribute, g.value, me, g.from.id);
    }
  });
  return [...items, ...holderChecks.values()];
}

/**
 * Who holds each value: one BatchGetItem of the guards. The result maps
 * `holderKey(value)` to the holding employee's id; values nobody holds are absent.
 */
export async function readGuardHolders(db: Db, organizationId: string, values: readonly UniqueValue[]): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  if (values.length === 0) return holders;
  const items = await batchGet(db, values.map((v) => employeeKeys.uniqueGuard(organizationId, v.attribute, v.value)));
  items.forEach((item, i) => {
    if (item && typeof item.employeeId === 'string') holders.set(holderKey(values[i]), item.employeeId);
  });
  return holders;
}

// ---- e-mail lookups -----------------------------------------------------------------------

export const emailLookupItem = (organizationId: string, email: string, employeeId: string): Record<string, unknown> => ({
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
