/**
 * Helpers of the metrics-*.test.ts files (not a test file itself): the EMF lines that
 * services/shared/observability.ts writes to stdout, read as CloudWatch would. Metrics publish
 * outside Lambda only when POWERTOOLS_METRICS_DISABLED=false, set here before the first request.
 */
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.POWERTOOLS_METRICS_NAMESPACE = 'WFM-test';

export interface EmfLine {
  readonly _aws: { readonly CloudWatchMetrics: ReadonlyArray<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string; Unit: string }> }> };
  readonly [key: string]: unknown;
}

/** The dimensions a line may have: fixed, small sets only (docs/operations.md). */
export const ALLOWED_DIMENSIONS = ['service', 'environment', 'operation', 'statusClass', 'code'];

export interface EmfCapture {
  /** Everything written as EMF since the last reset. */
  text(): string;
  lines(): EmfLine[];
  /** The lines that carry metric `name`. */
  withMetric(name: string): EmfLine[];
  /** The sum of metric `name` over the lines. */
  total(name: string): number;
  reset(): void;
}

/** Captures EMF lines from stdout in each test (beforeEach/afterEach of the calling file). */
export function captureEmf(): EmfCapture {
  let written: string[] = [];
  beforeEach(() => {
    written = [];
    const write = process.stdout.write.bind(process.stdout);
    jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' && chunk.includes('"_aws"')) {
        written.push(chunk);
        return true;
      }
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write);
  });
  afterEach(() => jest.restoreAllMocks());
  const lines = (): EmfLine[] => written.flatMap((chunk) => chunk.split('\n').filter((l) => l.trim() !== '')).map((l) => JSON.parse(l) as EmfLine);
  const names = (line: EmfLine): string[] => line._aws.CloudWatchMetrics.flatMap((m) => m.Metrics.map((x) => x.Name));
  const withMetric = (name: string) => lines().filter((l) => names(l).includes(name));
  return {
    text: () => written.join(''),
    lines,
    withMetric,
    total: (name) => withMetric(name).reduce((sum, l) => sum + Number(l[name]), 0),
    reset: () => {
      written = [];
    },
  };
}

/** The gateway publishes a request's lines as its handler returns: give the event loop a turn. */
export const settle = (): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, 50));
