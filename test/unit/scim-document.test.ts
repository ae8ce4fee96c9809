import type { Employee } from '../../services/employees/store';
import { documentOf, fieldsOf, type UserDocument } from '../../services/scim/domain-document';
import { applyPatch, documentFromResource, parsePatchBody } from '../../services/scim/domain-patch';
import { AppError } from '../../services/shared/errors';
import { ScimError } from '../../services/scim/domain-errors';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const ID = '1b2c3d4e-5f60-4718-89a0-b1c2d3e4f501';

const employee = (overrides: Partial<Employee> = {}): Employee => ({
  id: ID,
  organizationId: 'org',
  userName: 'bjensen@example.com',
  givenName: 'Barbara',
  familyName: 'Jensen',
  displayName: 'Babs Jensen',
  emails: [
    { value: 'bjensen@example.com', type: 'work', primary: true },
    { value: 'babs@home.example', type: 'home' },
  ],
  externalId: 'bjensen',
  active: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  version: 1,
  ...overrides,
});

const patch = (doc: UserDocument, Operations: unknown[]) => applyPatch(doc, parsePatchBody({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations }), { currentId: ID });

const patched = (e: Employee, Operations: unknown[]) => fieldsOf(patch(documentOf(e), Operations), e.active);

const scimTypeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ScimError) return error.scimType;
    throw error;
  }
  return undefined;
};

describe('documentFromResource (POST and PUT bodies)', () => {
  it('maps the attributes we keep, Entra’s create body included', () => {
    const fields = fieldsOf(
      documentFromResource(
        {
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE],
          externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
          userName: 'Test_User_00aa00aa',
          active: true,
          emails: [{ primary: true, type: 'work', value: 'Test_User_1@testuser.com' }],
          meta: { resourceType: 'User' },
          name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
          roles: [],
          [ENTERPRISE]: { employeeNumber: '42', department: 'Cleaning', manager: { value: 'SuzzyQ' } },
        },
        {},
      ),
      true,
    );
    expect(fields).toEqual({
      userName: 'Test_User_00aa00aa',
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      givenName: 'givenName',
      familyName: 'familyName',
      formattedName: 'givenName familyName',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_1@testuser.com' }],
      employeeNumber: '42',
      department: 'Cleaning',
      managerId: 'SuzzyQ',
    });
  });

  it('matches attribute names in any case and reads "True"/"False" as booleans', () => {
    const fields = fieldsOf(
      documentFromResource(
        {
          USERNAME: 'x',
          Active: 'False',
          Emails: [{ Primary: 'True', Type: 'work', Value: 'x@example.com' }],
          [ENTERPRISE.toUpperCase()]: { Department: 'bob', Manager: { Value: 'SuzzyQ' } },
        },
        {},
      ),
      true,
    );
    expect(fields).toMatchObject({ userName: 'x', active: false, emails: [{ primary: true, type: 'work', value: 'x@example.com' }], department: 'bob', managerId: 'SuzzyQ' });
  });

  it('ignores unknown attributes, Okta’s password, groups, meta and unknown schemas', () => {
    const fields = fieldsOf(
      documentFromResource(
        { userName: 'x', password: '1mz050nq', groups: [], adreses: [{ country: 'DE' }], nickName: 'Babs', locale: 'en-US', meta: { created: 'yesterday' }, 'urn:example:custom:User': { shoeSize: 42 } },
        {},
      ),
      true,
    );
    expect(fields).toEqual({ userName: 'x', active: true, emails: [] });
  });

  it('defaults active to true and treats null and "" as absent', () => {
    expect(fieldsOf(documentFromResource({ userName: 'x', displayName: null, title: '', name: { givenName: null, honorificPrefix: null } }, {}), true)).toEqual({
      userName: 'x',
      active: true,
      emails: [],
    });
  });

  it('accepts roles: [] and null, and rejects any role value with invalidValue', () => {
    expect(() => documentFromResource({ userName: 'x', roles: [] }, {})).not.toThrow();
    expect(() => documentFromResource({ userName: 'x', roles: null }, {})).not.toThrow();
    expect(scimTypeOf(() => documentFromResource({ userName: 'x', roles: [{ value: 'admin' }] }, {}))).toBe('invalidValue');
    expect(scimTypeOf(() => documentFromResource({ userName: 'x', Roles: 'admin' }, {}))).toBe('invalidValue');
  });

  it('requires userName (400 invalidValue)', () => {
    expect(scimTypeOf(() => fieldsOf(documentFromResource({ displayName: 'x', userame: 'typo' }, {}), true))).toBe('invalidValue');
    expect(scimTypeOf(() => fieldsOf(documentFromResource({ userName: '' }, {}), true))).toBe('invalidValue');
  });

  it('ignores an id equal to the resource’s and rejects another with mutability', () => {
    expect(() => documentFromResource({ id: ID.toUpperCase(), userName: 'x' }, { currentId: ID })).not.toThrow();
    expect(scimTypeOf(() => documentFromResource({ id: '00000000-0000-4000-8000-000000000000', userName: 'x' }, { currentId: ID }))).toBe('mutability');
    // POST: the service assigns ids; a client-sent one is ignored.
    expect(() => documentFromResource({ id: 'anything', userName: 'x' }, {})).not.toThrow();
  });

  it('rejects values of the wrong type with invalidValue', () => {
    expect(scimTypeOf(() => documentFromResource({ userName: 'x', active: 'yes' }, {}))).toBe('invalidValue');
    expect(scimTypeOf(() => documentFromResource({ userName: { first: 'x' } }, {}))).toBe('invalidValue');
    expect(scimTypeOf(() => documentFromResource({ userName: 'x', name: 'Babs' }, {}))).toBe('invalidValue');
    expect(scimTypeOf(() => documentFromResource({ userName: 'x'.repeat(1025) }, {}))).toBe('invalidValue');
    expect(scimTypeOf(() => documentFromResource({ userName: 'x', emails: Array.from({ length: 21 }, (_, i) => ({ value: `${i}@x` })) }, {}))).toBe('invalidValue');
  });

  it('answers invalidSyntax for a body that is not an object', () => {
    expect(scimTypeOf(() => documentFromResource([{ userName: 'x' }], {}))).toBe('invalidSyntax');
    expect(scimTypeOf(() => documentFromResource('x', {}))).toBe('invalidSyntax');
  });

  it('keeps one primary value per attribute', () => {
    const fields = fieldsOf(documentFromResource({ userName: 'x', emails: [{ value: 'a@x', primary: true }, { value: 'b@x', primary: true }] }, {}), true);
    expect(fields.emails).toEqual([{ value: 'a@x', primary: true }, { value: 'b@x', primary: false }]);
  });
});

