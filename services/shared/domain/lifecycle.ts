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
