import type { AreaDocs } from '../openapi/types';
import { capabilitiesSchema, organizationResponseSchema, settingsPatchSchema, settingsResponseSchema } from './schemas';

/** OpenAPI descriptions of the organization operations (services/openapi/document.ts). */
export const organizationDocs: AreaDocs = {
  schemas: { Organization: organizationResponseSchema, OrganizationSettings: settingsResponseSchema, Capabilities: capabilitiesSchema },
  operations: {
    getOrganization: {
      description: 'The organization of the API key: id, name and the timesheet_corrections capability as read-only facts (entitlement, rollout gate, effective).',
      success: { status: 200, description: 'The organization.', ref: 'Organization', headers: ['ETag'] },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    getSettings: {
      description: 'The organization settings (presentation defaults for clients; the API itself answers in UTC), with the capability facts read-only and a strong ETag for PATCH.',
      success: { status: 200, description: 'The settings.', ref: 'OrganizationSettings', headers: ['ETag'] },
      problems: ['RESOURCE_NOT_FOUND'],
    },
    updateSettings: {
      description: 'Changes any non-empty subset of timeZone, locale and weekStartsOn, atomically with an audit entry. capabilities and updatedAt are read-only (422).',
      body: settingsPatchSchema,
      headers: { 'Idempotency-Key': 'required', 'If-Match': 'required' },
      success: { status: 200, description: 'The changed settings.', ref: 'OrganizationSettings', headers: ['ETag', 'Idempotency-Replayed'] },
      problems: [
        'IDEMPOTENCY_KEY_REQUIRED',
        'IDEMPOTENCY_KEY_REUSED',
        'IDEMPOTENCY_REQUEST_IN_PROGRESS',
        'ETAG_REQUIRED',
        'ETAG_MISMATCH',
        'VALIDATION_ERROR',
        'MALFORMED_JSON',
        'UNSUPPORTED_MEDIA_TYPE',
        'PAYLOAD_TOO_LARGE',
        'RESOURCE_NOT_FOUND',
        'TRANSACTION_CONFLICT',
      ],
    },
  },
};
