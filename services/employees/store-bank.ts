import { versionedPut } from '../shared/ddb/entity';
import type { TxItem } from '../shared/ddb/transaction';
import { bankAccountToItem, type StoredBankAccount } from './model';

/**
 * The bank-account item: one beside each employee that was ever given an account
 * (`SK BANK`, no index keys: never listed, never searched), holding the sealed account and
 * the masked IBAN. Only the bank-account resource unseals it.
 */

export const BANK_ACCOUNT_LABEL = 'bankAccount';

/**
 * Writes the next state of the account: only if it is still at the version read (none read:
 * no item yet), so of two writes with the same If-Match exactly one wins.
 */
export const putBankAccountItem = (after: StoredBankAccount, before: StoredBankAccount | undefined): TxItem => versionedPut(BANK_ACCOUNT_LABEL, bankAccountToItem(after), before);
