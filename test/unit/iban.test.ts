import { checkBic, checkIban, formatIban, maskIban } from '../../services/employees/domain-iban';

describe('checkIban', () => {
  it.each([
    ['DE89 3704 0044 0532 0130 00', 'DE89370400440532013000'],
    ['de89370400440532013000', 'DE89370400440532013000'],
    ['GB82 WEST 1234 5698 7654 32', 'GB82WEST12345698765432'],
    ['NO93 8601 1117 947', 'NO9386011117947'],
    ['MT84 MALT 0110 0001 2345 MTLC AST0 01S', 'MT84MALT011000012345MTLCAST001S'],
    ['FR14-2004-1010-0505-0001-3M02-606', 'FR1420041010050500013M02606'],
  ])('accepts %s as %s', (input, iban) => expect(checkIban(input)).toEqual({ ok: true, iban }));

  it.each([
    ['DE88 3704 0044 0532 0130 00', /check digits/],
    ['DE89 3704 0044 0532 0130 0', /22 characters; this one has 21/],
    ['XX89 3704 0044 0532 0130 00', /not a country/],
    ['DE89 3704 0044 0532 0130 0!', /country code, 2 check digits/],
    ['', /country code/],
    ['1234', /country code/],
  ])('rejects %s', (input, problem) => {
    const result = checkIban(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatch(problem);
  });
});

describe('maskIban and formatIban', () => {
  it('shows the leading group and the last four characters only', () => {
    expect(maskIban('DE89370400440532013000')).toBe('DE89 **** **** **** **30 00');
    expect(maskIban('NO9386011117947')).toBe('NO93 **** ***7 947');
  });
  it('prints groups of four', () => expect(formatIban('GB82WEST12345698765432')).toBe('GB82 WEST 1234 5698 7654 32'));
});

describe('checkBic', () => {
  it.each([['DEUTDEFF', 'DEUTDEFF'], ['deut de ff 500', 'DEUTDEFF500'], ['NWBKGB2L', 'NWBKGB2L']])('accepts %s', (input, bic) => expect(checkBic(input)).toEqual({ ok: true, bic }));
  it.each(['DEUTDEF', 'DEUTDEFF5', '1EUTDEFF', 'DEUT1EFF'])('rejects %s', (input) => expect(checkBic(input).ok).toBe(false));
});
