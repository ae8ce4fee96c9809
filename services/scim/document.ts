import type { Employee, EmployeeAddress, EmployeeEmail, EmployeePhoneNumber } from '../employees/public';
import { invalidSyntax, invalidValue, invalidFilter, mutability, noTarget } from './errors';
import { parseAttributePath, type Comparison } from './filter';
import { attributesOf, ENTERPRISE_USER_URN, findAttribute, MAX_MULTI_VALUES, MAX_STRING_LENGTH, type AttributeDef, type SchemaName } from './schema';

/**
 * The canonical user document: the attributes we keep, under their schema's names, in two
 * containers (core, enterprise). POST and PUT bodies and PATCH operations are applied to it
 * with the leniency Entra ID and Okta need (decisions.md): attribute names in any case,
 * URN-qualified or dotted keys, `"True"`/`"False"` for booleans, `null` or `""` to clear,
 * unknown attributes ignored, `password` and `groups` ignored, `roles` only when empty,
 * `id` and `meta` read-only. Pure: no I/O.
 */
export type Scalar = string | boolean;
export type ComplexValue = Readonly<Record<string, Scalar>>;
export type AttributeValue = Scalar | ComplexValue | readonly ComplexValue[];

export interface UserDocument {
  readonly core: Readonly<Record<string, AttributeValue>>;
  readonly enterprise: Readonly<Record<string, AttributeValue>>;
}

export type PatchOperationName = 'add' | 'replace' | 'remove';

export interface DocumentContext {
  /** The resource's id (PUT, PATCH); a different `id` in the input is a mutability error. */
  readonly currentId?: string;
}

type Container = Record<string, AttributeValue>;
interface Mutable {
  core: Container;
  enterprise: Container;
}

type Target =
  | { readonly kind: 'ignore' }
  | { readonly kind: 'id' }
  | { readonly kind: 'roles' }
  | { readonly kind: 'extension' }
  | { readonly kind: 'attribute'; readonly schema: SchemaName; readonly def: AttributeDef; readonly valueFilter?: readonly Comparison[]; readonly sub?: AttributeDef };

/** Top-level names that are read-only or not kept, and ignored when sent (RFC 7644 §3.5.1 readOnly; Okta's password). */
const IGNORED = new Set(['meta', 'schemas', 'groups', 'password', 'entitlements', 'x509certificates']);

// ---- building documents --------------------------------------------------------------------

/** A POST or PUT body as a document: every top-level member replaces that attribute of an empty user. */
export function documentFromResource(body: unknown, context: DocumentContext): UserDocument {
  if (!isPlainObject(body)) throw invalidSyntax('The body must be a JSON object: a SCIM User resource.');
  const doc: Mutable = { core: {}, enterprise: {} };
  for (const [key, value] of Object.entries(body)) applyAt(doc, 'replace', key, value, context);
  return freeze(doc);
}

export interface PatchOperation {
  readonly op: PatchOperationName;
  readonly path?: string;
  readonly value?: unknown;
}

const MAX_OPERATIONS = 100;

/** Reads a PatchOp body (RFC 7644 §3.5.2); member names and op values in any case. */
export function parsePatchBody(body: unknown): PatchOperation[] {
  if (!isPlainObject(body)) throw invalidSyntax('The body must be a JSON object: a PatchOp message with "Operations".');
  const operations = memberOf(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw invalidSyntax('A PatchOp message needs "Operations": a non-empty array of { op, path, value }.');
  }
  if (operations.length > MAX_OPERATIONS) throw invalidValue(`A PatchOp message may hold at most ${MAX_OPERATIONS} operations; got ${operations.length}.`);
  return operations.map((raw, i) => {
    if (!isPlainObject(raw)) throw invalidSyntax(`Operations[${i}] must be an object { op, path, value }.`);
    const op = memberOf(raw, 'op');
    const name = typeof op === 'string' ? op.toLowerCase() : undefined;
    if (name !== 'add' && name !== 'replace' && name !== 'remove') {
      throw invalidSyntax(`Operations[${i}].op must be add, replace or remove (any case); got ${JSON.stringify(op ?? null)}.`);
    }
    const path = memberOf(raw, 'path');
    if (path !== undefined && path !== null && typeof path !== 'string') throw invalidSyntax(`Operations[${i}].path must be a string.`);
    const value = memberOf(raw, 'value');
    return { op: name, ...(typeof path === 'string' && path.trim() !== '' ? { path } : {}), ...(value !== undefined ? { value } : {}) };
  });
}

