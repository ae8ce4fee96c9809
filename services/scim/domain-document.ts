import type { EmployeeAddress, EmployeeEmail, EmployeePhoneNumber } from '../employees/public';
import { NOT_IN_USER_NAME, unsafeUserNameDetail } from '../shared/schemas/fields';
import { invalidValue } from './domain-errors';
import { attributesOf, findAttribute, type AttributeDef, type ScimUser, type UserFields } from './model';

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

export interface DocumentContext {
  /** The resource's id (PUT, PATCH); a different `id` in the input is a mutability error. */
  readonly currentId?: string;
}

export type Container = Record<string, AttributeValue>;
export interface Mutable {
  core: Container;
  enterprise: Container;
}

// ---- employee mapping --------------------------------------------------------------------------

/** The document of an employee as it is stored. */
export function documentOf(e: ScimUser): UserDocument {
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
 * The employee fields of a document; `userName` is required (RFC 7643 §4.1.1) and holds no
 * control characters. `userName` and `externalId` are trimmed, as the employees API trims them,
 * before anyone compares them: `" ada@acme.example "` is the user `ada@acme.example` (409 on
 * POST), not a second one. An `externalId` of only spaces clears it, as `""` does. `active`
 * takes `defaultActive` when the document has none.
 */
export function fieldsOf(doc: UserDocument, defaultActive: boolean): UserFields {
  const core = doc.core;
  const userName = typeof core.userName === 'string' ? core.userName.trim() : undefined;
  if (userName === undefined || userName === '') throw invalidValue('userName is required: a non-empty string, unique in the organization.');
  if (NOT_IN_USER_NAME.test(userName)) throw invalidValue(unsafeUserNameDetail(userName));
  const name = (core.name as ComplexValue | undefined) ?? {};
  const manager = doc.enterprise.manager as ComplexValue | undefined;
  return compact({
    userName,
    externalId: typeof core.externalId === 'string' ? core.externalId.trim() || undefined : undefined,
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


/** A complex value's members in the order of its schema, without empty ones (DynamoDB keeps no member order). */
function inSchemaOrder(def: AttributeDef, value: Readonly<Record<string, unknown>>): ComplexValue {
  const out: Record<string, Scalar> = {};
  for (const sub of def.subAttributes ?? []) {
    const v = value[sub.name];
    if (typeof v === 'string' || typeof v === 'boolean') out[sub.name] = v;
  }
  return out;
}

export function setOrDelete(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

export function nonEmpty<T extends Record<string, unknown>>(value: T): T | undefined {
  return Object.keys(value).length > 0 ? value : undefined;
}

export const listOrUndefined = <T>(list: readonly T[]): T[] | undefined => (list.length > 0 ? [...list] : undefined);

export function compact<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}


export const freeze = (doc: Mutable): UserDocument => ({ core: doc.core, enterprise: doc.enterprise });
