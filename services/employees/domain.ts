import { auditEntry, type AuditEntry } from '../audit/model';
import type { SealedValue } from '../shared/crypto/restricted';
import type { Actor } from '../shared/domain/actor';
import { ConcurrentChangeError } from '../shared/domain/conflict';
import { assertEtag, versionedEtag } from '../shared/domain/etag';
import { newRecord, revised } from '../shared/domain/lifecycle';
import { NotFoundError, UniquenessConflictError, ValidationError } from '../shared/errors';
import { maskIban } from './domain-iban';
import { planGuardMoves, uniqueValueOf, type Employee, type GuardAction, type StoredBankAccount, type UniqueAttribute, type UniqueValue } from './model';
import type { UseCasePorts } from '../shared/domain/ports';

/**
 * Employees as the public API manages them: the same records SCIM provisions (same guards,
 * same version), plus sensitive fields SCIM never sees, and a bank account beside each
 * employee (domain-bank.ts). No HTTP, no SDK: the store, clock, ids and sealing are ports.
 */

/** One employee change: the state read (absent for a new one), the next state, its guard actions and audit entry. */
export interface EmployeeChange {
  /** The stored state the change was computed from; absent for a new employee. */
  readonly before?: Employee;
  readonly after: Employee;
  readonly guards: readonly GuardAction[];
  readonly audit: AuditEntry;
}

/** One bank-account change. */
export interface BankAccountChange {
  readonly employeeBefore: Employee;
  /** The employee at its next version: the detail shows the masked IBAN, so its ETag moves too. */
  readonly employeeAfter: Employee;
  readonly before?: StoredBankAccount;
  readonly after: StoredBankAccount;
  readonly audit: AuditEntry;
}

/** The employee changed between read and commit (a bank-account PUT or a guard release): the use case reads again. */
export class EmployeeMovedError extends ConcurrentChangeError {
  constructor(options?: ErrorOptions) {
    super('The employee', options);
    this.name = 'EmployeeMovedError';
  }
}

/** The data port (store.ts is the DynamoDB adapter). */
export interface EmployeeStore {
  /** The employee and its bank-account item, consistently, in one read. */
  getWithBankAccount(organizationId: string, id: string): Promise<{ readonly employee?: Employee; readonly bankAccount?: StoredBankAccount }>;
  /** holderKey(value) → id of the employee holding it. */
  guardHolders(organizationId: string, values: readonly UniqueValue[]): Promise<Map<string, string>>;
  /** Stages the change. On commit: EtagMismatchError, the employee moved; UniquenessConflictError, a guard was taken. */
  saveEmployee(change: EmployeeChange): void;
  /** Stages the change. On commit: EtagMismatchError, the account moved; EmployeeMovedError, the employee moved. */
  saveBankAccount(change: BankAccountChange): void;
}

export interface EmployeePorts extends UseCasePorts<EmployeeStore> {
  /** Envelope-encrypts the bank account. */
  readonly seal: (value: unknown) => Promise<SealedValue>;
  /** Opens it again: only the bank-account resource calls this. */
  readonly unseal: (sealed: SealedValue) => Promise<unknown>;
}

/** An employee with what its detail shows beside it. */
export interface EmployeeView {
  readonly employee: Employee;
  readonly maskedIban: string | null;
}

export const employeeEtag = versionedEtag<Pick<Employee, 'id' | 'version'>>('employee');

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

// ---- reads -----------------------------------------------------------------------------------

/** GET /employees/{id}: the employee with its masked IBAN; 404 if it is not of this organization. */
export async function readEmployee(ports: Pick<EmployeePorts, 'store'>, organizationId: string, id: string): Promise<EmployeeView & { readonly bankAccount?: StoredBankAccount }> {
  const { employee, bankAccount } = await ports.store.getWithBankAccount(organizationId, id);
  if (!employee) throw new NotFoundError(`Employee ${id}`);
  // Masked again as read: an account set before the contract's mask (every middle group whole)
  // kept the last four characters; masking a mask changes nothing else.
  return { employee, maskedIban: bankAccount?.maskedIban ? maskIban(bankAccount.maskedIban) : null, ...(bankAccount ? { bankAccount } : {}) };
}

