import { hasAtMostDecimals } from '../../services/shared/schemas/fields';

/**
 * hasAtMostDecimals: the exact decimal check of weights and quantities (kept as integer
 * milli-units). The check it replaced let anything within 1e-6 of a milli-unit through, so
 * 0.30000000000001 was accepted and silently stored as 0.3.
 */
describe('hasAtMostDecimals', () => {
  const three = hasAtMostDecimals(3);

  it.each([0, -0, 1, 0.3, 0.001, 1.005, 0.333, 999.999, -2.5, -0.001, 1_000_000_000, 999_999_999.999])('accepts %p with 3 decimals', (n) => expect(three(n)).toBe(true));

  it.each([0.30000000000001, 0.1 + 0.2, 0.3000001, 1.0001, 0.0005, -1.2345, 999.9995, Number.NaN, Number.POSITIVE_INFINITY])('refuses %p with 3 decimals', (n) => expect(three(n)).toBe(false));

  it('accepts every value written with 3 decimals, as JSON.parse reads it', () => {
    for (let k = -200_000; k <= 200_000; k += 1) {
      const text = `${k < 0 ? '-' : ''}${Math.floor(Math.abs(k) / 1000)}.${String(Math.abs(k) % 1000).padStart(3, '0')}`;
      if (!three(JSON.parse(text))) throw new Error(`${text} refused`);
    }
  });

  it('takes the number of decimals', () => {
    expect(hasAtMostDecimals(2)(7.5)).toBe(true);
    expect(hasAtMostDecimals(2)(0.07)).toBe(true);
    expect(hasAtMostDecimals(2)(7.505)).toBe(false);
    expect(hasAtMostDecimals(0)(3)).toBe(true);
    expect(hasAtMostDecimals(0)(3.1)).toBe(false);
  });
});
