import { CORE_USER_URN, ENTERPRISE_ATTRIBUTES, ENTERPRISE_USER_URN, LIST_RESPONSE_URN, RESOURCE_TYPE_URN, SCHEMA_URN, SERVICE_PROVIDER_CONFIG_URN, USER_ATTRIBUTES, type AttributeDef } from './model';

/**
 * The discovery documents of RFC 7644 §4 (shapes of RFC 7643 §5-7): what a client reads
 * before provisioning. `base` is the absolute SCIM base URL (…/scim/v2).
 */
export const MAX_FILTER_RESULTS = 200;

export function serviceProviderConfig(base: string) {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_URN],
    documentationUri: 'https://www.rfc-editor.org/rfc/rfc7644',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_FILTER_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'Authentication with an API key of the organization (scopes scim:read, scim:write), sent as "Authorization: Bearer <API key>".',
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export const USER_RESOURCE_TYPE_ID = 'User';

export function userResourceType(base: string) {
  return {
    schemas: [RESOURCE_TYPE_URN],
    id: USER_RESOURCE_TYPE_ID,
    name: 'User',
    endpoint: '/Users',
    description: 'User Account',
    schema: CORE_USER_URN,
    schemaExtensions: [{ schema: ENTERPRISE_USER_URN, required: false }],
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${USER_RESOURCE_TYPE_ID}` },
  };
}

const toSchemaAttribute = (d: AttributeDef): Record<string, unknown> => ({
  name: d.name,
  type: d.type,
  multiValued: d.multiValued,
  description: d.description,
  required: d.required,
  ...(d.type === 'string' || d.type === 'reference' ? { caseExact: d.caseExact } : {}),
  ...(d.canonicalValues ? { canonicalValues: d.canonicalValues } : {}),
  ...(d.referenceTypes ? { referenceTypes: d.referenceTypes } : {}),
  ...(d.subAttributes ? { subAttributes: d.subAttributes.map(toSchemaAttribute) } : {}),
  mutability: d.mutability,
  returned: d.returned,
  uniqueness: d.uniqueness,
});

export function schemaDocuments(base: string) {
  return [
    {
      schemas: [SCHEMA_URN],
      id: CORE_USER_URN,
      name: 'User',
      description: 'User Account',
      attributes: USER_ATTRIBUTES.map(toSchemaAttribute),
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${CORE_USER_URN}` },
    },
    {
      schemas: [SCHEMA_URN],
      id: ENTERPRISE_USER_URN,
      name: 'EnterpriseUser',
      description: 'Enterprise User',
      attributes: ENTERPRISE_ATTRIBUTES.map(toSchemaAttribute),
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${ENTERPRISE_USER_URN}` },
    },
  ];
}

/** RFC 7644 §3.4.2 ListResponse of a complete (unpaged) set. */
export const listOf = <T>(resources: readonly T[]) => ({
  schemas: [LIST_RESPONSE_URN],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});