// ---- writes ----------------------------------------------------------------------------------

/**
 * POST /employees. Input: the profile (userName required); output: the new, active employee.
 * 1. Read who holds the userName (case-insensitive) and externalId (case-exact): any holder,
 *    even one whose SCIM resource was deleted (it is still an employee here), is 409.
 * 2. Build the employee at version 1.
 * 3. Stage the change: employee, claimed guards, e-mail lookups, search index items, audit
 *    entry (field names only); the kit commits them with the idempotency record in ONE
 *    transaction. A guard claimed by a concurrent write in the meantime is 409 as well.
 */
export async function createEmployee(ports: EmployeePorts, actor: Actor, input: ProfileInput & { readonly userName: string }): Promise<EmployeeView> {
  const org = actor.principal.organizationId;
  const now = ports.now().toISOString();
  const after = applyProfile({ ...newRecord(ports.newId(), org, now), userName: input.userName, emails: [], active: true }, input);
  const guards = planGuards(after.id, undefined, after, await ports.store.guardHolders(org, uniqueValues(after)));
  ports.store.saveEmployee({ after, guards, audit: employeeAudit(ports, actor, 'employee.created', undefined, after) });
  return { employee: after, maskedIban: null };
}

/**
 * PATCH /employees/{id}: any subset of the profile; `active: true` reactivates.
 * 1. Read the employee (404) and its bank account; If-Match must be its ETag (412).
 * 2. Apply the patch; reactivating an employee whose SCIM resource was deleted is refused
 *    (422): its identity provider no longer manages it, re-provision it over SCIM instead.
 * 3. Plan the guards of old and new userName/externalId (409 if another employee holds one).
 * 4. Stage: employee at version + 1 (only if still at the version read: 412 otherwise),
 *    guards, e-mail lookups, search index items, audit entry.
 */
export async function updateEmployee(ports: EmployeePorts, actor: Actor, id: string, ifMatch: string, input: ProfileInput & { readonly active?: true }): Promise<EmployeeView> {
  const { employee: before, maskedIban } = await readEmployee(ports, actor.principal.organizationId, id);
  assertEtag(ifMatch, employeeEtag(before));
  if (input.active && !before.active && before.scimDeleted) {
    throw new ValidationError([{ pointer: '/active', detail: 'This employee was deprovisioned by its identity provider (SCIM DELETE): re-provision it over SCIM to reactivate it.' }]);
  }
  const now = ports.now().toISOString();
  const after: Employee = revised(applyProfile(before, input), now, input.active ? { active: true } : {});
  const holders = await ports.store.guardHolders(after.organizationId, [...uniqueValues(before), ...uniqueValues(after)]);
  const guards = planGuards(id, before, after, holders);
  const action = input.active && !before.active ? 'employee.reactivated' : 'employee.updated';
  ports.store.saveEmployee({ before, after, guards, audit: employeeAudit(ports, actor, action, before, after) });
  return { employee: after, maskedIban };
}

/**
 * POST /employees/{id}/deactivate: organization access ends (`active: false`); the employee,
 * its work events, time entries, reports, audit history and bank account all stay.
 * 1. Read the employee (404); If-Match must be its ETag (412).
 * 2. Stage: employee at version + 1 with active false (it keeps its userName and externalId),
 *    the audit entry with the reason.
 */
export async function deactivateEmployee(ports: EmployeePorts, actor: Actor, id: string, ifMatch: string, reason: string): Promise<EmployeeView> {
  const { employee: before, maskedIban } = await readEmployee(ports, actor.principal.organizationId, id);
  assertEtag(ifMatch, employeeEtag(before));
  const after: Employee = revised(before, ports.now().toISOString(), { active: false });
  ports.store.saveEmployee({ before, after, guards: [], audit: employeeAudit(ports, actor, 'employee.deactivated', before, after, reason) });
  return { employee: after, maskedIban };
}

