import { auditEntry as buildAuditEntry, type AuditEntry } from '../audit/model';
import { holderKey, planGuardMoves, type Employee, type GuardAction, type UniqueAttribute, type UniqueValue } from '../employees/public';
import type { Actor } from '../shared/domain/actor';
import { revised } from '../shared/domain/lifecycle';
import { EtagMismatchError, NotFoundError, UniquenessConflictError } from '../shared/errors';
import type { UserClause } from './domain-filter';
import { USER_FIELD_NAMES, type UserFields } from './model';
import type { UseCasePorts } from '../shared/domain/ports';

/**
 * SCIM provisioning rules. A SCIM user IS the organization's employee record: creating one
 * creates the employee that time entries and work events refer to. userName (case-insensitive)
 * and externalId (case-exact) are unique per organization through guard items committed in the
 * same transaction as the employee and its audit entry. DELETE retires the SCIM resource but
 * keeps the employee (and its guards): a later create with the same externalId or userName
 * re-links it. No HTTP, no SDK, no retries: the store is a port that stages each change in
 * the request's unit of work; the kit commits it (with the audit entry and the idempotency
 * record) and runs the use case again from its reads when something read moved meanwhile.
 */

/** One SCIM user change: an employee change (employees/public.ts builds its items). */
export interface UserWrite {
  /** The stored state the change was computed from; absent for a new employee. */
  readonly before?: Employee;
  readonly after: Employee;
  readonly guards: readonly GuardAction[];
  readonly audit: AuditEntry;
}

/** The data port of SCIM users (services/scim/store.ts is the DynamoDB adapter). */
export interface UserStore {
  getUser(organizationId: string, id: string): Promise<Employee | undefined>;
  /** In the order asked; missing ids left out. */
  getUsers(organizationId: string, ids: readonly string[]): Promise<Employee[]>;
  /** holderKey(value) → id of the employee holding it. */
  guardHolders(organizationId: string, values: readonly UniqueValue[]): Promise<Map<string, string>>;
  idsByEmail(organizationId: string, email: string): Promise<string[]>;
  idsByDisplayName(organizationId: string, displayName: string): Promise<string[]>;
  /** Employees whose SCIM resource exists, in creation order. */
  visibleIds(organizationId: string): Promise<string[]>;
  /**
   * Stages the change in the unit of work: committed with its audit entry in one transaction;
   * a condition that fails because something read moved is a ConcurrentChangeError.
   */
  saveUser(write: UserWrite): void;
}

export type ScimPorts = UseCasePorts<UserStore>;

export type { Actor };

export interface WriteResult {
  readonly user: Employee;
  /** The create re-linked a retained employee (same id, history continues). */
  readonly relinked?: boolean;
  /** What the write did, for the provisioning figures: no change commits nothing. */
  readonly outcome: WriteOutcome;
}

export type WriteOutcome = 'created' | 'relinked' | 'updated' | 'deactivated' | 'reactivated' | 'unchanged';

const UNIQUE_ATTRIBUTES: readonly UniqueAttribute[] = ['externalId', 'userName'];

// ---- reads -----------------------------------------------------------------------------------

/** GET /Users/{id}: the user, or 404 when it does not exist or its SCIM resource was deleted. */
export async function getUser(deps: ScimPorts, organizationId: string, id: string): Promise<Employee> {
  const user = await deps.store.getUser(organizationId, id);
  if (!user || user.scimDeleted) throw new NotFoundError(`User ${id}`);
  return user;
}

export interface ListQuery {
  /** Clauses that must all hold; empty for every user. */
  readonly filter: readonly UserClause[];
  /** 1-based. */
  readonly startIndex: number;
  readonly count: number;
}

export interface ListPage {
  readonly totalResults: number;
  readonly users: readonly Employee[];
}

/**
 * GET /Users: one page of the users that match, in creation order (stable across pages).
 * 1. Without a filter: the ids of every visible user (one Query), then the page's records.
 * 2. With a filter: the candidates of the most selective clause through its lookup (id,
 *    externalId or userName guard, e-mail lookup, displayName index), every clause checked
 *    on the records, ordered, then the page cut out.
 */
