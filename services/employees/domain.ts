import type { AuditEntry } from '../audit/model';
import type { Principal } from '../shared/auth/principal';
import type { SealedValue } from '../shared/crypto/restricted';
import type { TxItem } from '../shared/ddb/transaction';
import { NotFoundError, TransactionConflictError, UniquenessConflictError, ValidationError } from '../shared/errors';
import { assertEtag, entityEtag } from '../shared/domain/etag';
import type { BankAccountData, StoredBankAccount } from './bank-store';
import { maskIban } from './iban';
import { holderKey, uniqueValueOf, type Employee, type EmployeePage, type EmployeePageQuery, type UniqueAttribute, type UniqueValue, type EmployeeWrite, type GuardAction } from './store';

/**
 * Employees as the public API manages them: the same records SCIM provisions (same guards,
 * same version), plus sensitive fields SCIM never sees, and a bank account beside each
 * employee. No HTTP, no SDK: the store, clock, ids and sealing are ports.
 */

export type { EmployeeWrite, GuardAction };

/** Everything one bank-account change commits, atomically. */
export interface BankAccountWrite {
  readonly employeeBefore: Employee;
  /** The employee at its next version: the detail shows the masked IBAN, so its ETag moves too. */
  readonly employeeAfter: Employee;
  readonly before?: StoredBankAccount;
  readonly after: StoredBankAccount;
  readonly audit: AuditEntry;
  readonly extra: readonly TxItem[];
}

/** Thrown by the store when the employee changed between read and commit: read again. */
export class EmployeeMovedError extends Error {
  constructor(options?: ErrorOptions) {
    super('The employee changed before the write committed.', options);
    this.name = 'EmployeeMovedError';
  }
}

/** The data port (services/employees/dynamo-store.ts is the DynamoDB adapter). */
export interface EmployeeStore {
  /** The employee and its bank-account item, consistently, in one read. */
  getWithBankAccount(organizationId: string, id: string): Promise<{ readonly employee?: Employee; readonly bankAccount?: StoredBankAccount }>;
  /** holderKey(value) → id of the employee holding it. */
  guardHolders(organizationId: string, values: readonly UniqueValue[]): Promise<Map<string, string>>;
  /** Creation order, or search order with `q`. */
  list(organizationId: string, query: EmployeePageQuery & { readonly q?: string }): Promise<EmployeePage>;
  /** One transaction. EtagMismatchError: the employee moved; UniquenessConflictError: a guard was taken. */
  commitEmployee(write: EmployeeWrite): Promise<void>;
  /** One transaction. EtagMismatchError: the account moved; EmployeeMovedError: the employee moved. */
  commitBankAccount(write: BankAccountWrite): Promise<void>;
}

export interface EmployeeDeps {
  readonly store: EmployeeStore;
  readonly now: () => Date;
  readonly newId: () => string;
  /** Envelope-encrypts the bank account. */
  readonly seal: (value: unknown) => Promise<SealedValue>;
  /** Opens it again: only the bank-account resource calls this. */
  readonly unseal: (sealed: SealedValue) => Promise<unknown>;
}

export interface Actor {
  readonly principal: Principal;
  readonly requestId: string;
}

/** An employee with what its detail shows beside it. */
export interface EmployeeView {
  readonly employee: Employee;
  readonly maskedIban: string | null;
}

/** Items the caller commits in the same transaction, built from the result about to be committed. */
export type ExtraItems<T> = (planned: T) => Promise<readonly TxItem[]>;

export const employeeEtag = (e: Pick<Employee, 'id' | 'version'>): string => entityEtag('employee', e.id, e.version);
export const bankAccountEtag = (employeeId: string, account: StoredBankAccount | undefined): string => entityEtag('bank-account', employeeId, account?.version ?? 0);

