import { bearerToken, generateApiKey, hashSecret, parseApiKey, secretMatches } from '../../services/shared/auth/api-key';

describe('generateApiKey', () => {
  it('issues `<prefix><key-id>.<secret>` with a 20-char base32 key id and a 32-byte base64url secret', () => {
    const issued = generateApiKey('TEST');
    expect(issued.token).toMatch(/^wfm_test_[a-z2-7]{20}\.[A-Za-z0-9_-]{43}$/);
    const parsed = parseApiKey(issued.token)!;
    expect(parsed.keyId).toBe(issued.keyId);
    expect(Buffer.from(parsed.secret, 'base64url')).toHaveLength(32);
  });

  it('stores only a hash that differs from the secret and matches it in constant time', () => {
    const issued = generateApiKey('LIVE');
    const { secret } = parseApiKey(issued.token)!;
    expect(issued.token.startsWith('wfm_live_')).toBe(true);
    expect(issued.secretHash).not.toContain(secret);
    expect(issued.secretHash).toBe(hashSecret(secret));
    expect(secretMatches(secret, issued.secretHash)).toBe(true);
    expect(secretMatches(`${secret.slice(0, -1)}A` === secret ? `${secret.slice(0, -1)}B` : `${secret.slice(0, -1)}A`, issued.secretHash)).toBe(false);
  });
});

describe('parseApiKey', () => {
  const good = 'wfm_test_abcdefghijklmnopqrst.' + 'A'.repeat(43);
  it.each([
    ['', 'empty'],
    ['wfm_prod_abcdefghijklmnopqrst.' + 'A'.repeat(43), 'unknown prefix'],
    ['wfm_test_ABCDEFGHIJKLMNOPQRST.' + 'A'.repeat(43), 'upper-case key id'],
    ['wfm_test_abcdefghijklmnopqrs1.' + 'A'.repeat(43), 'digit 1 is not base32'],
    ['wfm_test_abcdefghijklmnopqrst' + 'A'.repeat(43), 'no dot'],
    ['wfm_test_abcdefghijklmnopqrst.' + 'A'.repeat(42), 'short secret'],
    [good + ' ', 'trailing space'],
  ])('rejects %j (%s)', (token) => {
    expect(parseApiKey(token)).toBeUndefined();
  });

  it('reads environment, key id and secret', () => {
    expect(parseApiKey(good)).toEqual({ environment: 'TEST', keyId: 'abcdefghijklmnopqrst', secret: 'A'.repeat(43) });
  });
});

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER   abc  ', 'abc'],
  ])('reads %j', (header, token) => expect(bearerToken(header)).toBe(token));

  it.each([[undefined], [''], ['Basic abc'], ['Bearer'], ['Bearer a b'], ['non-token']])('rejects %j', (header) => {
    expect(bearerToken(header)).toBeUndefined();
  });
});