export async function listUsers(deps: ScimPorts, organizationId: string, query: ListQuery): Promise<ListPage> {
  const from = query.startIndex - 1;
  if (query.filter.length === 0) {
    const ids = await deps.store.visibleIds(organizationId);
    const pageIds = ids.slice(from, from + query.count);
    const users = pageIds.length > 0 ? await deps.store.getUsers(organizationId, pageIds) : [];
    return { totalResults: ids.length, users: users.filter((u) => !u.scimDeleted) };
  }
  const candidates = await candidatesOf(deps, organizationId, query.filter);
  const matching = candidates.filter((u) => !u.scimDeleted && query.filter.every((c) => clauseHolds(c, u))).sort(byCreation);
  return { totalResults: matching.length, users: matching.slice(from, from + query.count) };
}

const DRIVER_ORDER: readonly UserClause['attribute'][] = ['id', 'externalId', 'userName', 'emails.value', 'displayName'];

async function candidatesOf(deps: ScimPorts, org: string, filter: readonly UserClause[]): Promise<Employee[]> {
  const driver = [...filter].sort((a, b) => DRIVER_ORDER.indexOf(a.attribute) - DRIVER_ORDER.indexOf(b.attribute))[0];
  let ids: string[];
  switch (driver.attribute) {
    case 'id':
      ids = [driver.value.toLowerCase()];
      break;
    case 'externalId':
    case 'userName': {
      const value = { attribute: driver.attribute, value: driver.value };
      const holder = (await deps.store.guardHolders(org, [value])).get(holderKey(value));
      ids = holder ? [holder] : [];
      break;
    }
    case 'emails.value':
      ids = await deps.store.idsByEmail(org, driver.value);
      break;
    case 'displayName':
      ids = await deps.store.idsByDisplayName(org, driver.value);
      break;
  }
  return ids.length > 0 ? deps.store.getUsers(org, [...new Set(ids)]) : [];
}

/** Whether a filter clause holds for a user (case rules of RFC 7643: only externalId and id are case-exact). */
export function clauseHolds(clause: UserClause, u: Employee): boolean {
  const same = (a: string | undefined, b: string) => a !== undefined && a.toLowerCase() === b.toLowerCase();
  switch (clause.attribute) {
    case 'id':
      return u.id === clause.value.toLowerCase();
    case 'externalId':
      return u.externalId === clause.value;
    case 'userName':
      return same(u.userName, clause.value);
    case 'displayName':
      return same(u.displayName, clause.value);
    case 'emails.value':
      return u.emails.some((e) => same(e.value, clause.value) && (clause.emailType === undefined || same(e.type, clause.emailType)));
  }
}

const byCreation = (a: Employee, b: Employee) => (a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt.localeCompare(b.createdAt));

// ---- writes ----------------------------------------------------------------------------------

/**
 * POST /Users: creates the employee, or re-links a retained one.
 * Input: the user's fields; output: the committed employee.
 * 1. Read who holds the externalId and userName (guard items) and those holders.
 * 2. A holder whose SCIM resource exists: 409 uniqueness for that attribute.
 * 3. A holder whose SCIM resource was deleted is the retained employee (externalId first,
 *    then userName): the same employee comes back (same id, history continues).
 * 4. Commit ONE transaction: employee, guards (claimed, kept, taken over from a retired
 *    holder, released), e-mail lookups, audit entry, the caller's idempotency record.
 * 5. If something read in 1 changed meanwhile (a concurrent create won a guard), the kit
 *    runs it again from 1: the concurrent winner now answers 2.
 */
