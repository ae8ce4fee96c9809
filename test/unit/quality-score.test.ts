import { percentHundredths, percentOf, weightedScore } from '../../services/quality/domain-score';
import { toMilli } from '../../services/quality/domain';

/** The weighted score is an exact fraction: awkward weights never drift, rounding happens once. */
const item = (weight: number, score: number, scaleMax: number) => ({ weightMilli: toMilli(weight), score, scaleMax });
const fraction = (s: { numerator: bigint; denominator: bigint }) => `${s.numerator}/${s.denominator}`;

describe('weightedScore', () => {
  it('is sum(w * s / max) / sum(w), reduced', () => {
    expect(fraction(weightedScore([item(1, 5, 5), item(1, 0, 5)]))).toBe('1/2');
    expect(fraction(weightedScore([item(2, 3, 4), item(1, 1, 2)]))).toBe('2/3');
    expect(fraction(weightedScore([item(1, 10, 10)]))).toBe('1/1');
    expect(fraction(weightedScore([item(1, 0, 10)]))).toBe('0/1');
  });

  it('stays exact with weights 0.1, 0.2 and 0.7 (where floats give 0.30000000000000004)', () => {
    const s = weightedScore([item(0.1, 1, 1), item(0.2, 1, 1), item(0.7, 0, 1)]);
    expect(fraction(s)).toBe('3/10');
    expect(percentOf(s)).toBe(30);
  });

  it('stays exact with thirds, tiny and huge weights and mixed scales', () => {
    const s = weightedScore([item(0.333, 2, 3), item(0.333, 1, 3), item(0.334, 3, 3)]);
    // (0.333*2/3 + 0.333*1/3 + 0.334) / 1 = 0.222 + 0.111 + 0.334 = 0.667
    expect(fraction(s)).toBe('667/1000');
    const t = weightedScore([item(0.001, 1, 7), item(999.999, 6, 7)]);
    // (0.001/7 + 999.999*6/7) / 1000 = (1 + 5999994) / 7000000
    expect(fraction(t)).toBe(`${5999995 / 5}/${7000000 / 5}`);
    expect(percentOf(t)).toBe(85.71);
  });

  it('rounds the percentage half-up once, from the exact fraction', () => {
    expect(percentHundredths({ numerator: 5n, denominator: 6n })).toBe(8333n);
    expect(percentHundredths({ numerator: 1n, denominator: 8n })).toBe(1250n);
    expect(percentHundredths({ numerator: 1n, denominator: 20000n })).toBe(1n); // 0.005 % -> 0.01 (half-up)
    expect(percentHundredths({ numerator: 1n, denominator: 20001n })).toBe(0n);
    expect(percentHundredths({ numerator: 2n, denominator: 3n })).toBe(6667n);
    expect(percentOf({ numerator: 1n, denominator: 1n })).toBe(100);
  });

  it('refuses an empty list', () => {
    expect(() => weightedScore([])).toThrow();
  });
});