/** The fields of an employee the public API sets; `null` clears an optional one. */
export interface ProfileInput {
  readonly userName?: string;
  readonly externalId?: string | null;
  readonly displayName?: string | null;
  readonly givenName?: string | null;
  readonly familyName?: string | null;
  readonly title?: string | null;
  readonly department?: string | null;
  readonly employeeNumber?: string | null;
  readonly emails?: readonly { readonly value: string; readonly type?: string | null; readonly primary?: boolean }[];
  readonly dateOfBirth?: string | null;
  readonly personalAddress?: { readonly streetAddress: string; readonly postalCode?: string | null; readonly locality: string; readonly region?: string | null; readonly country: string } | null;
  readonly taxId?: string | null;
}

/** The names audit entries use for changed fields (names only, never values). */
const PROFILE_FIELDS = ['userName', 'externalId', 'displayName', 'givenName', 'familyName', 'title', 'department', 'employeeNumber', 'emails', 'dateOfBirth', 'personalAddress', 'taxId', 'active'] as const;
const UNIQUE_ATTRIBUTES: readonly UniqueAttribute[] = ['userName', 'externalId'];
const BANK_ATTEMPTS = 4;

// ---- reads -----------------------------------------------------------------------------------

/** GET /employees/{id}: the employee with its masked IBAN; 404 if it is not of this organization. */
export async function readEmployee(deps: EmployeeDeps, organizationId: string, id: string): Promise<EmployeeView & { readonly bankAccount?: StoredBankAccount }> {
  const { employee, bankAccount } = await deps.store.getWithBankAccount(organizationId, id);
  if (!employee) throw new NotFoundError(`Employee ${id}`);
  return { employee, maskedIban: bankAccount?.maskedIban ?? null, ...(bankAccount ? { bankAccount } : {}) };
}

// ---- writes ----------------------------------------------------------------------------------

/**
 * POST /employees. Input: the profile (userName required); output: the new, active employee.
 * 1. Read who holds the userName (case-insensitive) and externalId (case-exact): any holder,
 *    even one whose SCIM resource was deleted (it is still an employee here), is 409.
 * 2. Build the employee at version 1.
 * 3. Commit ONE transaction: employee, claimed guards, e-mail lookups, search index items,
 *    audit entry (field names only), the caller's idempotency record. A guard claimed by a
 *    concurrent write in the meantime is 409 as well.
 */
export async function createEmployee(deps: EmployeeDeps, actor: Actor, input: ProfileInput & { readonly userName: string }, extra: ExtraItems<EmployeeView>): Promise<EmployeeView> {
  const org = actor.principal.organizationId;
  const now = deps.now().toISOString();
  const after = applyProfile({ id: deps.newId(), organizationId: org, userName: input.userName, emails: [], active: true, createdAt: now, updatedAt: now, version: 1 }, input);
  const guards = planGuards(after.id, undefined, after, await deps.store.guardHolders(org, uniqueValues(after)));
  const view: EmployeeView = { employee: after, maskedIban: null };
  await deps.store.commitEmployee({ after, guards, audit: auditEntry(deps, actor, 'employee.created', undefined, after), extra: await extra(view) });
  return view;
}

/**
 * PATCH /employees/{id}: any subset of the profile; `active: true` reactivates.
 * 1. Read the employee (404) and its bank account; If-Match must be its ETag (412).
 * 2. Apply the patch; reactivating an employee whose SCIM resource was deleted is refused
 *    (422): its identity provider no longer manages it, re-provision it over SCIM instead.
 * 3. Plan the guards of old and new userName/externalId (409 if another employee holds one).
 * 4. Commit ONE transaction: employee at version + 1 (only if still at the version read:
 *    412 otherwise), guards, e-mail lookups, search index items, audit entry, idempotency record.
 */
export async function updateEmployee(deps: EmployeeDeps, actor: Actor, id: string, ifMatch: string, input: ProfileInput & { readonly active?: true }, extra: ExtraItems<EmployeeView>): Promise<EmployeeView> {
  const { employee: before, maskedIban } = await readEmployee(deps, actor.principal.organizationId, id);
  assertEtag(ifMatch, employeeEtag(before));
  if (input.active && !before.active && before.scimDeleted) {
    throw new ValidationError([{ pointer: '/active', detail: 'This employee was deprovisioned by its identity provider (SCIM DELETE): re-provision it over SCIM to reactivate it.' }]);
  }
  const now = deps.now().toISOString();
  const after = { ...applyProfile(before, input), ...(input.active ? { active: true } : {}), updatedAt: now, version: before.version + 1 };
  const holders = await deps.store.guardHolders(after.organizationId, [...uniqueValues(before), ...uniqueValues(after)]);
  const guards = planGuards(id, before, after, holders);
  const action = input.active && !before.active ? 'employee.reactivated' : 'employee.updated';
  const view: EmployeeView = { employee: after, maskedIban };
  await deps.store.commitEmployee({ before, after, guards, audit: auditEntry(deps, actor, action, before, after), extra: await extra(view) });
  return view;
}

