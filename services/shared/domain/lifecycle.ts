/**
 * What the create and change use cases share: the identity, first version and nullable members
 * of a new record, the attributes a create request gave, and the attributes a change changed;
 * audit entries name those, never values.
 */

/**
 * A new record's identity and first version: `id` in `organizationId`, version 1, created and
 * updated at `now`. Spread first; every versioned record a create use case builds starts here.
 */
export const newRecord = (id: string, organizationId: string, now: string) => ({ id, organizationId, version: 1, createdAt: now, updatedAt: now });

/** A new archivable record (customers, materials, tasks, quality templates, documents, locations): `newRecord`, active. */
export const newArchivable = (id: string, organizationId: string, now: string) => ({ ...newRecord(id, organizationId, now), archived: false, archivedAt: null });

/**
 * The optional `fields` of a create input, each as given or `null` when left out, so a new
 * record has every nullable member present.
 */
export function orNull<T extends object, K extends keyof T & string>(input: T, fields: readonly K[]): { [P in K]-?: Exclude<T[P], undefined> | null } {
  return Object.fromEntries(fields.map((f) => [f, input[f] ?? null])) as { [P in K]-?: Exclude<T[P], undefined> | null };
}

/** The attributes a create request gave (neither undefined nor null), sorted: the audit's changedAttributes. */
export const givenAttributes = (input: object): string[] =>
  Object.entries(input)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k]) => k)
    .sort();

/** The names among `names` whose values differ (by their JSON) between `before` and `after`, in the order of `names`. */
export function changedAttributes<T extends object, K extends keyof T & string>(before: T, after: T, names: readonly K[]): K[] {
  return names.filter((n) => JSON.stringify(before[n]) !== JSON.stringify(after[n]));
}

/**
 * The next version of a record: `changes` applied over `current`, `version` one higher than
 * the version read and `updatedAt` now. Every change of a versioned record goes through here,
 * so none can keep its old version (its ETag) or forget when it changed.
 */
export const revised = <T extends { readonly version: number; readonly updatedAt: string }>(current: T, now: string, changes: Partial<T> = {}): T => ({
  ...current,
  ...changes,
  version: current.version + 1,
  updatedAt: now,
});

/**
 * `current` with what a partial change (PATCH) gives for `fields`: a field the patch leaves
 * out keeps its value, `null` clears it, any other value replaces it.
 */
export function patched<T extends object, K extends keyof T & string>(current: T, patch: { readonly [P in K]?: T[P] | undefined }, fields: readonly K[]): T {
  const given = fields.filter((f) => patch[f] !== undefined).map((f) => [f, patch[f]]);
  return { ...current, ...Object.fromEntries(given) };
}

/** The archive members after a change to `archived`: archivedAt set when archived now, cleared when restored, kept otherwise. */
export function archiveState(current: { readonly archived: boolean; readonly archivedAt: string | null }, archived: boolean, now: string): { archived: boolean; archivedAt: string | null } {
  if (archived === current.archived) return { archived, archivedAt: current.archivedAt };
  return { archived, archivedAt: archived ? now : null };
}
