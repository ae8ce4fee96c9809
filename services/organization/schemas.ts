import * as z from 'zod';
import { ValidationError } from '../shared/errors';
import { responseOf } from '../shared/schemas/response';
import { settingsOf, timesheetWritesEnabled, type Organization } from './domain';
import { WEEKDAYS } from './model';

/** Request and response shapes of the organization area (docs/areas/organization.md). */

export { WEEKDAYS } from './model';

/** Area/Location style names only: offsets such as `+01:00` are not time zones (no DST rules). */
const TIME_ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** The IANA name as the runtime's time zone database spells it, or undefined if it is none. */
export function canonicalTimeZone(value: string): string | undefined {
  if (value.length > 64 || !TIME_ZONE_NAME.test(value)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The canonical form of a BCP 47 language tag (`de-de` -> `de-DE`), or undefined. */
export function canonicalLocale(value: string): string | undefined {
  if (value.length > 35) return undefined;
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    return undefined;
  }
}

const canonical = (what: string, example: string, normalize: (v: string) => string | undefined) =>
  z
    .string()
    .meta({ examples: [example] })
    .transform((value, ctx) => {
      const result = normalize(value.trim());
      if (result === undefined) {
        ctx.addIssue({ code: 'custom', message: `"${value.slice(0, 40)}" is not ${what} (e.g. ${example}).` });
        return z.NEVER;
      }
      return result;
    });

const timeZone = () => canonical('an IANA time zone name', 'Europe/Berlin', canonicalTimeZone).meta({ description: 'IANA time zone name, e.g. Europe/Berlin.' });
const locale = () => canonical('a BCP 47 language tag', 'de-DE', canonicalLocale).meta({ description: 'BCP 47 language tag, e.g. de-DE; stored in canonical form.' });
const weekday = () => z.enum(WEEKDAYS, { error: `weekStartsOn must be one of ${WEEKDAYS.join(', ')}.` });

/** Members of the settings representation a client can see but never change (422 pointing at them). */
const READ_ONLY_SETTINGS: Readonly<Record<string, string>> = {
  capabilities: 'capabilities are read-only facts: operators change the entitlement and rollout gate, not the API.',
  updatedAt: 'updatedAt is read-only: it is set by every change.',
};

/** The read-only members `body` sends, with what to say about each. */
function readOnlyMembers(body: unknown): [string, string][] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  return Object.entries(READ_ONLY_SETTINGS).filter(([field]) => field in body);
}

export function assertNoReadOnlySettings(body: unknown): void {
  const errors = readOnlyMembers(body).map(([field, detail]) => ({ pointer: `/${field}`, detail }));
  if (errors.length > 0) throw new ValidationError(errors);
}

/** PATCH /settings: any non-empty subset of the settings. */
export const settingsPatchSchema = z
  .object({ timeZone: timeZone().optional(), locale: locale().optional(), weekStartsOn: weekday().optional() })
  .strict()
  .superRefine((body, ctx) => {
    if (body.timeZone === undefined && body.locale === undefined && body.weekStartsOn === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'Nothing to change: send at least one of timeZone, locale or weekStartsOn.' });
    }
  });
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

/**
 * The body of PATCH /settings as the route declares it: the read-only members are named as
 * such (422 at `/capabilities`, `/updatedAt`) before the strict schema would call them
 * unknown. The OpenAPI document shows `settingsPatchSchema` (a preprocess is transparent there).
 */
export const settingsPatchBody = z.preprocess((body, ctx) => {
  for (const [field, detail] of readOnlyMembers(body)) ctx.addIssue({ code: 'custom', path: [field], message: detail, input: body });
  return body;
}, settingsPatchSchema);

const utc = () => z.string().meta({ format: 'date-time', description: 'RFC 3339, UTC' });

export const capabilitiesSchema = z.object({
  timesheetCorrections: z
    .object({
      entitled: z.boolean().meta({ description: 'The commercial entitlement is on.' }),
      rolloutGateOpen: z.boolean().meta({ description: 'The rollout gate is open for this organization.' }),
      enabled: z.boolean().meta({ description: 'entitled AND rolloutGateOpen: timesheet writes are accepted (otherwise 409 FEATURE_NOT_ENABLED).' }),
    })
    .meta({ description: 'The timesheet_corrections capability. Read-only: operators change it.' }),
});

export const organizationResponseSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  capabilities: capabilitiesSchema,
  createdAt: utc(),
  updatedAt: utc(),
});

export const settingsResponseSchema = z.object({
  timeZone: z.string().meta({ description: 'IANA time zone name for presenting times; the API itself answers in UTC.' }),
  locale: z.string().meta({ description: 'BCP 47 language tag.' }),
  weekStartsOn: z.enum(WEEKDAYS),
  capabilities: capabilitiesSchema,
  updatedAt: utc(),
});

function capabilitiesOf(org: Organization): z.infer<typeof capabilitiesSchema> {
  return {
    timesheetCorrections: {
      entitled: org.entitlements.timesheetCorrections,
      rolloutGateOpen: org.rolloutGates.timesheetCorrections,
      enabled: timesheetWritesEnabled(org),
    },
  };
}

export const organizationResponse = (org: Organization): z.infer<typeof organizationResponseSchema> => responseOf(organizationResponseSchema, org, {
  capabilities: capabilitiesOf(org),
});

export const settingsResponse = (org: Organization): z.infer<typeof settingsResponseSchema> => ({
  ...settingsOf(org),
  capabilities: capabilitiesOf(org),
  updatedAt: org.updatedAt,
});
