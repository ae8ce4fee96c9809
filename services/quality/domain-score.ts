/**
 * The exact weighted score of an inspection: sum(weight_i * score_i / scaleMax_i) / sum(weight_i),
 * a fraction of 1 computed with integers only (weights are milli-units, scores whole numbers),
 * so no weight however awkward (0.001, 1/3 written as 0.333, 999.999) drifts. The percentage
 * shown is rounded half-up to two decimals from the exact fraction, once, at the end.
 */
export interface ScoredItem {
  readonly weightMilli: number;
  readonly scaleMax: number;
  readonly score: number;
}

export interface ExactScore {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const gcd = (a: bigint, b: bigint): bigint => {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
};

const reduce = (n: bigint, d: bigint): ExactScore => {
  const g = gcd(n, d) || 1n;
  return { numerator: n / g, denominator: d / g };
};

/** The weighted score of scored items as a reduced fraction of 1 (0/1 .. 1/1). */
export function weightedScore(items: readonly ScoredItem[]): ExactScore {
  if (items.length === 0) throw new Error('A score needs at least one item.');
  let n = 0n;
  let d = 1n;
  let totalWeight = 0n;
  for (const item of items) {
    const w = BigInt(item.weightMilli);
    const m = BigInt(item.scaleMax);
    // n/d + w*s/m
    ({ numerator: n, denominator: d } = reduce(n * m + w * BigInt(item.score) * d, d * m));
    totalWeight += w;
  }
  if (totalWeight <= 0n) throw new Error('The weights must add up to more than zero.');
  return reduce(n, d * totalWeight);
}

/** The score in hundredths of a percent, rounded half-up: 5/6 -> 8333 (83.33 %). */
export function percentHundredths(score: ExactScore): bigint {
  return (score.numerator * 20000n + score.denominator) / (2n * score.denominator);
}

/** The percentage as a JSON number with at most two decimals (83.33). */
export const percentOf = (score: ExactScore): number => Number(percentHundredths(score)) / 100;
