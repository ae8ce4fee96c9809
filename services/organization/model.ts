import * as z from 'zod';

/**
 * The organization as stored: its type is the output of the item schema, and items are parsed
 * with it on read (keys and `itemType` are dropped, a malformed item fails loudly instead of
 * flowing on as a cast). Keys live here too (docs/areas/organization.md):
 *   organization   PK ORG#<org>   SK ORG        settings, capability facts, version
 *   GSI1 ORGS / <createdAt>#<org>               every organization, for operators
 * The organization's partition `ORG#<org>` also holds other areas' per-organization items
 * under their own sort keys (the timesheet stats, the export fence); they own those keys.
 *
 * The `timesheet_corrections` capability needs both the commercial entitlement and the
 * rollout gate (organization-api.md, Authentication 4). Settings live on the same item: one
 * `version` covers settings and capability facts, so the ETag of GET /settings changes
 * whenever anything it shows changes (an operator's capability change included).
 */

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Presentation defaults for clients; the API itself always speaks RFC 3339 UTC. */
export const organizationSettingsSchema = z
  .object({
    /** IANA time zone name (`Europe/Berlin`). */
    timeZone: z.string(),
    /** BCP 47 language tag, canonical form (`de-DE`). */
    locale: z.string(),
    weekStartsOn: z.enum(WEEKDAYS),
  })
  .readonly();
export type OrganizationSettings = z.output<typeof organizationSettingsSchema>;

/** A capability flag never written reads as off: a capability is never on by accident. */
const capabilityFlags = z.object({ timesheetCorrections: z.boolean().default(false) }).readonly().default({ timesheetCorrections: false });

export const organizationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    /** The commercial entitlement of each capability. */
    entitlements: capabilityFlags,
    /** The rollout gate of each capability. */
    rolloutGates: capabilityFlags,
    /** Absent until first changed: DEFAULT_SETTINGS apply. */
    settings: organizationSettingsSchema.optional(),
    /** Increases with every settings or capability change; absent (0) for an organization never changed. */
    version: z.number().int().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .readonly();
export type Organization = z.output<typeof organizationSchema>;

export const organizationKeys = {
  organization: (id: string) => ({ PK: `ORG#${id}`, SK: 'ORG' }),
  /** GSI1: every organization, oldest first, for operators. */
  all: (createdAt?: string, id?: string) => ({ GSI1PK: 'ORGS', ...(createdAt && id ? { GSI1SK: `${createdAt}#${id}` } : {}) }),
};

export const organizationToItem = (org: Organization): Record<string, unknown> => ({
  ...organizationKeys.organization(org.id),
  ...organizationKeys.all(org.createdAt, org.id),
  itemType: 'Organization',
  ...org,
});

export const organizationFromItem = (item: Record<string, unknown>): Organization => organizationSchema.parse(item);