/** Applies PATCH operations, in order, to a copy of `doc`. */
export function applyPatch(doc: UserDocument, operations: readonly PatchOperation[], context: DocumentContext): UserDocument {
  const next: Mutable = { core: structuredClone(doc.core) as Container, enterprise: structuredClone(doc.enterprise) as Container };
  for (const operation of operations) {
    if (operation.path === undefined) {
      if (operation.op === 'remove') throw noTarget('A remove operation needs a "path".');
      if (!isPlainObject(operation.value)) throw invalidValue(`An ${operation.op} operation without "path" needs an object "value" of attributes.`);
      for (const [key, value] of Object.entries(operation.value)) applyAt(next, operation.op, key, value, context);
    } else {
      if (operation.op !== 'remove' && operation.value === undefined) throw invalidValue(`The ${operation.op} operation on "${operation.path}" needs a "value".`);
      applyAt(next, operation.op, operation.path, operation.value, context);
    }
  }
  return freeze(next);
}

function applyAt(doc: Mutable, op: PatchOperationName, path: string, value: unknown, context: DocumentContext): void {
  const target = resolve(path);
  switch (target.kind) {
    case 'ignore':
      return;
    case 'id':
      if (op === 'remove') throw mutability('id is readOnly: it cannot be removed.');
      if (context.currentId !== undefined && value !== null && String(value).toLowerCase() !== context.currentId.toLowerCase()) {
        throw mutability(`id is readOnly: it is ${context.currentId}; a different id cannot be set.`);
      }
      return;
    case 'roles':
      if (op !== 'remove' && hasAnyValue(value)) {
        throw invalidValue('roles are not supported: a directory cannot assign roles in this organization. Send "roles": [] or leave roles out.');
      }
      return;
    case 'extension':
      if (value === null) {
        if (op !== 'add') doc.enterprise = {};
        return;
      }
      if (op === 'remove') {
        doc.enterprise = {};
        return;
      }
      if (!isPlainObject(value)) throw invalidValue('The enterprise extension must be an object of attributes.');
      for (const [key, inner] of Object.entries(value)) applyAt(doc, op, `${ENTERPRISE_USER_URN}:${key}`, inner, context);
      return;
    case 'attribute':
      applyToAttribute(target.schema === 'core' ? doc.core : doc.enterprise, op, target, value);
  }
}

function resolve(path: string): Target {
  const parsed = parseAttributePath(path);
  if (parsed.kind === 'unknownSchema') return { kind: 'ignore' };
  if (parsed.kind === 'extension') return { kind: 'extension' };
  const name = parsed.attribute.toLowerCase();
  let schema: SchemaName = parsed.schema;
  let def: AttributeDef | undefined;
  if (schema === 'core') {
    if (name === 'id') return { kind: 'id' };
    if (name === 'roles') return { kind: 'roles' };
    if (IGNORED.has(name)) return { kind: 'ignore' };
    def = findAttribute(attributesOf('core'), name);
    // Entra's legacy samples name enterprise attributes without their URN (`manager`).
    if (!def && !parsed.qualified && (def = findAttribute(attributesOf('enterprise'), name))) schema = 'enterprise';
  } else {
    def = findAttribute(attributesOf('enterprise'), name);
  }
  if (!def) return { kind: 'ignore' };
  if (parsed.valueFilter && !def.multiValued) throw invalidFilter(`"${path}": a value filter needs a multi-valued attribute; ${def.name} is single-valued.`);
  let sub: AttributeDef | undefined;
  if (parsed.subAttribute !== undefined) {
    if (def.type !== 'complex') return { kind: 'ignore' };
    sub = findAttribute(def.subAttributes, parsed.subAttribute);
    if (!sub) return { kind: 'ignore' };
  }
  return { kind: 'attribute', schema, def, ...(parsed.valueFilter ? { valueFilter: parsed.valueFilter } : {}), ...(sub ? { sub } : {}) };
}

