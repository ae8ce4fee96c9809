import type { Db } from './ddb/client';

/**
 * What an area's demo seed (`services/<area>/seed.ts`, local runtime only) gets: the table and
 * the demo organizations' core records, seeded before any area's. Areas that set
 * `demoSeed: true` are seeded in registry order, so a seed may rely on the ones listed before it.
 */
export interface DemoSeedContext {
  readonly db: Db;
  readonly now: Date;
  readonly organizationId: string;
  readonly otherOrganizationId: string;
  readonly employees: readonly string[];
  readonly locations: readonly string[];
  readonly otherEmployees: readonly string[];
  readonly otherLocations: readonly string[];
}

/** The export of every `services/<area>/seed.ts`: idempotent (fixed ids, existing records left alone). */
export type DemoSeed = (context: DemoSeedContext) => Promise<void>;
