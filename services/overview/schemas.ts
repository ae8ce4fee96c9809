import * as z from 'zod';
import { auditResponseSchema, entityPairRule } from '../audit/public';
import type { Customer } from '../customers/public';
import type { Employee } from '../employees/public';
import type { Contact, LocationRecord } from '../locations/public';
import type { Material } from '../materials/public';
import { queryWords, wordCharacters } from '../shared/ddb/search';
import { cursorParameter, pageSchema, utc } from '../shared/schemas/fields';
import { limitParameter } from '../shared/http/query';
import { uuid } from '../shared/time';

/**
 * Wire shapes of the organization overview: the dashboard's figures, the activity feed (audit
 * entries with their area and a readable summary), and the cross-area search. Nothing here
 * carries bank data; contact values appear only on contact results, which only keys with
 * contacts:read get (domain.ts).
 */

// ---- dashboard

const figure = (description: string) =>
  z
    .object({
      count: z.number().int().min(0),
      capped: z.boolean().meta({ description: 'True when the count stopped at its read bound (1,000 items): the figure is `count` or more.' }),
    })
    .meta({ description });

export const dashboardResponseSchema = z
  .object({
    asOf: utc().meta({ description: 'The instant the figures were counted at (RFC 3339, UTC).' }),
    employeesOnShiftNow: figure('Employees on a PUBLISHED shift that runs at `asOf` (each employee once).'),
    openTimeEntries: figure('Time entries in state OPEN (checked in, not yet checked out).'),
    evidenceNeedingReview: figure('Work events with verification state REVIEW_REQUIRED received since `reviewSince`.'),
    reviewSince: utc().meta({ description: 'The start of the window of `evidenceNeedingReview`: `asOf` minus 7 days.' }),
    staleExports: figure('Published export manifests a later change made stale, not yet replaced.'),
    unresolvedFeedback: figure('Customer feedback in state OPEN or ACKNOWLEDGED.'),
    overdueInvoices: figure('ISSUED invoices whose due date is before the UTC date of `asOf`.'),
  })
  .meta({ id: 'Dashboard' });
export type DashboardResponse = z.infer<typeof dashboardResponseSchema>;

// ---- activity

/** Query of GET /activity: newest first; by area (its audit entity types) and/or one entity. */
export const activityQuery = (areas: readonly [string, ...string[]], entityTypes: readonly [string, ...string[]], typesOf: (area: string) => readonly string[]) =>
  z
    .object({
      area: z.enum(areas, { error: `area must be one of ${areas.join(', ')}.` }).optional(),
      entityType: z.enum(entityTypes, { error: `entityType must be one of ${entityTypes.join(', ')}.` }).optional(),
      entityId: uuid().optional(),
      limit: limitParameter(),
      cursor: cursorParameter(),
    })
    .strict()
    .superRefine((q, ctx) => {
      entityPairRule(q, ctx);
      if (q.area !== undefined && q.entityType !== undefined && !typesOf(q.area).includes(q.entityType)) {
        ctx.addIssue({ code: 'custom', path: ['entityType'], message: `entityType ${q.entityType} is not of the area ${q.area} (${typesOf(q.area).join(', ')}).` });
      }
    });

export const activityItemSchema = auditResponseSchema
  .extend({
    area: z.string().nullable().meta({ description: 'The area whose change this is (the area that declares the entity type).' }),
    summary: z.string().meta({ description: 'A readable line built from the action and the entity type only (never a personal value), e.g. "Time entry corrected (revision 3)".', examples: ['Time entry corrected (revision 3)'] }),
  })
  .meta({ id: 'ActivityItem' });
export const activityListSchema = pageSchema(activityItemSchema).meta({ id: 'ActivityList' });

// ---- search

