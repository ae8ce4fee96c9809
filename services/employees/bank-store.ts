import type { SealedValue } from '../shared/crypto/restricted';
import type { TxItem } from '../shared/ddb/transaction';
import { employeeKeys } from './store';

/**
 * An employee's bank account: restricted payroll data, one item beside the employee, never
 * on the employee item (which SCIM, lists and search read) and never in an index.
 *
 *   bank account   PK ORG#<org>#EMP#<id>   SK BANK   (no GSI keys: never listed)
 *
 * The account (IBAN, BIC, holder) is stored only sealed (envelope encryption: KMS in AWS, a
 * local key locally); only the bank-account resource unseals it. The masked IBAN is kept in
 * clear for the employee detail. `version` increases with every set and clear, so a cleared
 * account keeps its history of ETags; an employee never given one is version 0.
 */
export interface StoredBankAccount {
  readonly organizationId: string;
  readonly employeeId: string;
  readonly version: number;
  /** Absent when cleared. */
  readonly sealed?: SealedValue;
  /** `DE89 **** **** **** **30 00`; absent when cleared. */
  readonly maskedIban?: string;
  readonly updatedAt: string;
}

/** What the sealed value holds. */
export interface BankAccountData {
  readonly iban: string;
  readonly bic: string | null;
  readonly accountHolder: string;
}

export const BANK_ACCOUNT_ENTITY = 'EmployeeBankAccount';
export const BANK_ACCOUNT_LABEL = 'bankAccount';

export const bankAccountKey = (organizationId: string, employeeId: string) => ({ PK: employeeKeys.employee(organizationId, employeeId).PK, SK: 'BANK' });

export function bankAccountFromItem(item: Record<string, unknown>): StoredBankAccount {
  const { PK: _pk, SK: _sk, itemType: _type, ...rest } = item;
  return rest as unknown as StoredBankAccount;
}

/**
 * Writes the next state of the account: only if it is still at `expectedVersion` (0: no item
 * yet), so of two writes with the same If-Match exactly one wins.
 */
export function putBankAccountItem(account: StoredBankAccount, expectedVersion: number): TxItem {
  return {
    label: BANK_ACCOUNT_LABEL,
    op: {
      Put: {
        Item: { ...bankAccountKey(account.organizationId, account.employeeId), itemType: BANK_ACCOUNT_ENTITY, ...account },
        ...(expectedVersion === 0
          ? { ConditionExpression: 'attribute_not_exists(PK)' }
          : { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expectedVersion } }),
      },
    },
  };
}
