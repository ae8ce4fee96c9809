import { MAX_WORDS, searchIndexItems, searchWords } from '../shared/ddb/search';
import type { TxItem } from '../shared/ddb/transaction';
import type { Employee } from './model';

/**
 * The employees' word-prefix index (services/shared/ddb/search.ts): which words an employee
 * is found by, and the index items that move it from its old words to its new ones in the
 * transaction that writes it (SCIM's and this API's alike).
 */

/** The scope of the employees' word-prefix index. */
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
