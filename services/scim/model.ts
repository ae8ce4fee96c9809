import type { Employee } from '../employees/public';

/**
 * The SCIM user model. Its entity is the organization's employee (keys and items are the
 * employees area's: services/employees/public.ts); this file holds the SCIM attributes this service keeps, as RFC 7643 §7 attribute definitions. One source
 * for the /Schemas documents, for reading bodies and PATCH paths (names are matched
 * case-insensitively) and for the rendered User resource.
 */
export const CORE_USER_URN = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER_URN = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_RESPONSE_URN = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP_URN = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SERVICE_PROVIDER_CONFIG_URN = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
export const RESOURCE_TYPE_URN = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
export const SCHEMA_URN = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export type AttributeType = 'string' | 'boolean' | 'complex' | 'reference';

export interface AttributeDef {
  readonly name: string;
  readonly type: AttributeType;
  readonly multiValued: boolean;
  readonly description: string;
  readonly required: boolean;
  readonly caseExact: boolean;
  readonly mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  readonly returned: 'always' | 'never' | 'default' | 'request';
  readonly uniqueness: 'none' | 'server' | 'global';
  readonly canonicalValues?: readonly string[];
  readonly referenceTypes?: readonly string[];
  readonly subAttributes?: readonly AttributeDef[];
}

const attr = (name: string, description: string, overrides: Partial<AttributeDef> = {}): AttributeDef => ({
  name,
  type: 'string',
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...overrides,
});

const complex = (name: string, description: string, subAttributes: AttributeDef[], multiValued = false): AttributeDef =>
  attr(name, description, { type: 'complex', multiValued, subAttributes });

const typed = (kind: string, canonicalValues: string[]) =>
  attr('type', `A label indicating the ${kind}'s function.`, { canonicalValues });

const primary = (kind: string) =>
  attr('primary', `A Boolean value indicating the 'primary' or preferred ${kind}. The primary attribute value 'true' MUST appear no more than once.`, { type: 'boolean' });

/** At most this many values of a multi-valued attribute (keeps every write within one transaction). */
export const MAX_MULTI_VALUES = 20;
/** At most this many characters in a string value. */
export const MAX_STRING_LENGTH = 1024;

/** Core User attributes we keep (RFC 7643 §4.1, §8.7.1); `id`, `externalId`, `meta` are common attributes (§3.1). */
export const USER_ATTRIBUTES: readonly AttributeDef[] = [
  attr('userName', "Unique identifier for the User, typically used by the user to directly authenticate to the service provider. Each User MUST include a non-empty userName value. This identifier MUST be unique across the service provider's entire set of Users. REQUIRED.", {
    required: true,
    uniqueness: 'server',
  }),
  complex("name", "The components of the user's real name.", [
    attr('formatted', "The full name, including all middle names, titles, and suffixes as appropriate, formatted for display (e.g., 'Ms. Barbara J Jensen, III')."),
    attr('familyName', "The family name of the User, or last name in most Western languages (e.g., 'Jensen' given the full name 'Ms. Barbara J Jensen, III')."),
    attr('givenName', "The given name of the User, or first name in most Western languages (e.g., 'Barbara' given the full name 'Ms. Barbara J Jensen, III')."),
  ]),
  attr('displayName', 'The name of the User, suitable for display to end-users. The name SHOULD be the full name of the User being described, if known.'),
  attr('title', "The user's title, such as \"Vice President.\""),
  attr('active', "A Boolean value indicating the User's administrative status: false ends the user's access to the organization; history is kept.", { type: 'boolean' }),
  complex(
    'emails',
    "Email addresses for the user. The value SHOULD be canonicalized by the service provider, e.g., 'bjensen@example.com' instead of 'bjensen@EXAMPLE.COM'. Canonical type values of 'work', 'home', and 'other'.",
    [attr('value', "Email addresses for the user. The value SHOULD be canonicalized by the service provider, e.g., 'bjensen@example.com' instead of 'bjensen@EXAMPLE.COM'. Canonical type values of 'work', 'home', and 'other'."), typed('email', ['work', 'home', 'other']), primary('mailing address or primary email address')],
    true,
  ),
  complex(
    'phoneNumbers',
    "Phone numbers for the User. The value SHOULD be canonicalized by the service provider according to the format specified in RFC 3966, e.g., 'tel:+1-201-555-0123'. Canonical type values of 'work', 'home', 'mobile', 'fax', 'pager', and 'other'.",
    [attr('value', 'Phone number of the User.'), typed('phone number', ['work', 'home', 'mobile', 'fax', 'pager', 'other']), primary('phone number')],
    true,
  ),
  complex(
    'addresses',
    'A physical mailing address for this User. Canonical type values of \'work\', \'home\', and \'other\'.',
    [
      attr('formatted', 'The full mailing address, formatted for display or use with a mailing label. This attribute MAY contain newlines.'),
      attr('streetAddress', 'The full street address component, which may include house number, street name, P.O. box, and multi-line extended street address information. This attribute MAY contain newlines.'),
      attr('locality', 'The city or locality component.'),
      attr('region', 'The state or region component.'),
      attr('postalCode', 'The zip code or postal code component.'),
      attr('country', 'The country name component.'),
      typed('address', ['work', 'home', 'other']),
      primary('address'),
    ],
    true,
  ),
];

