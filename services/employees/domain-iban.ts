import { electronicFormatIBAN, friendlyFormatIBAN, getCountrySpecifications, isValidBIC, validateIBAN, ValidationErrorsIBAN } from 'ibantools';

/**
 * IBAN and BIC: validation, normalization and masking (ISO 13616, ISO 9362). Pure functions on
 * the maintained `ibantools` library (docs/decisions.md): its country table (length and BBAN
 * format per country), mod-97 check digits and the national check digits of the countries
 * that have them. Only the wording of what is wrong is ours.
 */

export type IbanCheck = { readonly ok: true; readonly iban: string } | { readonly ok: false; readonly problem: string };

/** Electronic format: no spaces, upper case. Spaces, tabs and hyphens between groups are accepted on input. */
export const compactIban = (input: string): string => electronicFormatIBAN(input.replace(/[\s-]+/g, '')) ?? '';

const COUNTRIES = getCountrySpecifications();

/** The number of characters of an IBAN of `country`, if it is a country that uses IBANs. */
const ibanLength = (country: string): number | undefined => COUNTRIES[country]?.chars ?? undefined;

/**
 * Validates an IBAN: characters, country, length of that country, the country's BBAN format,
 * the mod-97 check digits and national check digits. Returns the electronic format, or what
 * is wrong in words an integrator can act on.
 */
export function checkIban(input: string): IbanCheck {
  const iban = compactIban(input);
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(iban)) {
    return { ok: false, problem: 'An IBAN is a 2-letter country code, 2 check digits and up to 30 letters or digits.' };
  }
  const country = iban.slice(0, 2);
  const length = ibanLength(country);
  if (length === undefined) return { ok: false, problem: `${country} is not a country that uses IBANs.` };
  if (iban.length !== length) return { ok: false, problem: `An IBAN of ${country} has ${length} characters; this one has ${iban.length}.` };
  const { errorCodes } = validateIBAN(iban);
  if (errorCodes.includes(ValidationErrorsIBAN.WrongBBANFormat)) {
    return { ok: false, problem: `The characters after the check digits are not in the format ${country} uses (letters where digits belong, or the reverse).` };
  }
  if (errorCodes.includes(ValidationErrorsIBAN.WrongIBANChecksum) || errorCodes.includes(ValidationErrorsIBAN.ChecksumNotNumber)) {
    return { ok: false, problem: 'The check digits do not match: the IBAN has a typo.' };
  }
  if (errorCodes.includes(ValidationErrorsIBAN.WrongAccountBankBranchChecksum)) {
    return { ok: false, problem: `The national check digits of the ${country} account number do not match: the IBAN has a typo.` };
  }
  if (errorCodes.length > 0) return { ok: false, problem: 'This is not a valid IBAN.' };
  return { ok: true, iban };
}

/** Print format: groups of four. */
export const formatIban = (iban: string): string => friendlyFormatIBAN(iban) ?? iban;

/**
 * The only way bank data appears outside the bank-account resource, as the contract says:
 * in the print format's groups of four, the leading group (country and check digits) and the
 * trailing group visible, every middle group masked whole (`DE89 **** **** **** **** 00`,
 * `NO93 **** **** 947`).
 */
export function maskIban(iban: string): string {
  const groups = compactIban(iban).match(/.{1,4}/g) ?? [];
  return groups.map((group, i) => (i === 0 || i === groups.length - 1 ? group : '*'.repeat(group.length))).join(' ');
}

export type BicCheck = { readonly ok: true; readonly bic: string } | { readonly ok: false; readonly problem: string };

/** BIC (ISO 9362): 4 letters bank, 2 letters country (an ISO 3166-1 code), 2 letters/digits location, optional 3 branch. */
export function checkBic(input: string): BicCheck {
  const bic = input.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic)) {
    return { ok: false, problem: 'A BIC has 8 or 11 characters: 4 letters (bank), 2 letters (country), 2 letters or digits (location), optionally 3 (branch).' };
  }
  const country = bic.slice(4, 6);
  if (!isCountryCode(country) || !isValidBIC(bic)) return { ok: false, problem: "The BIC's country code (characters 5 and 6) is not an ISO 3166-1 country." };
  return { ok: true, bic };
}

/**
 * Whether `code` is an ISO 3166-1 alpha-2 country code (upper case), read from ibantools'
 * country table (every ISO 3166-1 country, plus XK, the code banks use for Kosovo).
 */
export const isCountryCode = (code: string): boolean => /^[A-Z]{2}$/.test(code) && Object.hasOwn(COUNTRIES, code);