/**
 * POST /employees/{id}/deactivate: organization access ends (`active: false`); the employee,
 * its work events, time entries, reports, audit history and bank account all stay.
 * 1. Read the employee (404); If-Match must be its ETag (412).
 * 2. Commit ONE transaction: employee at version + 1 with active false (it keeps its
 *    userName and externalId), the
 *    audit entry with the reason, the caller's idempotency record.
 */
export async function deactivateEmployee(deps: EmployeeDeps, actor: Actor, id: string, ifMatch: string, reason: string, extra: ExtraItems<EmployeeView>): Promise<EmployeeView> {
  const { employee: before, maskedIban } = await readEmployee(deps, actor.principal.organizationId, id);
  assertEtag(ifMatch, employeeEtag(before));
  const after: Employee = { ...before, active: false, updatedAt: deps.now().toISOString(), version: before.version + 1 };
  const view: EmployeeView = { employee: after, maskedIban };
  await deps.store.commitEmployee({ before, after, guards: [], audit: { ...auditEntry(deps, actor, 'employee.deactivated', before, after), reason }, extra: await extra(view) });
  return view;
}

// ---- bank account ----------------------------------------------------------------------------

export interface BankAccountView {
  readonly employeeId: string;
  readonly account: BankAccountData | null;
  readonly stored?: StoredBankAccount;
}

/**
 * GET /employees/{id}/bank-account: the full account, unsealed. 404 if the employee is not of
 * this organization; an employee never given an account answers nulls at version 0, so that
 * a first PUT has an If-Match to send.
 */
export async function readBankAccount(deps: EmployeeDeps, organizationId: string, employeeId: string): Promise<BankAccountView> {
  const { bankAccount } = await readEmployee(deps, organizationId, employeeId);
  const account = bankAccount?.sealed ? ((await deps.unseal(bankAccount.sealed)) as BankAccountData) : null;
  return { employeeId, account, ...(bankAccount ? { stored: bankAccount } : {}) };
}

/**
 * PUT /employees/{id}/bank-account: sets (validated and normalized by the caller) or clears
 * (`null`) the account.
 * 1. Read the employee (404) and its account; If-Match must be the account's ETag (412).
 * 2. Seal the account (IBAN, BIC, holder); keep only the masked IBAN in clear.
 * 3. Commit ONE transaction: the account at version + 1 (only if still at the version read:
 *    412), the employee at version + 1 (its detail shows the masked IBAN), the audit entry
 *    (no bank data: the attribute name only), the caller's idempotency record.
 * 4. If the employee changed meanwhile (SCIM, a PATCH), start again from 1.
 */
export async function putBankAccount(
  deps: EmployeeDeps,
  actor: Actor,
  employeeId: string,
  ifMatch: string,
  account: BankAccountData | null,
  extra: ExtraItems<StoredBankAccount>,
): Promise<StoredBankAccount> {
  const org = actor.principal.organizationId;
  for (let attempt = 1; ; attempt += 1) {
    const { employee, bankAccount: before } = await readEmployee(deps, org, employeeId);
    assertEtag(ifMatch, bankAccountEtag(employeeId, before));
    const now = deps.now().toISOString();
    const after: StoredBankAccount = {
      organizationId: org,
      employeeId,
      version: (before?.version ?? 0) + 1,
      ...(account ? { sealed: await deps.seal(account), maskedIban: maskIban(account.iban) } : {}),
      updatedAt: now,
    };
    const employeeAfter: Employee = { ...employee, updatedAt: now, version: employee.version + 1 };
    const audit: AuditEntry = {
      ...auditEntry(deps, actor, account ? 'employee.bank_account_set' : 'employee.bank_account_cleared', employee, employeeAfter),
      changedAttributes: ['bankAccount'],
    };
    try {
      await deps.store.commitBankAccount({ employeeBefore: employee, employeeAfter, ...(before ? { before } : {}), after, audit, extra: await extra(after) });
      return after;
    } catch (error) {
      if (!(error instanceof EmployeeMovedError)) throw error;
      if (attempt >= BANK_ATTEMPTS) throw new TransactionConflictError({ cause: error });
    }
  }
}

