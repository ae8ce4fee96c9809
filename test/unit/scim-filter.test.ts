import { ScimError } from '../../services/scim/domain-errors';
import { parseAttributePath, parseUserFilter, plusAsSpace } from '../../services/scim/domain-filter';

const scimTypeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ScimError) return error.scimType;
    throw error;
  }
  return undefined;
};

describe('parseUserFilter', () => {
  it.each([
    ['userName eq "bjensen"', { attribute: 'userName', value: 'bjensen' }],
    ['externalId eq "0a21f0f2-8d2a"', { attribute: 'externalId', value: '0a21f0f2-8d2a' }],
    ['id eq "6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f"', { attribute: 'id', value: '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f' }],
    ['displayName eq "Babs Jensen"', { attribute: 'displayName', value: 'Babs Jensen' }],
    ['emails.value eq "b@example.com"', { attribute: 'emails.value', value: 'b@example.com' }],
    ['emails[type eq "work"].value eq "b@example.com"', { attribute: 'emails.value', emailType: 'work', value: 'b@example.com' }],
  ])('accepts %s', (filter, clause) => {
    expect(parseUserFilter(filter)).toEqual([clause]);
  });

  it('matches attribute names and operators case-insensitively', () => {
    expect(parseUserFilter('USERNAME EQ "x"')).toEqual([{ attribute: 'userName', value: 'x' }]);
    expect(parseUserFilter('DisplayName Eq "x"')).toEqual([{ attribute: 'displayName', value: 'x' }]);
    expect(parseUserFilter('Emails[Type eq "work"].Value eq "x"')).toEqual([{ attribute: 'emails.value', emailType: 'work', value: 'x' }]);
  });

  it('accepts the core schema URN in front of the attribute', () => {
    expect(parseUserFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "x"')).toEqual([{ attribute: 'userName', value: 'x' }]);
  });

  it('joins comparisons with and (any case)', () => {
    expect(parseUserFilter('userName eq "a" AND externalId eq "b" and emails.value eq "c"')).toEqual([
      { attribute: 'userName', value: 'a' },
      { attribute: 'externalId', value: 'b' },
      { attribute: 'emails.value', value: 'c' },
    ]);
  });

  it('reads + outside quotes as a space (API Gateway leaves + in query strings) and keeps it inside quotes', () => {
    expect(parseUserFilter('DisplayName+eq+"BobIsAmazing"')).toEqual([{ attribute: 'displayName', value: 'BobIsAmazing' }]);
    expect(parseUserFilter('userName+eq+"a+b@example.com"')).toEqual([{ attribute: 'userName', value: 'a+b@example.com' }]);
    expect(plusAsSpace('a+b+"c+\\"+d"+e')).toBe('a b "c+\\"+d" e');
  });

  it('accepts an unquoted simple value (Entra’s older samples)', () => {
    expect(parseUserFilter('externalId eq jyoung')).toEqual([{ attribute: 'externalId', value: 'jyoung' }]);
  });

  it('decodes JSON escapes inside quoted values', () => {
    expect(parseUserFilter('displayName eq "Say \\"hi\\""')).toEqual([{ attribute: 'displayName', value: 'Say "hi"' }]);
  });

  it.each([
    ['name.FamilyName eq Employee and (emails.Value co example.com or emails.Value co example.org)'],
    ['userName sw O'],
    ['meta.Created gt 2015-10-10T14:38:21.8617979-07:00'],
    ['userName eq "a" or userName eq "b"'],
    ['not (userName eq "a")'],
    ['userName pr'],
    ['userName ne "a"'],
    ['title eq "boss"'],
    ['name.givenName eq "x"'],
    ['emails[value eq "x"].value eq "y"'],
    ['userName eq "unterminated'],
    ['userName eq'],
    ['userName "x"'],
    ['userName eq "x" and'],
    ['userName eq "x" userName eq "y"'],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "x"'],
  ])('answers 400 invalidFilter for %s', (filter) => {
    expect(scimTypeOf(() => parseUserFilter(filter))).toBe('invalidFilter');
  });

  it('never fails with anything but a SCIM error, whatever the input', () => {
    const alphabet = ['userName', 'eq', 'and', 'or', '"', '"x"', '[', ']', '(', ')', '+', ' ', '.', 'emails', 'type', '\\', 'value', 'co', 'urn:', ':'];
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 2000; i += 1) {
      const input = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join(next() % 2 ? ' ' : '');
      try {
        parseUserFilter(input);
      } catch (error) {
        expect(error).toBeInstanceOf(ScimError);
      }
    }
  });
});

describe('parseAttributePath', () => {
  it('reads schema, attribute, value filter and sub-attribute', () => {
    expect(parseAttributePath('emails[type eq "work"].value')).toEqual({
      kind: 'attribute',
      schema: 'core',
      qualified: false,
      attribute: 'emails',
      valueFilter: [{ path: 'type', value: { text: 'work', quoted: true } }],
      subAttribute: 'value',
    });
    expect(parseAttributePath('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value')).toMatchObject({
      kind: 'attribute',
      schema: 'enterprise',
      qualified: true,
      attribute: 'manager',
      subAttribute: 'value',
    });
    expect(parseAttributePath('URN:IETF:PARAMS:SCIM:SCHEMAS:EXTENSION:ENTERPRISE:2.0:USER')).toEqual({ kind: 'extension', schema: 'enterprise' });
    expect(parseAttributePath('urn:example:custom:1.0:User:shoeSize')).toEqual({ kind: 'unknownSchema' });
  });

  it('answers 400 invalidPath for a path it cannot read', () => {
    expect(scimTypeOf(() => parseAttributePath('emails..value'))).toBe('invalidPath');
    expect(scimTypeOf(() => parseAttributePath(''))).toBe('invalidPath');
  });
});