function applyToAttribute(container: Container, op: PatchOperationName, target: Extract<Target, { kind: 'attribute' }>, value: unknown): void {
  const { def, sub, valueFilter } = target;
  if (!def.multiValued && def.type !== 'complex') {
    setOrDelete(container, def.name, op === 'remove' ? undefined : coerceScalar(def, value, def.name));
    return;
  }
  if (!def.multiValued) {
    const current: Record<string, Scalar> = { ...((container[def.name] as ComplexValue | undefined) ?? {}) };
    if (sub) {
      setOrDelete(current, sub.name, op === 'remove' ? undefined : coerceScalar(sub, value, `${def.name}.${sub.name}`));
      setOrDelete(container, def.name, nonEmpty(current));
      return;
    }
    if (op === 'remove') return void delete container[def.name];
    const members = coerceComplex(def, value, def.name);
    if (members === undefined) return void delete container[def.name];
    for (const [k, v] of members) setOrDelete(current, k, v);
    setOrDelete(container, def.name, nonEmpty(current));
    return;
  }
  applyToMultiValued(container, op, def, value, sub, valueFilter);
}

function applyToMultiValued(
  container: Container,
  op: PatchOperationName,
  def: AttributeDef,
  value: unknown,
  sub: AttributeDef | undefined,
  valueFilter: readonly Comparison[] | undefined,
): void {
  let values: Record<string, Scalar>[] = ((container[def.name] as readonly ComplexValue[] | undefined) ?? []).map((v) => ({ ...v }));
  const touched = new Set<Record<string, Scalar>>();
  const matching = valueFilter ? values.filter((v) => matches(def, v, valueFilter)) : values;

  if (!sub && !valueFilter) {
    if (op === 'remove') values = [];
    else {
      const given = coerceMulti(def, value, def.name);
      given.forEach((v) => touched.add(v));
      values = op === 'replace' ? given : [...values, ...given.filter((v) => !values.some((existing) => sameValue(existing, v)))];
    }
  } else if (!sub) {
    if (op === 'remove') values = values.filter((v) => !matching.includes(v));
    else {
      const [given] = coerceMulti(def, value, def.name);
      if (matching.length === 0 && given) {
        const created = { ...filterMembers(def, valueFilter!), ...given };
        values.push(created);
        touched.add(created);
      }
      for (const v of matching) {
        if (given) Object.assign(v, given);
        touched.add(v);
      }
    }
  } else {
    const where = `${def.name}.${sub.name}`;
    const next = op === 'remove' ? undefined : coerceScalar(sub, value, where);
    if (matching.length === 0 && next !== undefined) {
      // Entra sets `emails[type eq "work"].value` on users that have no work address yet.
      const created = { ...(valueFilter ? filterMembers(def, valueFilter) : {}), [sub.name]: next };
      values.push(created);
      touched.add(created);
    }
    for (const v of matching) {
      setOrDelete(v, sub.name, next);
      touched.add(v);
    }
  }
  values = values.filter((v) => isMeaningful(def, v));
  if (values.length > MAX_MULTI_VALUES) throw invalidValue(`${def.name} may hold at most ${MAX_MULTI_VALUES} values; got ${values.length}.`);
  setOrDelete(container, def.name, values.length > 0 ? onePrimary(values, touched) : undefined);
}

// ---- coercion --------------------------------------------------------------------------------

function coerceScalar(def: AttributeDef, raw: unknown, where: string): Scalar | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (def.type === 'boolean') {
    if (typeof raw === 'boolean') return raw;
    if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim())) return raw.trim().toLowerCase() === 'true';
    throw invalidValue(`${where} must be a boolean (true or false); got ${describe(raw)}.`);
  }
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  if (typeof raw !== 'string') throw invalidValue(`${where} must be a string; got ${describe(raw)}.`);
  if (raw.length > MAX_STRING_LENGTH) throw invalidValue(`${where} has ${raw.length} characters; at most ${MAX_STRING_LENGTH} are accepted.`);
  return raw === '' ? undefined : raw;
}

