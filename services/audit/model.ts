import * as z from 'zod';
import type { Actor, SystemActor } from '../shared/domain/actor';
import type { TxItem } from '../shared/ddb/transaction';

/**
 * The organization's audit trail. Every change of business data writes one entry in the
 * same transaction as the change: the unit of work (services/shared/ddb/unit-of-work.ts)
 * adds it, so no use case can leave it out. Content is allowlisted by type: snapshots carry
 * only scalar, safe fields chosen by the writing domain (never coordinates, typed addresses,
 * bank data, secrets or names), and the actor is the API key or a named internal system.
 */
export type AuditScalar = string | number | boolean | null;
export type AuditSnapshot = Readonly<Record<string, AuditScalar>>;

export type AuditActor = { readonly type: 'API_KEY'; readonly keyId: string; readonly label: string } | { readonly type: 'SYSTEM'; readonly label: string };

export interface AuditEntry {
  readonly id: string;
  readonly organizationId: string;
  readonly occurredAt: string;
  /** The API key that made the change, or an internal system. Never a person. */
  readonly actor: AuditActor;
  /** e.g. `time_entry.created`, `scim_user.deactivated` */
  readonly action: string;
  readonly entity: { readonly type: string; readonly id: string };
  /** Further references (e.g. the employee of a time entry). */
  readonly references?: Readonly<Record<string, string>>;
  readonly reason?: string;
  readonly before?: AuditSnapshot;
  readonly after?: AuditSnapshot;
  /** Names of the attributes a change touched, without their values. */
  readonly changedAttributes?: readonly string[];
  readonly overlap?: { readonly override: true; readonly reason: string; readonly overlappedEntryIds: readonly string[] };
  readonly staleExportManifestIds?: readonly string[];
  /** Equals the X-Request-Id of the response. */
  readonly requestId: string;
}

/** What an entry may say beyond who, what and when. */
export type AuditDetails = Pick<AuditEntry, 'references' | 'reason' | 'before' | 'after' | 'changedAttributes' | 'overlap' | 'staleExportManifestIds'>;

export interface AuditInput extends AuditDetails {
  readonly id: string;
  readonly occurredAt: string;
  readonly actor: Actor | SystemActor;
  readonly action: string;
  readonly entity: AuditEntry['entity'];
}

/**
 * THE audit-entry builder: the actor from the request's API key (key id and label) or the
 * internal system, the request ID, and only the details given; empty details are left out.
 */
/**
 * An audit entry of this request at `occurredAt`, with a fresh id from the use case's ports:
 * what every area's use cases write beside their change.
 */
export const auditFor = (ports: { readonly newId: () => string }, actor: AuditInput['actor'], occurredAt: string, input: Omit<AuditInput, 'id' | 'actor' | 'occurredAt'>): AuditEntry =>
  auditEntry({ id: ports.newId(), actor, occurredAt, ...input });

export function auditEntry(input: AuditInput): AuditEntry {
  const { actor, changedAttributes, staleExportManifestIds, ...rest } = input;
  const details = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Omit<AuditInput, 'actor' | 'changedAttributes' | 'staleExportManifestIds'>;
  return {
    ...details,
    organizationId: 'principal' in actor ? actor.principal.organizationId : actor.organizationId,
    actor: 'principal' in actor ? { type: 'API_KEY', keyId: actor.principal.keyId, label: actor.principal.keyLabel } : { type: 'SYSTEM', label: actor.system },
    ...(changedAttributes && changedAttributes.length > 0 ? { changedAttributes: [...changedAttributes] } : {}),
    ...(staleExportManifestIds ? { staleExportManifestIds: [...staleExportManifestIds] } : {}),
    requestId: actor.requestId,
  };
}

export const auditKeys = {
  entry: (organizationId: string, id: string) => ({ PK: `ORG#${organizationId}#AUDIT#${id}`, SK: 'AUDIT' }),
  /** GSI1: the organization's trail, newest first with ScanIndexForward=false. */
  byOrganization: (organizationId: string, occurredAt?: string, id?: string) => ({
    GSI1PK: `ORG#${organizationId}#AUDIT`,
    ...(occurredAt && id ? { GSI1SK: `${occurredAt}#${id}` } : {}),
  }),
  /** GSI2: the trail of one entity. */
  byEntity: (organizationId: string, entityType: string, entityId: string, occurredAt?: string, id?: string) => ({
    GSI2PK: `ORG#${organizationId}#AUDIT#${entityType}#${entityId}`,
    ...(occurredAt && id ? { GSI2SK: `${occurredAt}#${id}` } : {}),
  }),
};

export const AUDIT_LABEL = 'audit';

/** Transaction item: a new audit entry (never overwritten). */
export function auditItem(entry: AuditEntry): TxItem {
  return {
    label: AUDIT_LABEL,
    op: {
      Put: {
        Item: {
          ...auditKeys.entry(entry.organizationId, entry.id),
          ...auditKeys.byOrganization(entry.organizationId, entry.occurredAt, entry.id),
          ...auditKeys.byEntity(entry.organizationId, entry.entity.type, entry.entity.id, entry.occurredAt, entry.id),
          itemType: 'AuditEntry',
          ...entry,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  };
}

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** A stored audit entry, parsed on read: unknown attributes (keys, item type) are dropped. */
export const auditItemSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  occurredAt: z.string(),
  actor: z.union([
    z.object({ type: z.literal('API_KEY'), keyId: z.string(), label: z.string() }),
    z.object({ type: z.literal('SYSTEM'), label: z.string() }),
  ]),
  action: z.string(),
  entity: z.object({ type: z.string(), id: z.string() }),
  references: z.record(z.string(), z.string()).optional(),
  reason: z.string().optional(),
  before: z.record(z.string(), scalar).optional(),
  after: z.record(z.string(), scalar).optional(),
  changedAttributes: z.array(z.string()).optional(),
  overlap: z.object({ override: z.literal(true), reason: z.string(), overlappedEntryIds: z.array(z.string()) }).optional(),
  staleExportManifestIds: z.array(z.string()).optional(),
  requestId: z.string(),
});

export const auditFromItem = (item: Record<string, unknown>): AuditEntry => auditItemSchema.parse(item);
