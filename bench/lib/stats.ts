/** Small statistics helpers of the benchmarks. */
export const median = (values: readonly number[]): number => percentile(values, 50);

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const round = (value: number, digits = 2): number => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

/** Milliseconds since `start` (a performance.now() value). */
export const since = (start: number): number => performance.now() - start;

export interface LatencySummary {
  readonly n: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
}

export const summarize = (samples: readonly number[]): LatencySummary => ({
  n: samples.length,
  p50Ms: round(percentile(samples, 50)),
  p95Ms: round(percentile(samples, 95)),
  p99Ms: round(percentile(samples, 99)),
});