/** The members given for a complex value; a member mapped to undefined is cleared. */
function coerceComplex(def: AttributeDef, raw: unknown, where: string): Map<string, Scalar | undefined> | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (Array.isArray(raw)) return raw.length === 0 ? undefined : coerceComplex(def, raw[0], where);
  if ((typeof raw === 'string' || typeof raw === 'number') && findAttribute(def.subAttributes, 'value')) {
    return new Map([['value', coerceScalar(findAttribute(def.subAttributes, 'value')!, raw, `${where}.value`)]]);
  }
  if (!isPlainObject(raw)) throw invalidValue(`${where} must be an object; got ${describe(raw)}.`);
  const members = new Map<string, Scalar | undefined>();
  for (const [key, value] of Object.entries(raw)) {
    const sub = findAttribute(def.subAttributes, key);
    if (sub) members.set(sub.name, coerceScalar(sub, value, `${where}.${sub.name}`));
  }
  return members;
}

function coerceMulti(def: AttributeDef, raw: unknown, where: string): Record<string, Scalar>[] {
  if (raw === null || raw === undefined) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length > MAX_MULTI_VALUES) throw invalidValue(`${where} may hold at most ${MAX_MULTI_VALUES} values; got ${list.length}.`);
  return list
    .map((item, i) => {
      const out: Record<string, Scalar> = {};
      for (const [k, v] of coerceComplex(def, item, `${where}[${i}]`) ?? []) if (v !== undefined) out[k] = v;
      return out;
    })
    .filter((v) => isMeaningful(def, v));
}

function matches(def: AttributeDef, value: Readonly<Record<string, Scalar>>, filter: readonly Comparison[]): boolean {
  return filter.every((c) => {
    const sub = findAttribute(def.subAttributes, c.path);
    if (!sub) throw invalidFilter(`"${c.path}" is not a sub-attribute of ${def.name}; a value filter compares ${def.subAttributes?.map((s) => s.name).join(', ')}.`);
    const actual = value[sub.name];
    if (actual === undefined) return false;
    if (sub.type === 'boolean') return actual === (c.value.text.toLowerCase() === 'true');
    return sub.caseExact ? actual === c.value.text : String(actual).toLowerCase() === c.value.text.toLowerCase();
  });
}

/** The members a value filter pins (`type eq "work"` gives `{ type: 'work' }`), for a value it creates. */
function filterMembers(def: AttributeDef, filter: readonly Comparison[]): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  for (const c of filter) {
    const sub = findAttribute(def.subAttributes, c.path);
    const v = sub ? coerceScalar(sub, c.value.text, `${def.name}.${sub.name}`) : undefined;
    if (sub && v !== undefined) out[sub.name] = v;
  }
  return out;
}

/** A value with nothing but its type and primary flag carries no information and is dropped. */
const isMeaningful = (def: AttributeDef, v: Readonly<Record<string, Scalar>>): boolean => {
  const hasValueMember = def.subAttributes?.some((s) => s.name === 'value');
  return hasValueMember ? v.value !== undefined : Object.keys(v).some((k) => k !== 'type' && k !== 'primary');
};

const sameValue = (a: Readonly<Record<string, Scalar>>, b: Readonly<Record<string, Scalar>>) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));

const sortKeys = (v: Readonly<Record<string, Scalar>>) => Object.fromEntries(Object.entries(v).sort(([x], [y]) => x.localeCompare(y)));

/**
 * RFC 7643 §2.4: `primary: true` at most once. The value an operation just set wins
 * (RFC 7644 §3.5.2); otherwise the first one.
 */
function onePrimary(values: Record<string, Scalar>[], touched: ReadonlySet<Record<string, Scalar>>): Record<string, Scalar>[] {
  const primaries = values.filter((v) => v.primary === true);
  if (primaries.length <= 1) return values;
  const keep = primaries.find((v) => touched.has(v)) ?? primaries[0];
  for (const v of primaries) if (v !== keep) v.primary = false;
  return values;
}

// ---- employee mapping --------------------------------------------------------------------------

/** The SCIM-managed part of an employee. */
export type UserFields = Pick<
  Employee,
  'userName' | 'externalId' | 'displayName' | 'givenName' | 'familyName' | 'formattedName' | 'title' | 'active' | 'emails' | 'phoneNumbers' | 'addresses' | 'employeeNumber' | 'department' | 'managerId'
>;

