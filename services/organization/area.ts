import { defineArea } from '../shared/area';
import { capabilitiesSchema, organizationResponseSchema, settingsPatchBody, settingsResponseSchema } from './schemas';

/** The organization of the API key: its capability facts and its settings (docs/areas/organization.md). */
export const organizationArea = defineArea({
  name: 'organization',
  api: 'public',
  description: 'The organization, its settings and capability facts.',
  // The organization item (read consistently; settings updated with their audit entry in one
  // transaction). PutItem: audit entry and idempotency record (lock and completion); GetItem:
  // also the idempotency record of a replay; DeleteItem releases the lock of a failed PATCH.
  // The cursor secret keys the HMAC of the Idempotency-Key's input (shared/http/idempotent.ts).
  permissions: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], cursorSecret: true, restrictedDataKey: false },
  auditEntityTypes: ['organization'],
  schemas: { Organization: organizationResponseSchema, OrganizationSettings: settingsResponseSchema, Capabilities: capabilitiesSchema },
  routes: {
    getOrganization: {
      method: 'GET',
      path: '/organization',
      scopes: ['organization:read'],
      summary: 'Get the organization',
      description: 'The organization of the API key: id, name and the timesheet_corrections capability as read-only facts (entitlement, rollout gate, effective).',
      success: { status: 200, description: 'The organization.', schema: organizationResponseSchema, headers: ['ETag'] },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    getSettings: {
      method: 'GET',
      path: '/settings',
      scopes: ['organization:read'],
      summary: 'Get the organization settings',
      description: 'The organization settings (presentation defaults for clients; the API itself answers in UTC), with the capability facts read-only and a strong ETag for PATCH.',
      success: { status: 200, description: 'The settings.', schema: settingsResponseSchema, headers: ['ETag'] },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    updateSettings: {
      method: 'PATCH',
      path: '/settings',
      scopes: ['organization:write'],
      summary: 'Update the organization settings',
      description: 'Changes any non-empty subset of timeZone, locale and weekStartsOn, atomically with an audit entry. capabilities and updatedAt are read-only (422).',
      body: settingsPatchBody,
      idempotencyKey: 'required',
      ifMatch: 'required',
      success: { status: 200, description: 'The changed settings.', schema: settingsResponseSchema, headers: ['ETag', 'Idempotency-Replayed'] },
      problems: ['RESOURCE_NOT_FOUND'],
    },
  },
});
