/**
 * What the create use cases of archivable entities (customers, materials, tasks, quality
 * templates, documents) share: the lifecycle members of a new entity, and the attributes a
 * create request gave, which its audit entry names.
 */

/** A new entity's lifecycle members: active, version 1, created and updated at `now`. Spread last. */
export const newArchivable = (now: string) => ({ archived: false, archivedAt: null, version: 1, createdAt: now, updatedAt: now });

/** The attributes a create request gave (neither undefined nor null), sorted: the audit's changedAttributes. */
export const givenAttributes = (input: object): string[] =>
  Object.entries(input)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k]) => k)
    .sort();
