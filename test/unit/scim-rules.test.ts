import { holderKey, type Employee } from '../../services/employees/store';
import { changedAttributes, clauseHolds, planGuards, type Holder } from '../../services/scim/domain';
import { ifMatchHolds } from '../../services/scim/domain';
import { etagOf } from '../../services/scim/model';
import { project } from '../../services/scim/schemas';

const person = (id: string, overrides: Partial<Employee> = {}): Employee => ({
  id,
  organizationId: 'org',
  userName: `${id}@example.com`,
  emails: [{ value: `${id}@example.com`, type: 'work', primary: true }],
  externalId: `ext-${id}`,
  active: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  version: 3,
  ...overrides,
});

const holders = (entries: [attribute: 'userName' | 'externalId', value: string, holder: Holder][]) =>
  new Map(entries.map(([attribute, value, holder]) => [holderKey({ attribute, value }), holder]));

describe('planGuards', () => {
  it('claims values nobody holds', () => {
    expect(planGuards('me', undefined, { userName: 'A', externalId: 'x' }, new Map())).toEqual([
      { kind: 'claim', attribute: 'externalId', value: 'x' },
      { kind: 'claim', attribute: 'userName', value: 'A' },
    ]);
  });

  it('treats userName case-insensitively and externalId case-exactly', () => {
    const held = holders([
      ['userName', 'bob', { id: 'other', employee: person('other') }],
      ['externalId', 'X', { id: 'other', employee: person('other') }],
    ]);
    expect(() => planGuards('me', undefined, { userName: 'BOB' }, held)).toThrow(expect.objectContaining({ code: 'UNIQUENESS_CONFLICT', attribute: 'userName' }));
    expect(planGuards('me', undefined, { userName: 'new', externalId: 'x' }, held)).toEqual([
      { kind: 'claim', attribute: 'externalId', value: 'x' },
      { kind: 'claim', attribute: 'userName', value: 'new' },
    ]);
  });

  it('keeps the values it holds and moves the changed ones in the same step', () => {
    const me = person('me', { userName: 'old' });
    const held = holders([
      ['userName', 'old', { id: 'me', employee: me }],
      ['externalId', 'ext-me', { id: 'me', employee: me }],
    ]);
    expect(planGuards('me', me, { userName: 'new', externalId: 'ext-me' }, held)).toEqual([
      { kind: 'keep', attribute: 'externalId', value: 'ext-me' },
      { kind: 'claim', attribute: 'userName', value: 'new' },
      { kind: 'release', attribute: 'userName', value: 'old' },
    ]);
    // A change of case only is the same guard.
    expect(planGuards('me', me, { userName: 'OLD', externalId: 'ext-me' }, held)).toEqual([
      { kind: 'keep', attribute: 'externalId', value: 'ext-me' },
      { kind: 'keep', attribute: 'userName', value: 'OLD' },
    ]);
  });

  it('releases an externalId that is removed', () => {
    const me = person('me');
    expect(planGuards('me', me, { userName: me.userName }, holders([['externalId', 'ext-me', { id: 'me', employee: me }], ['userName', me.userName, { id: 'me', employee: me }]]))).toEqual([
      { kind: 'release', attribute: 'externalId', value: 'ext-me' },
      { kind: 'keep', attribute: 'userName', value: me.userName },
    ]);
  });

  it('takes over a value from a user whose SCIM resource was deleted, and never one from a live user', () => {
    const retired = person('retired', { scimDeleted: true, active: false, version: 7 });
    expect(planGuards('me', undefined, { userName: 'u' }, holders([['userName', 'u', { id: 'retired', employee: retired }]]))).toEqual([
      { kind: 'takeOver', attribute: 'userName', value: 'u', from: { id: 'retired', version: 7 } },
    ]);
    expect(() => planGuards('me', undefined, { userName: 'u' }, holders([['userName', 'u', { id: 'live', employee: person('live') }]]))).toThrow(/userName/);
  });

  it('does not release a value another user took over', () => {
    const me = person('me', { userName: 'old', externalId: undefined });
    expect(planGuards('me', me, { userName: 'new' }, holders([['userName', 'old', { id: 'someone', employee: person('someone') }]]))).toEqual([{ kind: 'claim', attribute: 'userName', value: 'new' }]);
  });
});

describe('clauseHolds', () => {
  const u = person('1b2c3d4e-5f60-4718-89a0-b1c2d3e4f501', { userName: 'Bob@Example.com', displayName: 'Bob B', externalId: 'AbC' });
  it('compares userName, displayName and emails case-insensitively, externalId exactly', () => {
    expect(clauseHolds({ attribute: 'userName', value: 'BOB@example.COM' }, u)).toBe(true);
    expect(clauseHolds({ attribute: 'displayName', value: 'bob b' }, u)).toBe(true);
    expect(clauseHolds({ attribute: 'externalId', value: 'abc' }, u)).toBe(false);
    expect(clauseHolds({ attribute: 'externalId', value: 'AbC' }, u)).toBe(true);
    expect(clauseHolds({ attribute: 'id', value: u.id.toUpperCase() }, u)).toBe(true);
  });
  it('checks the type of an address when the filter names one', () => {
    const value = u.emails[0].value.toUpperCase();
    expect(clauseHolds({ attribute: 'emails.value', value }, u)).toBe(true);
    expect(clauseHolds({ attribute: 'emails.value', emailType: 'WORK', value }, u)).toBe(true);
    expect(clauseHolds({ attribute: 'emails.value', emailType: 'home', value }, u)).toBe(false);
  });
});

describe('changedAttributes', () => {
  it('names the SCIM attributes that changed, never their values', () => {
    const before = person('a', { givenName: 'Ada', department: 'Ops' });
    const after = person('a', { givenName: 'Adele', department: 'Ops', active: false, emails: [] });
    expect(changedAttributes(before, after)).toEqual(['name.givenName', 'active', 'emails']);
  });
});

describe('ETags', () => {
  it('is weak and carries the version', () => {
    expect(etagOf({ version: 4 })).toBe('W/"4"');
  });
  it.each([
    [undefined, true],
    ['', true],
    ['*', true],
    ['W/"4"', true],
    ['"4"', true],
    ['W/"3", W/"4"', true],
    ['W/"3"', false],
    ['W/"40"', false],
  ])('If-Match %j holds for version 4: %s', (header, holds) => {
    expect(ifMatchHolds(header, { version: 4 })).toBe(holds);
  });
});

describe('project', () => {
  const resource = { schemas: ['s'], id: 'i', userName: 'u', emails: [{ value: 'e' }], name: { givenName: 'g' }, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'd' }, meta: {} };
  it('keeps id, schemas and the requested top-level attributes', () => {
    expect(Object.keys(project(resource, { attributes: 'userName,emails' }))).toEqual(['schemas', 'id', 'userName', 'emails']);
    expect(Object.keys(project(resource, { attributes: 'emails[type eq "work"]' }))).toEqual(['schemas', 'id', 'emails']);
    expect(Object.keys(project(resource, { attributes: 'emails[type+eq+"work"],name.givenName' }))).toEqual(['schemas', 'id', 'emails', 'name']);
    expect(Object.keys(project(resource, { attributes: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department' }))).toEqual([
      'schemas',
      'id',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
    ]);
  });
  it('removes excluded attributes but never id', () => {
    expect(Object.keys(project(resource, { excludedAttributes: 'emails,id,meta' }))).toEqual(['schemas', 'id', 'userName', 'name', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User']);
  });
});
