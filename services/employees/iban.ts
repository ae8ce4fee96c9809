/**
 * IBAN and BIC: validation, normalization and masking (ISO 13616, ISO 9362). Pure functions.
 * Lengths per country follow the SWIFT IBAN registry.
 */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28,
  CH: 21, CR: 22, CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18,
  FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22,
  IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20,
  LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28, NL: 18,
  NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24, SC: 31,
  SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29,
  VA: 22, VG: 24, XK: 20, YE: 30,
};

export type IbanCheck = { readonly ok: true; readonly iban: string } | { readonly ok: false; readonly problem: string };

/** Electronic format: no spaces, upper case. Spaces, tabs and hyphens between groups are accepted on input. */
export const compactIban = (input: string): string => input.replace(/[\s-]+/g, '').toUpperCase();

/**
 * Validates an IBAN: characters, country, length of that country, and the mod-97 check digits.
 * Returns the electronic format, or what is wrong in words an integrator can act on.
 */
export function checkIban(input: string): IbanCheck {
  const iban = compactIban(input);
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(iban)) {
    return { ok: false, problem: 'An IBAN is a 2-letter country code, 2 check digits and up to 30 letters or digits.' };
  }
  const country = iban.slice(0, 2);
  const length = IBAN_LENGTHS[country];
  if (length === undefined) return { ok: false, problem: `${country} is not a country that uses IBANs.` };
  if (iban.length !== length) return { ok: false, problem: `An IBAN of ${country} has ${length} characters; this one has ${iban.length}.` };
  if (mod97(iban.slice(4) + iban.slice(0, 4)) !== 1) return { ok: false, problem: 'The check digits do not match: the IBAN has a typo.' };
  return { ok: true, iban };
}

/** Remainder of the digit string (letters as 10..35) by 97, in chunks: no big integers. */
function mod97(rearranged: string): number {
  let remainder = 0;
  for (const char of rearranged) {
    const value = char >= 'A' ? (char.charCodeAt(0) - 55).toString() : char;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder;
}

/** Print format: groups of four. */
export const formatIban = (iban: string): string => iban.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * The only way bank data appears outside the bank-account resource: the country and check
 * digits and the last four characters visible, everything else masked, in groups of four
 * (`DE89 **** **** **** **30 00`).
 */
export function maskIban(iban: string): string {
  const compact = compactIban(iban);
  const masked = compact.slice(0, 4) + '*'.repeat(Math.max(compact.length - 8, 0)) + compact.slice(-4);
  return formatIban(masked);
}

export type BicCheck = { readonly ok: true; readonly bic: string } | { readonly ok: false; readonly problem: string };

/** BIC (ISO 9362): 4 letters bank, 2 letters country, 2 letters/digits location, optional 3 branch. */
export function checkBic(input: string): BicCheck {
  const bic = input.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic)) {
    return { ok: false, problem: 'A BIC has 8 or 11 characters: 4 letters (bank), 2 letters (country), 2 letters or digits (location), optionally 3 (branch).' };
  }
  return { ok: true, bic };
}
