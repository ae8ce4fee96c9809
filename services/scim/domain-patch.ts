import { invalidFilter, invalidSyntax, invalidValue, mutability, noTarget } from './domain-errors';
import { coerceComplex, coerceMulti, coerceScalar, hasAnyValue, isMeaningful } from './domain-coerce';
import { freeze, isPlainObject, memberOf, nonEmpty, setOrDelete, type ComplexValue, type Container, type DocumentContext, type Mutable, type Scalar, type UserDocument } from './domain-document';
import { parseAttributePath, type Comparison } from './domain-filter';
import { attributesOf, CORE_USER_URN, ENTERPRISE_USER_URN, findAttribute, MAX_MULTI_VALUES, type AttributeDef, type SchemaName } from './model';

/**
 * POST and PUT bodies and PATCH operations (RFC 7644 §3.3, §3.5.1, §3.5.2) applied to the
 * canonical user document (domain-document.ts), schema-aware: paths resolve against the
 * attribute definitions of model.ts, case-insensitively. Pure: no I/O.
 */
export type PatchOperationName = 'add' | 'replace' | 'remove';

type Target =
  | { readonly kind: 'ignore' }
  | { readonly kind: 'id' }
  | { readonly kind: 'roles' }
  | { readonly kind: 'extension' }
  | { readonly kind: 'attribute'; readonly schema: SchemaName; readonly def: AttributeDef; readonly valueFilter?: readonly Comparison[]; readonly sub?: AttributeDef };

/** Top-level names that are read-only or not kept, and ignored when sent (RFC 7644 §3.5.1 readOnly; Okta's password). */
const IGNORED = new Set(['meta', 'schemas', 'groups', 'password', 'entitlements', 'x509certificates']);


/** A POST or PUT body as a document: every top-level member replaces that attribute of an empty user. */
export function documentFromResource(body: unknown, context: DocumentContext): UserDocument {
  if (!isPlainObject(body)) throw invalidSyntax('The body must be a JSON object: a SCIM User resource.');
  checkSchemas(memberOf(body, 'schemas'));
  const doc: Mutable = { core: {}, enterprise: {} };
  for (const [key, value] of Object.entries(body)) applyAt(doc, 'replace', key, value, context);
  return freeze(doc);
}

/** `schemas`, when sent, must name the core User schema (RFC 7643 §3): a resource of another type is not a User. */
function checkSchemas(schemas: unknown): void {
  if (schemas === undefined) return;
  const urns = Array.isArray(schemas) ? schemas.filter((s): s is string => typeof s === 'string').map((s) => s.toLowerCase()) : [];
  if (!urns.includes(CORE_USER_URN.toLowerCase())) throw invalidValue(`"schemas" must be an array that names ${CORE_USER_URN}.`);
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
