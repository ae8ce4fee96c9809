import { schemaDocuments, serviceProviderConfig, userResourceType } from '../../services/scim/schemas-discovery';

const BASE = 'https://api.example/v1/organizations/o/scim/v2';

describe('ServiceProviderConfig', () => {
  it('advertises PATCH, filter (200 results) and ETags, and no bulk, password change or sort', () => {
    const config = serviceProviderConfig(BASE);
    expect(config).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
      etag: { supported: true },
      bulk: { supported: false },
      changePassword: { supported: false },
      sort: { supported: false },
      authenticationSchemes: [{ type: 'oauthbearertoken', primary: true }],
      meta: { resourceType: 'ServiceProviderConfig', location: `${BASE}/ServiceProviderConfig` },
    });
  });
});

describe('ResourceTypes', () => {
  it('has the User type only, at /Users, with the enterprise extension', () => {
    expect(userResourceType(BASE)).toMatchObject({
      id: 'User',
      endpoint: '/Users',
      schema: 'urn:ietf:params:scim:schemas:core:2.0:User',
      schemaExtensions: [{ schema: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', required: false }],
    });
  });
});

describe('Schemas', () => {
  const [user, enterprise] = schemaDocuments(BASE);
  const byName = (attrs: { name: string }[], name: string) => attrs.find((a) => a.name === name) as Record<string, unknown>;

  it('describes the core User as "User Account" with exactly the attributes we keep', () => {
    expect(user.id).toBe('urn:ietf:params:scim:schemas:core:2.0:User');
    expect(user.description).toBe('User Account');
    expect(user.attributes.map((a) => a.name)).toEqual(['userName', 'name', 'displayName', 'title', 'active', 'emails', 'phoneNumbers', 'addresses']);
    expect((byName(user.attributes as { name: string }[], 'name').subAttributes as { name: string }[]).map((a) => a.name)).toEqual(['formatted', 'familyName', 'givenName']);
  });

  it('gives userName its uniqueness, mutability, returned and caseExact settings', () => {
    expect(byName(user.attributes as { name: string }[], 'userName')).toMatchObject({
      type: 'string',
      required: true,
      caseExact: false,
      mutability: 'readWrite',
      returned: 'default',
      uniqueness: 'server',
    });
    expect(byName(user.attributes as { name: string }[], 'emails')).toMatchObject({ type: 'complex', multiValued: true, uniqueness: 'none' });
    expect(byName(user.attributes as { name: string }[], 'active')).toMatchObject({ type: 'boolean', mutability: 'readWrite' });
    expect(JSON.stringify(user)).not.toMatch(/"roles"|"groups"|"password"/);
  });

  it('describes the enterprise extension with employeeNumber, department and manager.value', () => {
    expect(enterprise.id).toBe('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User');
    expect(enterprise.attributes.map((a) => a.name)).toEqual(['employeeNumber', 'department', 'manager']);
    expect((byName(enterprise.attributes as { name: string }[], 'manager').subAttributes as { name: string }[]).map((a) => a.name)).toEqual(['value']);
  });
});
