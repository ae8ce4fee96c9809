import type { Line, Totals } from './model';

/**
 * Money arithmetic of quotes and invoices: integers only (minor units, milli-quantities,
 * basis-point tax rates), computed in BigInt so that no intermediate product loses a cent,
 * rounded once per line, half away from zero (docs/decisions.md, "Commerce"):
 *   net   = round(quantityMilli × unitPrice / 1000)
 *   tax   = round(net × taxRateBp / 10000)
 *   total = net + tax
 * and a document's subtotal, taxTotal and total are the plain sums of its lines' net, tax
 * and total (so total = subtotal + taxTotal, and the lines always add up to the document).
 */

/** The largest amount a line or a document may reach: exact as a JSON number (< 2^53). */
export const MAX_AMOUNT = 1_000_000_000_000_000; // 10^15 minor units

/** n / d rounded to the nearest integer, halves away from zero; d > 0. */
export function divideHalfAwayFromZero(n: bigint, d: bigint): bigint {
  if (d <= 0n) throw new RangeError('The divisor must be positive.');
  const negative = n < 0n;
  const magnitude = negative ? -n : n;
  const q = (2n * magnitude + d) / (2n * d);
  return negative ? -q : q;
}

export interface LineInput {
  readonly quantityMilli: number;
  readonly unitPrice: number;
  readonly taxRateBp: number;
}

export interface LineAmounts {
  readonly net: number;
  readonly tax: number;
  readonly total: number;
}

/** The amounts of one line; undefined when they leave the exact range (|x| > MAX_AMOUNT). */
export function lineAmounts(line: LineInput): LineAmounts | undefined {
  const net = divideHalfAwayFromZero(BigInt(line.quantityMilli) * BigInt(line.unitPrice), 1000n);
  const tax = divideHalfAwayFromZero(net * BigInt(line.taxRateBp), 10_000n);
  const total = net + tax;
  if (abs(net) > BigInt(MAX_AMOUNT) || abs(total) > BigInt(MAX_AMOUNT)) return undefined;
  return { net: Number(net), tax: Number(tax), total: Number(total) };
}

/** The sums of the lines; undefined when a sum leaves the exact range. */
export function documentTotals(lines: readonly Pick<Line, 'net' | 'tax' | 'total'>[]): Totals | undefined {
  let subtotal = 0n;
  let taxTotal = 0n;
  for (const line of lines) {
    subtotal += BigInt(line.net);
    taxTotal += BigInt(line.tax);
  }
  const total = subtotal + taxTotal;
  if ([subtotal, taxTotal, total].some((x) => abs(x) > BigInt(MAX_AMOUNT))) return undefined;
  return { subtotal: Number(subtotal), taxTotal: Number(taxTotal), total: Number(total) };
}

const abs = (x: bigint) => (x < 0n ? -x : x);

/** ISO 4217 codes as the runtime's ICU knows them (e.g. EUR, USD, CHF, JPY). */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export const isCurrency = (code: string): boolean => CURRENCIES.has(code);

/** The number of minor-unit digits of a currency (EUR 2, JPY 0, KWD 3): for display only. */
export const minorDigits = (currency: string): number => new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

/** A decimal quantity with at most 3 decimals as milli-units (1.25 -> 1250). */
export const toMilli = (quantity: number): number => Math.round(quantity * 1000);
export const fromMilli = (milli: number): number => milli / 1000;

/** A tax rate in percent with at most 2 decimals as basis points (7.5 -> 750). */
export const toBasisPoints = (percent: number): number => Math.round(percent * 100);
export const fromBasisPoints = (bp: number): number => bp / 100;
