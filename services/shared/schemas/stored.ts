import * as z from 'zod';

/**
 * Members of stored item schemas (model.ts) that many entities share with the same meaning:
 * the optimistic-concurrency version and the timestamps, and the archive state of entities
 * that are archived instead of deleted. Spread them last into an item schema's object.
 */

/** `version` (the ETag, raised by every write), `createdAt`, `updatedAt`. */
export const versionedFields = {
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
};

/** `archived`, `archivedAt` (null while active), then the versionedFields. */
export const archivableFields = {
  archived: z.boolean(),
  archivedAt: z.string().nullable().default(null),
  ...versionedFields,
};
