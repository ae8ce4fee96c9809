import { invalidValue } from './domain-errors';
import { findAttribute, MAX_MULTI_VALUES, MAX_STRING_LENGTH, type AttributeDef } from './model';
import { isPlainObject, type Scalar } from './domain-document';

/**
 * Reading SCIM values as the attribute definitions say, with the leniency Entra ID and Okta
 * need: `"True"`/`"False"` for booleans, numbers for strings, `null` or `""` to clear, a bare
 * value for a complex attribute's `value`. Pure.
 */

export function coerceScalar(def: AttributeDef, raw: unknown, where: string): Scalar | undefined {
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
export function coerceComplex(def: AttributeDef, raw: unknown, where: string): Map<string, Scalar | undefined> | undefined {
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

export function coerceMulti(def: AttributeDef, raw: unknown, where: string): Record<string, Scalar>[] {
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

/** A value with nothing but its type and primary flag carries no information and is dropped. */
export const isMeaningful = (def: AttributeDef, v: Readonly<Record<string, Scalar>>): boolean => {
  const hasValueMember = def.subAttributes?.some((s) => s.name === 'value');
  return hasValueMember ? v.value !== undefined : Object.keys(v).some((k) => k !== 'type' && k !== 'primary');
};

export function hasAnyValue(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

const describe = (raw: unknown): string => (raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw === 'object' ? 'an object' : JSON.stringify(raw).slice(0, 60));