/** Enterprise User attributes we keep (RFC 7643 §4.3, §8.7.1). */
export const ENTERPRISE_ATTRIBUTES: readonly AttributeDef[] = [
  attr('employeeNumber', 'Numeric or alphanumeric identifier assigned to a person, typically based on order of hire or association with an organization.'),
  attr('department', 'Identifies the name of a department.'),
  complex("manager", "The User's manager. A complex type that optionally allows service providers to represent organizational hierarchy by referencing the 'id' attribute of another User.", [
    attr('value', 'The id of the SCIM resource representing the User\'s manager. Kept as given; it need not name a provisioned user.'),
  ]),
];

/** `externalId` (RFC 7643 §3.1): a common attribute, case-exact, unique per organization here. */
export const EXTERNAL_ID: AttributeDef = attr('externalId', 'A String that is an identifier for the resource as defined by the provisioning client. Unique per organization.', {
  caseExact: true,
  uniqueness: 'server',
});

/** The containers a canonical user document has: the core attributes, and the enterprise extension under its URN. */
export type SchemaName = 'core' | 'enterprise';

export const attributesOf = (schema: SchemaName): readonly AttributeDef[] => (schema === 'core' ? [...USER_ATTRIBUTES, EXTERNAL_ID] : ENTERPRISE_ATTRIBUTES);

export const findAttribute = (defs: readonly AttributeDef[] | undefined, name: string): AttributeDef | undefined => {
  const lower = name.toLowerCase();
  return defs?.find((d) => d.name.toLowerCase() === lower);
};

// ---- the SCIM user over the employee -----------------------------------------------------------

/** A SCIM User is the organization's employee record (services/employees/public.ts). */
export type ScimUser = Employee;

/** The SCIM-managed part of an employee. */
export type UserFields = Pick<
  Employee,
  'userName' | 'externalId' | 'displayName' | 'givenName' | 'familyName' | 'formattedName' | 'title' | 'active' | 'emails' | 'phoneNumbers' | 'addresses' | 'employeeNumber' | 'department' | 'managerId'
>;

export const USER_FIELD_NAMES: readonly (keyof UserFields)[] = [
  'userName',
  'externalId',
  'displayName',
  'givenName',
  'familyName',
  'formattedName',
  'title',
  'active',
  'emails',
  'phoneNumbers',
  'addresses',
  'employeeNumber',
  'department',
  'managerId',
];

/** The weak ETag of a user (RFC 7644 §3.14): `W/"<version>"`. */
export const etagOf = (e: Pick<Employee, 'version'>): string => `W/"${e.version}"`;