export async function createUser(deps: ScimPorts, actor: Actor, fields: UserFields): Promise<WriteResult> {
  const org = actor.principal.organizationId;
  {
    const holders = await readHolders(deps, org, valuesOf(fields));
    const holderOf = (attribute: UniqueAttribute) => {
      const value = fields[attribute];
      return value === undefined ? undefined : holders.get(holderKey({ attribute, value }));
    };
    for (const attribute of UNIQUE_ATTRIBUTES) {
      const holder = holderOf(attribute)?.employee;
      if (holder && !holder.scimDeleted) throw new UniquenessConflictError(attribute);
    }
    const retained = holderOf('externalId')?.employee ?? holderOf('userName')?.employee;
    const now = deps.now().toISOString();
    const after: Employee = retained
      ? nextState(retained, fields, now)
      : { id: deps.newId(), organizationId: org, ...fields, createdAt: now, updatedAt: now, version: 1 };
    if (retained) await addHolders(deps, org, holders, valuesOf(retained));
    const guards = planGuards(after.id, retained, after, holders);
    const action = retained ? 'scim_user.relinked' : 'scim_user.created';
    deps.store.saveUser({ ...(retained ? { before: retained } : {}), after, guards, audit: auditEntry(deps, actor, action, retained, after) });
    return { user: after, outcome: retained ? 'relinked' : 'created', ...(retained ? { relinked: true } : {}) };
  }
}

/**
 * PUT or PATCH /Users/{id}: `change` computes the new fields from the stored employee.
 * 1. Read the employee; 404 if it does not exist or its SCIM resource was deleted; 412 if
 *    If-Match (optional) names another version.
 * 2. Compute the next state; no change at all commits nothing and answers the current state.
 * 3. Read the guards of the old and new externalId/userName; 409 uniqueness if another
 *    user's SCIM resource holds a new value.
 * 4. Commit ONE transaction: employee (only if still at the version read), guards moved in
 *    the same step, e-mail lookups, audit entry.
 * 5. If anything read changed meanwhile, the kit runs it again from 1 (bounded, jittered):
 *    a burst of PATCHes without If-Match to one user all succeed, one after the other.
 */
export async function updateUser(deps: ScimPorts, actor: Actor, id: string, ifMatch: string | undefined, change: (before: Employee) => UserFields): Promise<WriteResult> {
  const org = actor.principal.organizationId;
  {
    const before = await getUser(deps, org, id);
    if (!ifMatchHolds(ifMatch, before)) throw new EtagMismatchError();
    const fields = change(before);
    const now = deps.now().toISOString();
    const after = nextState(before, fields, now);
    if (changedAttributes(before, after).length === 0) return { user: before, outcome: 'unchanged' };
    const holders = await readHolders(deps, org, [...valuesOf(before), ...valuesOf(after)]);
    const guards = planGuards(id, before, after, holders);
    const outcome = before.active === after.active ? 'updated' : after.active ? 'reactivated' : 'deactivated';
    deps.store.saveUser({ before, after, guards, audit: auditEntry(deps, actor, `scim_user.${outcome}`, before, after) });
    return { user: after, outcome };
  }
}

/**
 * DELETE /Users/{id} (RFC 7644 §3.6): the SCIM resource goes (404 afterwards, lists omit it)
 * and organization access ends (active false); the employee, its work events, time entries,
 * reports and audit stay, and it keeps its guards so that a later create with the same
 * externalId or userName re-links it.
 */
export async function deleteUser(deps: ScimPorts, actor: Actor, id: string, ifMatch: string | undefined): Promise<void> {
  const org = actor.principal.organizationId;
  const before = await getUser(deps, org, id);
  if (!ifMatchHolds(ifMatch, before)) throw new EtagMismatchError();
  const after: Employee = revised(before, deps.now().toISOString(), { active: false, scimDeleted: true });
  deps.store.saveUser({ before, after, guards: [], audit: auditEntry(deps, actor, 'scim_user.deleted', before, after) });
}

/**
 * Whether an If-Match header admits the current version: absent, `*`, or any listed tag
 * whose opaque value is the version (weak comparison, RFC 9110 §13.1.1).
 */
export function ifMatchHolds(header: string | undefined, e: Pick<Employee, 'version'>): boolean {
  if (header === undefined || header.trim() === '') return true;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//i, '').replace(/^"(.*)"$/, '$1') === String(e.version);
  });
}

