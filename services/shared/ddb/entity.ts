import { ConcurrentChangeError } from '../domain/conflict';
import { searchIndexItems } from './search';
import type { TransactionCancelledError, TxItem } from './transaction';

/**
 * Building blocks of the usual master-data write: a versioned entity and its word index.
 * The version makes "read, decide, write" safe without locks: the put holds only if the
 * stored version is still the one the decision was made on.
 */

/** Put of a versioned entity: new (must not exist yet), or the next version of `before`. */
export function versionedPut(label: string, item: Record<string, unknown>, before?: { readonly version: number }): TxItem {
  return {
    label,
    op: {
      Put: {
        Item: item,
        ...(before ? { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': before.version } } : { ConditionExpression: 'attribute_not_exists(PK)' }),
      },
    },
  };
}

/**
 * The condition of a write decided on an item read at `version`, where a missing item reads as
 * version 0 (the guards: an employee's plan or overlap guard, a customer's access guard): the
 * item is still at that version, or still missing.
 */
export const stillAtVersion = (version: number) =>
  version === 0 ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': version } };

/** Where an entity's words live: its search scope (e.g. active or archived) and the words. */
export interface SearchState {
  readonly scope: string;
  readonly words: readonly string[];
}

/**
 * The index items that move an entity from its words before to its words after: only the
 * words that changed when the scope stays, every word when the entity changes scope
 * (archiving moves it to the archived scope).
 */
export function searchUpkeep(organizationId: string, entityId: string, before: SearchState | undefined, after: SearchState): TxItem[] {
  if (!before || before.scope === after.scope) return searchIndexItems(organizationId, after.scope, entityId, before?.words ?? [], after.words);
  return [...searchIndexItems(organizationId, before.scope, entityId, before.words, []), ...searchIndexItems(organizationId, after.scope, entityId, [], after.words)];
}

/**
 * Explains a failed condition on the items labelled `labels` as a concurrent change: what was
 * read moved on, so the use case runs again from its reads (and answers 412 then, if the
 * client's If-Match no longer holds).
 */
export const movedOn =
  (...labels: string[]) =>
  (error: TransactionCancelledError): Error | undefined =>
    labels.some((l) => error.failed(l)) ? new ConcurrentChangeError(`The ${labels.join(' or ')}`, { cause: error }) : undefined;
