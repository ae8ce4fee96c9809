import type { z } from 'zod';

/** An entity's member that a response member copies: the same type, or its read-only array. */
type Copyable<T> = T extends readonly (infer U)[] ? readonly U[] : T;

const namesOf = new WeakMap<z.ZodObject, readonly string[]>();
const memberNames = (schema: z.ZodObject): readonly string[] => {
  let names = namesOf.get(schema);
  if (!names) namesOf.set(schema, (names = Object.keys(schema.shape)));
  return names;
};

/**
 * A response, member by member in the order its schema names them: each member is
 * `computed`'s where given (a derived value, a renamed or reshaped member; `undefined` leaves
 * an optional member out), else the entity's member of the same name. The schema is the allow-list: nothing of the entity that it does
 * not name leaves, and `tsc` checks that the entity has every member copied, with its type.
 *
 * `responseOf(taskResponseSchema, t, { schedule: scheduleOf(t) })`
 */
export function responseOf<S extends z.ZodObject, const C extends Partial<z.output<S>> = Record<never, never>>(
  schema: S,
  entity: { readonly [M in Exclude<keyof z.output<S>, keyof C>]: Copyable<z.output<S>[M]> },
  computed?: C,
): z.output<S> {
  const out: Record<string, unknown> = {};
  const given = (computed ?? {}) as Record<string, unknown>;
  const own = entity as Record<string, unknown>;
  for (const name of memberNames(schema)) {
    if (!(name in given)) out[name] = own[name];
    else if (given[name] !== undefined) out[name] = given[name];
  }
  return out as z.output<S>;
}