// ---- rules -----------------------------------------------------------------------------------

/** The employee with the given profile fields set, and those given as null removed. */
export function applyProfile(e: Employee, input: ProfileInput): Employee {
  const next: { -readonly [K in keyof Employee]: Employee[K] } = { ...e };
  const set = <K extends keyof ProfileInput & keyof Employee>(field: K, value: Employee[K] | null | undefined) => {
    if (value === null) delete next[field];
    else if (value !== undefined) next[field] = value;
  };
  set('userName', input.userName);
  for (const field of ['externalId', 'displayName', 'givenName', 'familyName', 'title', 'department', 'employeeNumber', 'dateOfBirth', 'taxId'] as const) set(field, input[field]);
  if (input.emails) next.emails = input.emails.map((m) => ({ value: m.value, ...(m.type ? { type: m.type } : {}), ...(m.primary !== undefined ? { primary: m.primary } : {}) }));
  const address = input.personalAddress;
  set(
    'personalAddress',
    address && {
      streetAddress: address.streetAddress,
      locality: address.locality,
      country: address.country,
      ...(address.postalCode ? { postalCode: address.postalCode } : {}),
      ...(address.region ? { region: address.region } : {}),
    },
  );
  return next;
}

const uniqueValues = (e: Pick<Employee, 'userName' | 'externalId'>): UniqueValue[] =>
  UNIQUE_ATTRIBUTES.flatMap((attribute) => {
    const value = e[attribute];
    return value === undefined ? [] : [{ attribute, value }];
  });

/**
 * The guard actions that move employee `me` from `before` to `after` (pure): a free value is
 * claimed, a value `me` holds is kept (checked in the transaction), a value `me` gave up is
 * released, and a value anybody else holds is a uniqueness conflict. Unlike SCIM, this API
 * never takes a value over from a retained employee: that employee is still listed here.
 */
export const planGuards = (me: string, before: Pick<Employee, 'userName' | 'externalId'> | undefined, after: Pick<Employee, 'userName' | 'externalId'>, holders: ReadonlyMap<string, string>): GuardAction[] =>
  planGuardMoves(UNIQUE_ATTRIBUTES, me, { before, after }, holders, (holder) => holder, (attribute, value) => {
    // A value this change keeps as it was, which another employee took over after this one's
    // SCIM resource was deleted (docs/scim.md): the change claims nothing, so it does not fail
    // on it. Setting the value anew, or any other employee's value, is a conflict.
    const previous = before?.[attribute];
    if (previous !== undefined && uniqueValueOf(attribute, previous) === uniqueValueOf(attribute, value)) return undefined;
    throw new UniquenessConflictError(attribute);
  });

/** Names of the fields that differ between two states (never their values). */
export function changedFields(before: Employee | undefined, after: Employee): string[] {
  const same = (a: unknown, b: unknown) => JSON.stringify(sorted(a ?? null)) === JSON.stringify(sorted(b ?? null));
  return PROFILE_FIELDS.filter((f) => !same(before?.[f], after[f]));
}

const sorted = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sorted(x)])) : v;

/** The audit entry of an employee change: `active` before and after, the names of the changed fields, never values. */
export function employeeAudit(ports: Pick<EmployeePorts, 'newId'>, actor: Actor, action: string, before: Employee | undefined, after: Employee, reason?: string): AuditEntry {
  return auditEntry({
    id: ports.newId(),
    occurredAt: after.updatedAt,
    actor,
    action,
    entity: { type: 'employee', id: after.id },
    ...(reason !== undefined ? { reason } : {}),
    ...(before ? { before: { active: before.active } } : {}),
    after: { active: after.active },
    changedAttributes: changedFields(before, after),
  });
}
