/**
 * What the create and change use cases share: the lifecycle members of a new archivable
 * entity (customers, materials, tasks, quality templates, documents), the attributes a create
 * request gave, and the attributes a change changed; audit entries name those, never values.
 */

/** A new entity's lifecycle members: active, version 1, created and updated at `now`. Spread last. */
export const newArchivable = (now: string) => ({ archived: false, archivedAt: null, version: 1, createdAt: now, updatedAt: now });

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