export const SEARCH_TYPES = ['employee', 'location', 'contact', 'customer', 'material'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

const MAX_PER_TYPE = 50;

export const searchQuery = z
  .object({
    q: z
      .string()
      .max(100, { message: 'q is at most 100 characters.' })
      .refine((v) => queryWords(v).length > 0 && wordCharacters(v) >= 2, { message: 'q needs at least 2 letters or digits.' })
      .meta({ description: 'Word-prefix search, case- and accent-insensitive, at least 2 letters or digits; every word must match.', examples: ['clean'] }),
    types: z
      .string()
      .max(100)
      .transform((v, ctx) => {
        const list = [...new Set(v.split(',').map((t) => t.trim()))];
        const unknown = list.filter((t) => !(SEARCH_TYPES as readonly string[]).includes(t));
        if (unknown.length > 0 || list.length === 0) ctx.addIssue({ code: 'custom', message: `types is a comma-separated list of ${SEARCH_TYPES.join(', ')}.` });
        return list as SearchType[];
      })
      .meta({ description: `Comma-separated: ${SEARCH_TYPES.join(', ')}. Default: every type the key may read.`, examples: ['employee,location'] })
      .optional(),
    limit: z
      .string()
      .regex(/^\d+$/, { message: `limit must be a whole number from 1 to ${MAX_PER_TYPE}.` })
      .transform(Number)
      .pipe(z.number().int().min(1, { message: `limit must be from 1 to ${MAX_PER_TYPE}.` }).max(MAX_PER_TYPE, { message: `limit must be from 1 to ${MAX_PER_TYPE}.` }))
      .meta({ description: `Results per type, 1 to ${MAX_PER_TYPE}; default 10.` })
      .optional(),
    cursor: cursorParameter(),
  })
  .strict();

const hitBase = { id: z.uuid(), label: z.string().meta({ description: 'What to show for the result: the name.' }) };

export const searchResultSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('employee'), ...hitBase, active: z.boolean() }),
    z.object({ type: z.literal('location'), ...hitBase, address: z.string().nullable() }),
    z.object({
      type: z.literal('contact'),
      ...hitBase,
      role: z.string().nullable(),
      email: z.string().nullable().meta({ description: 'Contact results reach only keys with contacts:read.' }),
      phone: z.string().nullable(),
    }),
    z.object({ type: z.literal('customer'), ...hitBase, customerNumber: z.string() }),
    z.object({ type: z.literal('material'), ...hitBase, article: z.string().nullable(), supplier: z.string().nullable() }),
  ])
  .meta({ id: 'SearchResult', description: 'One match, by type. Never bank data; contact values only on contact results, which need contacts:read.' });
export type SearchResult = z.infer<typeof searchResultSchema>;

export const searchResponseSchema = z
  .object({
    items: z.array(searchResultSchema).meta({ description: 'Up to `limit` results of each searched type, grouped by type in the order of `searchedTypes`.' }),
    searchedTypes: z.array(z.enum(SEARCH_TYPES)).meta({ description: 'The types searched: those asked for (default all) that the key may read.' }),
    nextCursor: z.string().nullable().meta({ description: 'Opaque; continues every type that has more results. null when none has.' }),
  })
  .meta({ id: 'SearchResults' });

// ---- response mappers: each lists every member it returns (allowlist)

/** An employee's name as the employee list shows it; the user name when none is set. */
export const employeeLabel = (e: Pick<Employee, 'displayName' | 'formattedName' | 'givenName' | 'familyName' | 'userName'>): string =>
  e.displayName ?? e.formattedName ?? ([e.givenName, e.familyName].filter(Boolean).join(' ') || e.userName);

export const employeeResult = (e: Employee): SearchResult => ({ type: 'employee', id: e.id, label: employeeLabel(e), active: e.active });
export const locationResult = (l: LocationRecord): SearchResult => ({ type: 'location', id: l.id, label: l.name, address: l.address });
export const contactResult = (c: Contact): SearchResult => ({ type: 'contact', id: c.id, label: c.name, role: c.role, email: c.email, phone: c.phone });
export const customerResult = (c: Customer): SearchResult => ({ type: 'customer', id: c.id, label: c.name, customerNumber: c.customerNumber });
export const materialResult = (m: Material): SearchResult => ({ type: 'material', id: m.id, label: m.name, article: m.article, supplier: m.supplier });
