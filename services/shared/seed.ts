import type { Db } from './ddb/client';

/**
 * The two demo organizations' core records, named as in `.local/demo.json`; seeded before any
 * area's (services/local/seed.ts).
 */
export interface DemoOrganizations {
  readonly organizationId: string;
  readonly otherOrganizationId: string;
  readonly employees: readonly string[];
  readonly otherOrganizationEmployees: readonly string[];
  readonly locations: readonly string[];
  readonly otherOrganizationLocations: readonly string[];
}

/**
 * What an area's demo seed (`services/<area>/seed.ts`, local runtime only) gets: the table and
 * the demo organizations' core records, seeded before any area's. Areas that set
 * `demoSeed: true` are seeded in registry order, so a seed may rely on the ones listed before it.
 */
export interface DemoSeedContext extends DemoOrganizations {
  readonly db: Db;
  readonly now: Date;
}

/** The export of every `services/<area>/seed.ts`: idempotent (fixed ids, existing records left alone). */
export type DemoSeed = (context: DemoSeedContext) => Promise<void>;