/** The next state of a stored employee with new SCIM fields; anything SCIM does not manage is kept. */
function nextState(before: Employee, fields: UserFields, now: string): Employee {
  const managed = new Set<string>([...USER_FIELD_NAMES, 'scimDeleted']);
  const kept = Object.fromEntries(Object.entries(before).filter(([key]) => !managed.has(key)));
  return revised({ ...kept, ...fields } as Employee, now);
}

const valuesOf = (e: Pick<Employee, 'userName' | 'externalId'>): UniqueValue[] =>
  UNIQUE_ATTRIBUTES.flatMap((attribute) => (e[attribute] === undefined ? [] : [{ attribute, value: e[attribute]! }]));

/** The holder of a guard: its id, and its record when it still exists. */
export interface Holder {
  readonly id: string;
  readonly employee?: Employee;
}

async function readHolders(deps: ScimPorts, org: string, values: readonly UniqueValue[]): Promise<Map<string, Holder>> {
  const holders = new Map<string, Holder>();
  await addHolders(deps, org, holders, values);
  return holders;
}

async function addHolders(deps: ScimPorts, org: string, holders: Map<string, Holder>, values: readonly UniqueValue[]): Promise<void> {
  const missing = values.filter((v) => !holders.has(holderKey(v)));
  if (missing.length === 0) return;
  const ids = await deps.store.guardHolders(org, missing);
  const employees = new Map((await deps.store.getUsers(org, [...new Set(ids.values())])).map((e) => [e.id, e]));
  for (const [key, id] of ids) holders.set(key, { id, ...(employees.has(id) ? { employee: employees.get(id) } : {}) });
}

/**
 * The guard actions that move `me` from `before` to `after` (pure). A value held by another
 * user whose SCIM resource exists is a uniqueness conflict; one held by a retired user (SCIM
 * resource deleted) is taken over; a value `me` no longer has is released if `me` holds it.
 */
export const planGuards = (
  me: string,
  before: Pick<Employee, 'userName' | 'externalId'> | undefined,
  after: Pick<Employee, 'userName' | 'externalId'>,
  holders: ReadonlyMap<string, Holder>,
): GuardAction[] =>
  planGuardMoves(UNIQUE_ATTRIBUTES, me, { before, after }, holders, (holder) => holder.id, (attribute, value, holder) => {
    if (holder.employee && !holder.employee.scimDeleted) throw new UniquenessConflictError(attribute);
    return { kind: 'takeOver', attribute, value, from: { id: holder.id, ...(holder.employee ? { version: holder.employee.version } : {}) } };
  });

// ---- audit -----------------------------------------------------------------------------------

const AUDIT_NAMES: Readonly<Record<keyof UserFields, string>> = {
  userName: 'userName',
  externalId: 'externalId',
  displayName: 'displayName',
  givenName: 'name.givenName',
  familyName: 'name.familyName',
  formattedName: 'name.formatted',
  title: 'title',
  active: 'active',
  emails: 'emails',
  phoneNumbers: 'phoneNumbers',
  addresses: 'addresses',
  employeeNumber: 'employeeNumber',
  department: 'department',
  managerId: 'manager',
};

/** SCIM names of the attributes that differ (names only: the audit never holds their values). */
export function changedAttributes(before: Employee | undefined, after: Employee): string[] {
  return USER_FIELD_NAMES.filter((f) => canonical(before?.[f]) !== canonical(after[f])).map((f) => AUDIT_NAMES[f]);
}

/** JSON with object members sorted (DynamoDB returns map members in no particular order); empty lists as absent. */
function canonical(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sorted(x)])) : v;
  return JSON.stringify(Array.isArray(value) && value.length === 0 ? null : sorted(value ?? null));
}

function auditEntry(deps: ScimPorts, actor: Actor, action: string, before: Employee | undefined, after: Employee): AuditEntry {
  const snapshot = (e: Employee) => ({ active: e.active, scimDeleted: e.scimDeleted === true });
  return buildAuditEntry({
    id: deps.newId(),
    actor,
    occurredAt: after.updatedAt,
    action,
    entity: { type: 'employee', id: after.id },
    ...(before ? { before: snapshot(before) } : {}),
    after: snapshot(after),
    changedAttributes: changedAttributes(before, after),
  });
}