describe('applyPatch: the shapes Entra ID sends (idp-request-shapes.md)', () => {
  it('applies the default shape: capitalised ops, one attribute per operation, "False" for active', () => {
    const fields = patched(employee(), [
      { op: 'Replace', path: 'active', value: 'False' },
      { op: 'Add', path: 'nickName', value: 'Babs' },
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'new@contoso.com' },
      { op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
      { op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
      { op: 'Replace', path: 'externalId', value: 'Eqpj' },
      { op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: 'Eqpj' },
    ]);
    expect(fields).toMatchObject({
      active: false,
      givenName: 'Gtfd',
      familyName: 'Pkqf',
      externalId: 'Eqpj',
      employeeNumber: 'Eqpj',
      emails: [
        { value: 'new@contoso.com', type: 'work', primary: true },
        { value: 'babs@home.example', type: 'home' },
      ],
    });
  });

  it('accepts "True" and boolean true for active', () => {
    expect(patched(employee({ active: false }), [{ op: 'Replace', path: 'active', value: 'True' }]).active).toBe(true);
    expect(patched(employee(), [{ op: 'Replace', path: 'active', value: false }]).active).toBe(false);
  });

  it('applies the aadOptscim062020 shape: lower-case ops and a no-path value with dotted and URN-qualified keys', () => {
    const fields = patched(employee(), [
      { op: 'replace', path: 'emails[type eq "work"].value', value: 'x@test.microsoft.com' },
      { op: 'replace', value: { displayName: 'Bjfe', 'name.givenName': 'Kkom', 'name.familyName': 'Unua', [`${ENTERPRISE}:employeeNumber`]: 'Aklq' } },
    ]);
    expect(fields).toMatchObject({ displayName: 'Bjfe', givenName: 'Kkom', familyName: 'Unua', employeeNumber: 'Aklq' });
    expect(fields.emails[0]).toEqual({ value: 'x@test.microsoft.com', type: 'work', primary: true });
  });

  it('adds a work address when the user has none yet', () => {
    const fields = patched(employee({ emails: [] }), [{ op: 'Add', path: 'emails[type eq "work"].value', value: 'first@contoso.com' }]);
    expect(fields.emails).toEqual([{ type: 'work', value: 'first@contoso.com' }]);
  });

  it('sets the manager from the legacy array value and from the qualified path', () => {
    expect(patched(employee(), [{ op: 'Add', path: 'manager', value: [{ $ref: 'http://x/scim/Users/26118915-6090-4610-87e4-49d8ca9f808d', value: '26118915-6090-4610-87e4-49d8ca9f808d' }] }]).managerId).toBe(
      '26118915-6090-4610-87e4-49d8ca9f808d',
    );
    expect(patched(employee(), [{ op: 'Replace', path: `${ENTERPRISE}:manager`, value: 'boss-id' }]).managerId).toBe('boss-id');
    expect(patched(employee({ managerId: 'boss' }), [{ op: 'Remove', path: `${ENTERPRISE}:manager` }]).managerId).toBeUndefined();
  });

  it('keeps phone numbers and addresses by type (default mapping targets)', () => {
    const fields = patched(employee(), [
      { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+49 40 123' },
      { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+49 170 123' },
      { op: 'Add', path: 'addresses[type eq "work"].streetAddress', value: 'Hafenstraße 1' },
      { op: 'Add', path: 'addresses[type eq "work"].locality', value: 'Hamburg' },
      { op: 'Add', path: 'title', value: 'Site engineer' },
    ]);
    expect(fields.phoneNumbers).toEqual([
      { type: 'work', value: '+49 40 123' },
      { type: 'mobile', value: '+49 170 123' },
    ]);
    expect(fields.addresses).toEqual([{ type: 'work', streetAddress: 'Hafenstraße 1', locality: 'Hamburg' }]);
    expect(fields.title).toBe('Site engineer');
  });

  it('clears optional attributes set to "" and then to null (Microsoft’s validator)', () => {
    const e = employee({ title: 'Boss', department: 'Ops' });
    expect(patched(e, [{ op: 'Replace', path: 'title', value: '' }]).title).toBeUndefined();
    expect(patched(e, [{ op: 'Replace', path: `${ENTERPRISE}:department`, value: null }]).department).toBeUndefined();
    expect(patched(e, [{ op: 'Replace', path: 'emails[type eq "work"].value', value: '' }]).emails).toEqual([{ value: 'babs@home.example', type: 'home' }]);
  });
});

describe('applyPatch: the shapes Okta sends', () => {
  it('deactivates and reactivates with a no-path value', () => {
    const off = patched(employee(), [{ op: 'replace', value: { active: false } }]);
    expect(off.active).toBe(false);
    expect(patched(employee({ active: false }), [{ op: 'replace', value: { active: true } }]).active).toBe(true);
  });

  it('ignores a password sync', () => {
    expect(patched(employee(), [{ op: 'replace', value: { password: 'n3wP4ss' } }])).toEqual(fieldsOf(documentOf(employee()), true));
  });
});

describe('applyPatch: RFC 7644 §3.5.2 semantics', () => {
  it('add to a multi-valued attribute appends; replace without a filter replaces them all', () => {
    const added = patched(employee(), [{ op: 'add', path: 'emails', value: [{ value: 'third@x', type: 'other' }] }]);
    expect(added.emails.map((e) => e.value)).toEqual(['bjensen@example.com', 'babs@home.example', 'third@x']);
    const replaced = patched(employee(), [{ op: 'replace', path: 'emails', value: [{ value: 'only@x', type: 'work' }] }]);
    expect(replaced.emails).toEqual([{ value: 'only@x', type: 'work' }]);
  });

  it('remove with a value filter removes the matching values only', () => {
    expect(patched(employee(), [{ op: 'remove', path: 'emails[type eq "home"]' }]).emails).toEqual([{ value: 'bjensen@example.com', type: 'work', primary: true }]);
  });

  it('replace on a complex attribute merges its sub-attributes', () => {
    expect(patched(employee(), [{ op: 'replace', path: 'name', value: { givenName: 'Babs' } }])).toMatchObject({ givenName: 'Babs', familyName: 'Jensen' });
  });

  it('a value set to primary makes the others non-primary', () => {
    const fields = patched(employee(), [{ op: 'replace', path: 'emails[type eq "home"].primary', value: true }]);
    expect(fields.emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: false },
      { value: 'babs@home.example', type: 'home', primary: true },
    ]);
  });

  it('changes userName (Microsoft’s "patch user1")', () => {
    expect(patched(employee(), [{ op: 'replace', path: 'userName', value: 'ryan3' }]).userName).toBe('ryan3');
  });

  it('ignores unknown attributes and unknown sub-attributes', () => {
    expect(patched(employee(), [{ op: 'add', path: 'nickName', value: 'x' }, { op: 'add', path: 'name.middleName', value: 'x' }, { op: 'add', path: 'urn:example:ext:User:shoe', value: 1 }])).toEqual(
      fieldsOf(documentOf(employee()), true),
    );
  });

  it('rejects roles, removing userName, changing id, and remove without a path', () => {
    expect(scimTypeOf(() => patched(employee(), [{ op: 'add', path: 'roles', value: [{ value: 'Admin', primary: true }] }]))).toBe('invalidValue');
    expect(scimTypeOf(() => patched(employee(), [{ op: 'Add', path: 'roles[primary eq "True"].value', value: 'Admin' }]))).toBe('invalidValue');
    expect(scimTypeOf(() => patched(employee(), [{ op: 'remove', path: 'userName' }]))).toBe('invalidValue');
    expect(scimTypeOf(() => patched(employee(), [{ op: 'replace', path: 'id', value: '00000000-0000-4000-8000-000000000000' }]))).toBe('mutability');
    expect(scimTypeOf(() => patched(employee(), [{ op: 'remove' }]))).toBe('noTarget');
  });

  it('does not remove active when a PATCH removes it: the current state stays', () => {
    expect(patched(employee({ active: false }), [{ op: 'remove', path: 'active' }]).active).toBe(false);
  });
});

describe('parsePatchBody', () => {
  it('reads Operations and op in any case', () => {
    expect(parsePatchBody({ operations: [{ OP: 'REPLACE', Path: 'active', Value: false }] })).toEqual([{ op: 'replace', path: 'active', value: false }]);
  });

  it.each([[{}], [{ Operations: [] }], [{ Operations: [{ op: 'move', path: 'x' }] }], [{ Operations: ['x'] }], [[]], [{ Operations: [{ op: 'add', path: 7, value: 1 }] }]])(
    'answers invalidSyntax for %j',
    (body) => {
      expect(scimTypeOf(() => parsePatchBody(body))).toBe('invalidSyntax');
    },
  );
});

describe('any input gives a well-formed 4xx, never a 5xx', () => {
  const values: unknown[] = [null, true, 'False', '', 'x', 7, [], [null], [{}], {}, { value: 'x' }, [{ value: 'a', type: 'work', primary: 'True' }], { givenName: 1 }, [[1]]];
  const paths: (string | undefined)[] = [undefined, 'userName', 'active', 'emails', 'emails[type eq "work"].value', 'emails[type eq work]', 'name', 'name.givenName', 'id', 'roles', 'manager', `${ENTERPRISE}:manager.value`, ENTERPRISE, 'emails[', 'x y', 'phoneNumbers[primary eq true]', 'meta.created', 'emails[bogus eq "1"].value'];
  it('for PATCH operations', () => {
    let seed = 7;
    const pick = <T>(list: readonly T[]) => list[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % list.length];
    for (let i = 0; i < 3000; i += 1) {
      const operation = { op: pick(['add', 'Replace', 'remove', 'bogus']), ...(pick([true, false]) ? { path: pick(paths) } : {}), value: pick(values) };
      try {
        patched(employee(), [operation]);
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).status ?? 400).toBeLessThan(500);
      }
    }
  });

  it('for resource bodies', () => {
    let seed = 11;
    const pick = <T>(list: readonly T[]) => list[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % list.length];
    const keys = ['userName', 'UserName', 'emails', 'name', 'active', 'roles', 'id', ENTERPRISE, 'groups', 'password', 'addresses', 'externalId'];
    for (let i = 0; i < 3000; i += 1) {
      const body = Object.fromEntries(Array.from({ length: 4 }, () => [pick(keys), pick(values)]));
      try {
        fieldsOf(documentFromResource(body, { currentId: ID }), true);
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).status ?? 400).toBeLessThan(500);
      }
    }
  });
});
