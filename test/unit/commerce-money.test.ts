import fc from 'fast-check';
import { divideHalfAwayFromZero, documentTotals, fromBasisPoints, isCurrency, lineAmounts, MAX_AMOUNT, toBasisPoints, toMilli } from '../../services/commerce/domain-money';

/**
 * The money arithmetic of quotes and invoices as properties: exact integers, one rounding per
 * line (half away from zero), documents that always add up, and no silent overflow.
 */
const quantityMilli = fc.integer({ min: 1, max: 1_000_000_000 });
const unitPrice = fc.integer({ min: 0, max: 100_000_000_000 });
const taxRateBp = fc.integer({ min: 0, max: 10_000 });
const lineInput = fc.record({ quantityMilli, unitPrice, taxRateBp });

describe('divideHalfAwayFromZero', () => {
  it('is the nearest integer, halves away from zero', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }), fc.bigInt({ min: 1n, max: 10n ** 6n }), (n, d) => {
        const q = divideHalfAwayFromZero(n, d);
        const twiceRemainder = 2n * (n - q * d); // 2 × (n - q·d): within [-d, d]
        expect(twiceRemainder <= d && twiceRemainder >= -d).toBe(true);
        if (twiceRemainder === d) expect(n < 0n).toBe(true); // an exact half of a positive n rounds up, not down
        if (twiceRemainder === -d) expect(n > 0n).toBe(true);
        expect(divideHalfAwayFromZero(-n, d)).toBe(-q); // symmetric
      }),
    );
  });

  it('matches examples', () => {
    expect([5n, 15n, 25n, -5n, 14n].map((n) => divideHalfAwayFromZero(n, 10n))).toEqual([1n, 2n, 3n, -1n, 1n]);
  });
});

describe('lineAmounts', () => {
  it('gives net = round(q × p / 1000), tax = round(net × r / 10000), total = net + tax, exactly', () => {
    fc.assert(
      fc.property(lineInput, (l) => {
        const a = lineAmounts(l);
        const exactNet = BigInt(l.quantityMilli) * BigInt(l.unitPrice);
        if (!a) {
          // Refused only when the exact total (up to the two roundings) is beyond the range.
          expect(exactNet * BigInt(10_000 + l.taxRateBp) > (BigInt(MAX_AMOUNT) - 2n) * 10_000_000n).toBe(true);
          return;
        }
        expect(Number.isSafeInteger(a.net) && Number.isSafeInteger(a.tax) && Number.isSafeInteger(a.total)).toBe(true);
        expect(Math.abs(Number(BigInt(a.net) * 1000n - exactNet))).toBeLessThanOrEqual(500);
        expect(Math.abs(Number(BigInt(a.tax) * 10_000n - BigInt(a.net) * BigInt(l.taxRateBp)))).toBeLessThanOrEqual(5_000);
        expect(a.total).toBe(a.net + a.tax);
        expect(a.net).toBeGreaterThanOrEqual(0);
        expect(a.tax).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('is monotonic in quantity and price, and zero tax at 0 %', () => {
    fc.assert(
      fc.property(lineInput, fc.integer({ min: 0, max: 1000 }), (l, more) => {
        const a = lineAmounts(l);
        const b = lineAmounts({ ...l, quantityMilli: l.quantityMilli + more });
        const c = lineAmounts({ ...l, taxRateBp: 0 });
        if (!a || !b || !c) return;
        expect(b.net).toBeGreaterThanOrEqual(a.net);
        expect(c.tax).toBe(0);
        expect(c.net).toBe(a.net);
      }),
    );
  });

  it('refuses amounts beyond 10^15 minor units instead of losing precision', () => {
    expect(lineAmounts({ quantityMilli: 1_000_000_000, unitPrice: 100_000_000_000, taxRateBp: 0 })).toBeUndefined();
    expect(lineAmounts({ quantityMilli: 1000, unitPrice: MAX_AMOUNT, taxRateBp: 0 })).toEqual({ net: MAX_AMOUNT, tax: 0, total: MAX_AMOUNT });
    expect(lineAmounts({ quantityMilli: 1000, unitPrice: MAX_AMOUNT, taxRateBp: 1 })).toBeUndefined();
  });
});

describe('documentTotals', () => {
  it('adds up: subtotal = Σ net, taxTotal = Σ tax, total = subtotal + taxTotal = Σ line totals, independent of order', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ quantityMilli: fc.integer({ min: 1, max: 10_000_000 }), unitPrice: fc.integer({ min: 0, max: 10_000_000 }), taxRateBp }), { maxLength: 100 }), (inputs) => {
        const lines = inputs.map((l) => lineAmounts(l)!);
        const t = documentTotals(lines)!;
        expect(t.subtotal).toBe(lines.reduce((s, l) => s + l.net, 0));
        expect(t.taxTotal).toBe(lines.reduce((s, l) => s + l.tax, 0));
        expect(t.total).toBe(t.subtotal + t.taxTotal);
        expect(t.total).toBe(lines.reduce((s, l) => s + l.total, 0));
        expect(documentTotals([...lines].reverse())).toEqual(t);
      }),
    );
  });

  it('refuses a sum beyond 10^15', () => {
    const big = { net: MAX_AMOUNT, tax: 0, total: MAX_AMOUNT };
    expect(documentTotals([big, { net: 1, tax: 0, total: 1 }])).toBeUndefined();
    expect(documentTotals([])).toEqual({ subtotal: 0, taxTotal: 0, total: 0 });
  });
});

describe('conversions', () => {
  it('turns decimals with at most 3 (quantity) or 2 (tax rate) places into exact integers and back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000 }), fc.integer({ min: 0, max: 10_000 }), (milli, bp) => {
        expect(toMilli(milli / 1000)).toBe(milli);
        expect(toBasisPoints(fromBasisPoints(bp))).toBe(bp);
      }),
    );
  });

  it('knows ISO 4217 codes', () => {
    expect(['EUR', 'USD', 'CHF', 'JPY', 'GBP'].every(isCurrency)).toBe(true);
    expect(['XYZ', 'eur', 'EURO', ''].some(isCurrency)).toBe(false);
  });
});
