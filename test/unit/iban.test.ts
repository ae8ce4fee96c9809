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
    expect(maskIban('DE89370400440532013000')).toBe('DE89 **** **** **** **** 00');
    expect(maskIban('NO9386011117947')).toBe('NO93 **** **** 947');
    // Every middle group is masked whole: no digit of it shows (the contract's rule).
    expect(maskIban('GB29NWBK60161331926819')).toBe('GB29 **** **** **** **** 19');
    // A mask stored before this rule (last four visible) is masked again as read; a mask is its own mask.
    expect(maskIban('DE89 **** **** **** **30 00')).toBe('DE89 **** **** **** **** 00');
    expect(maskIban('DE89 **** **** **** **** 00')).toBe('DE89 **** **** **** **** 00');
  });
  it('prints groups of four', () => expect(formatIban('GB82WEST12345698765432')).toBe('GB82 WEST 1234 5698 7654 32'));
});

describe('checkBic', () => {
  it.each([['DEUTDEFF', 'DEUTDEFF'], ['deut de ff 500', 'DEUTDEFF500'], ['NWBKGB2L', 'NWBKGB2L']])('accepts %s', (input, bic) => expect(checkBic(input)).toEqual({ ok: true, bic }));
  it.each(['DEUTDEF', 'DEUTDEFF5', '1EUTDEFF', 'DEUT1EFF'])('rejects %s', (input) => expect(checkBic(input).ok).toBe(false));
});

describe('checkIban on ibantools: awkward input', () => {
  it.each([
    ['spaces, tabs and line breaks anywhere', ' DE89\t3704 0044\n0532 0130 00 ', 'DE89370400440532013000'],
    ['lower case throughout', 'gb82 west 1234 5698 7654 32', 'GB82WEST12345698765432'],
    ['a French IBAN (its national RIB key checked too)', 'FR76 3000 6000 0112 3456 7890 189', 'FR7630006000011234567890189'],
    ['a country of the registry the former hand-kept table had (Burundi)', 'BI42 1000 0100 0100 0033 2045 181', 'BI4210000100010000332045181'],
    ['a country of the registry the former hand-kept table had (Falkland Islands)', 'FK88 SC12 3456 7890 12', 'FK88SC123456789012'],
  ])('accepts %s', (_what, input, iban) => expect(checkIban(input)).toEqual({ ok: true, iban }));

  it.each([
    ['a wrong checksum', 'GB83 WEST 1234 5698 7654 32', 'The check digits do not match: the IBAN has a typo.'],
    ['an unknown country', 'ZZ12 3456 7890 1234 5678 90', 'ZZ is not a country that uses IBANs.'],
    ['a country without IBANs', 'US64 SVBK US6S 3300 9588 79', 'US is not a country that uses IBANs.'],
    ['one character short for the country', 'GB82 WEST 1234 5698 7654 3', 'An IBAN of GB has 22 characters; this one has 21.'],
    ['one character long for the country', 'NO93 8601 1117 9470', 'An IBAN of NO has 15 characters; this one has 16.'],
    ['a letter where the country has digits', 'DE89 A704 0044 0532 0130 00', 'The characters after the check digits are not in the format DE uses (letters where digits belong, or the reverse).'],
    ['valid mod-97 digits but wrong national check digits', 'BE41 5390 0754 7035', 'The national check digits of the BE account number do not match: the IBAN has a typo.'],
    ['an underscore between groups', 'DE89_3704_0044_0532_0130_00', 'An IBAN is a 2-letter country code, 2 check digits and up to 30 letters or digits.'],
    ['only spaces', '    ', 'An IBAN is a 2-letter country code, 2 check digits and up to 30 letters or digits.'],
  ])('rejects %s with what is wrong', (_what, input, problem) => expect(checkIban(input)).toEqual({ ok: false, problem }));

  it('masks and prints an IBAN given in any case and spacing', () => {
    expect(maskIban(' de89 3704 0044 0532 0130 00 ')).toBe('DE89 **** **** **** **** 00');
    expect(formatIban('NO9386011117947')).toBe('NO93 8601 1117 947');
  });

  it('checks the country of a BIC too', () => {
    expect(checkBic('DEUTXXFF')).toEqual({ ok: false, problem: "The BIC's country code (characters 5 and 6) is not an ISO 3166-1 country." });
    expect(checkBic('cobadeffxxx')).toEqual({ ok: true, bic: 'COBADEFFXXX' });
  });
});
