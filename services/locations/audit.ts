import type { AuditEntry, AuditSnapshot } from '../audit/model';
import type { Actor } from './domain';

/** What a master-data audit entry may say beyond action and entity: names, ids, a reason, stock figures. */
export interface AuditDetails {
  /** Names of the changed attributes, never their values. */
  readonly changedAttributes?: readonly string[];
  readonly references?: Readonly<Record<string, string>>;
  readonly reason?: string;
  readonly after?: AuditSnapshot;
}

/**
 * The allowlisted audit entry of a location, contact, material or stock write: the API key as
 * actor, the request ID of the response, and only what `details` names. Contact values, QR
 * data and addresses are never passed in.
 */
export function masterDataAudit(id: string, actor: Actor, occurredAt: string, action: string, entity: AuditEntry['entity'], details: AuditDetails = {}): AuditEntry {
  return {
    id,
    organizationId: actor.principal.organizationId,
    occurredAt,
    actor: { type: 'API_KEY', keyId: actor.principal.keyId, label: actor.principal.keyLabel },
    action,
    entity,
    ...(details.references ? { references: details.references } : {}),
    ...(details.reason ? { reason: details.reason } : {}),
    ...(details.changedAttributes && details.changedAttributes.length > 0 ? { changedAttributes: [...details.changedAttributes] } : {}),
    ...(details.after ? { after: details.after } : {}),
    requestId: actor.requestId,
  };
}