// ---- rules -----------------------------------------------------------------------------------

/** The employee with the given profile fields set, and those given as null removed. */
export function applyProfile(e: Employee, input: ProfileInput): Employee {
  const next: Record<string, unknown> = { ...e };
  for (const [field, value] of Object.entries(input)) {
    if (field === 'active' || value === undefined) continue;
    if (value === null) delete next[field];
    else if (field === 'emails') next.emails = (value as NonNullable<ProfileInput['emails']>).map((m) => ({ value: m.value, ...(m.type ? { type: m.type } : {}), ...(m.primary !== undefined ? { primary: m.primary } : {}) }));
    else if (field === 'personalAddress') next.personalAddress = Object.fromEntries(Object.entries(value as object).filter(([, v]) => v !== null && v !== undefined));
    else next[field] = value;
  }
  return next as unknown as Employee;
}

const uniqueValues = (e: Pick<Employee, 'userName' | 'externalId'>): UniqueValue[] =>
  UNIQUE_ATTRIBUTES.flatMap((attribute) => (e[attribute] === undefined ? [] : [{ attribute, value: e[attribute]! }]));

/**
 * The guard actions that move employee `me` from `before` to `after` (pure): a free value is
 * claimed, a value `me` holds is kept (checked in the transaction), a value `me` gave up is
 * released, and a value anybody else holds is a uniqueness conflict. Unlike SCIM, this API
 * never takes a value over from a retained employee: that employee is still listed here.
 */
export function planGuards(me: string, before: Pick<Employee, 'userName' | 'externalId'> | undefined, after: Pick<Employee, 'userName' | 'externalId'>, holders: ReadonlyMap<string, string>): GuardAction[] {
  const actions: GuardAction[] = [];
  for (const attribute of UNIQUE_ATTRIBUTES) {
    const next = after[attribute];
    const previous = before?.[attribute];
    if (next !== undefined) {
      const holder = holders.get(holderKey({ attribute, value: next }));
      if (holder === undefined) actions.push({ kind: 'claim', attribute, value: next });
      else if (holder === me) actions.push({ kind: 'keep', attribute, value: next });
      else throw new UniquenessConflictError(attribute);
    }
    if (previous !== undefined && (next === undefined || uniqueValueOf(attribute, previous) !== uniqueValueOf(attribute, next))) {
      if (holders.get(holderKey({ attribute, value: previous })) === me) actions.push({ kind: 'release', attribute, value: previous });
    }
  }
  return actions;
}

/** Names of the fields that differ between two states (never their values). */
export function changedFields(before: Employee | undefined, after: Employee): string[] {
  const same = (a: unknown, b: unknown) => JSON.stringify(sorted(a ?? null)) === JSON.stringify(sorted(b ?? null));
  return PROFILE_FIELDS.filter((f) => !same(before?.[f], after[f]));
}

const sorted = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sorted(x)])) : v;

function auditEntry(deps: EmployeeDeps, actor: Actor, action: string, before: Employee | undefined, after: Employee): AuditEntry {
  return {
    id: deps.newId(),
    organizationId: after.organizationId,
    occurredAt: after.updatedAt,
    actor: { type: 'API_KEY', keyId: actor.principal.keyId, label: actor.principal.keyLabel },
    action,
    entity: { type: 'employee', id: after.id },
    ...(before ? { before: { active: before.active } } : {}),
    after: { active: after.active },
    changedAttributes: changedFields(before, after),
    requestId: actor.requestId,
  };
}