export const USER_FIELD_NAMES: readonly (keyof UserFields)[] = [
  'userName',
  'externalId',
  'displayName',
  'givenName',
  'familyName',
  'formattedName',
  'title',
  'active',
  'emails',
  'phoneNumbers',
  'addresses',
  'employeeNumber',
  'department',
  'managerId',
];

/** The document of an employee as it is stored. */
export function documentOf(e: Employee): UserDocument {
  const core: Container = {};
  const name = compact({ formatted: e.formattedName, familyName: e.familyName, givenName: e.givenName });
  setOrDelete(core, 'userName', e.userName);
  setOrDelete(core, 'externalId', e.externalId);
  setOrDelete(core, 'name', nonEmpty(name));
  setOrDelete(core, 'displayName', e.displayName);
  setOrDelete(core, 'title', e.title);
  core.active = e.active;
  for (const [name, values] of [
    ['emails', e.emails],
    ['phoneNumbers', e.phoneNumbers],
    ['addresses', e.addresses],
  ] as const) {
    const def = findAttribute(attributesOf('core'), name)!;
    setOrDelete(core, name, listOrUndefined((values ?? []).map((v) => inSchemaOrder(def, v as unknown as Record<string, unknown>))));
  }
  const enterprise: Container = {};
  setOrDelete(enterprise, 'employeeNumber', e.employeeNumber);
  setOrDelete(enterprise, 'department', e.department);
  setOrDelete(enterprise, 'manager', e.managerId ? { value: e.managerId } : undefined);
  return freeze({ core, enterprise });
}

/**
 * The employee fields of a document; `userName` is required (RFC 7643 §4.1.1). `active`
 * takes `defaultActive` when the document has none.
 */
export function fieldsOf(doc: UserDocument, defaultActive: boolean): UserFields {
  const core = doc.core;
  const userName = core.userName;
  if (typeof userName !== 'string' || userName.trim() === '') throw invalidValue('userName is required: a non-empty string, unique in the organization.');
  const name = (core.name as ComplexValue | undefined) ?? {};
  const manager = doc.enterprise.manager as ComplexValue | undefined;
  return compact({
    userName,
    externalId: core.externalId as string | undefined,
    displayName: core.displayName as string | undefined,
    givenName: name.givenName as string | undefined,
    familyName: name.familyName as string | undefined,
    formattedName: name.formatted as string | undefined,
    title: core.title as string | undefined,
    active: typeof core.active === 'boolean' ? core.active : defaultActive,
    emails: ((core.emails as readonly ComplexValue[] | undefined) ?? []) as unknown as EmployeeEmail[],
    phoneNumbers: listOrUndefined(((core.phoneNumbers as readonly ComplexValue[] | undefined) ?? []) as unknown as EmployeePhoneNumber[]),
    addresses: listOrUndefined(((core.addresses as readonly ComplexValue[] | undefined) ?? []) as unknown as EmployeeAddress[]),
    employeeNumber: doc.enterprise.employeeNumber as string | undefined,
    department: doc.enterprise.department as string | undefined,
    managerId: manager?.value as string | undefined,
  }) as UserFields;
}

// ---- helpers -----------------------------------------------------------------------------------

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A member of an object by case-insensitive name. */
export function memberOf(object: Record<string, unknown>, name: string): unknown {
  const lower = name.toLowerCase();
  const key = Object.keys(object).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : object[key];
}

function hasAnyValue(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/** A complex value's members in the order of its schema, without empty ones (DynamoDB keeps no member order). */
function inSchemaOrder(def: AttributeDef, value: Readonly<Record<string, unknown>>): ComplexValue {
  const out: Record<string, Scalar> = {};
  for (const sub of def.subAttributes ?? []) {
    const v = value[sub.name];
    if (typeof v === 'string' || typeof v === 'boolean') out[sub.name] = v;
  }
  return out;
}

function setOrDelete(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

function nonEmpty<T extends Record<string, unknown>>(value: T): T | undefined {
  return Object.keys(value).length > 0 ? value : undefined;
}

const listOrUndefined = <T>(list: readonly T[]): T[] | undefined => (list.length > 0 ? [...list] : undefined);

function compact<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const describe = (raw: unknown): string => (raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw === 'object' ? 'an object' : JSON.stringify(raw).slice(0, 60));

const freeze = (doc: Mutable): UserDocument => ({ core: doc.core, enterprise: doc.enterprise });
