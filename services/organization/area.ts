import { defineArea } from '../shared/area';
import { readRoute, updateRoute } from '../shared/route-shapes';
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
    getOrganization: readRoute({
      path: '/organization',
      scopes: ['organization:read'],
      summary: 'Get the organization',
      description: 'The organization of the API key: id, name and the timesheet_corrections capability as read-only facts (entitlement, rollout gate, effective).',
      schema: organizationResponseSchema,
      returns: 'The organization.',
      problems: ['RESOURCE_NOT_FOUND'],
    }),
    getSettings: readRoute({
      path: '/settings',
      scopes: ['organization:read'],
      summary: 'Get the organization settings',
      description: 'The organization settings (presentation defaults for clients; the API itself answers in UTC), with the capability facts read-only and a strong ETag for PATCH.',
      schema: settingsResponseSchema,
      returns: 'The settings.',
      problems: ['RESOURCE_NOT_FOUND'],
    }),
    updateSettings: updateRoute({
      path: '/settings',
      scopes: ['organization:write'],
      summary: 'Update the organization settings',
      description: 'Changes any non-empty subset of timeZone, locale and weekStartsOn, atomically with an audit entry. capabilities and updatedAt are read-only (422).',
      body: settingsPatchBody,
      idempotencyKey: 'required',
      schema: settingsResponseSchema,
      returns: 'The changed settings.',
      problems: ['RESOURCE_NOT_FOUND'],
    }),
  },
});
