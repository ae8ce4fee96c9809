import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { MiddlewareObj } from '@middy/core';
import { METRICS_NAMESPACE } from './config';
import { logger } from './logger';

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/**
 * Metrics and tracing, the one place that imports Powertools Metrics and Tracer: areas name
 * their figures (`BusinessMetric`) and never see EMF or X-Ray.
 *
 * Metrics are CloudWatch EMF lines on stdout (namespace POWERTOOLS_METRICS_NAMESPACE, default
 * `WFM`), with the dimensions `service` (POWERTOOLS_SERVICE_NAME) and `environment`
 * (API_ENVIRONMENT) on every line. Dimensions hold only values from fixed, small sets
 * (operation names, status classes, problem codes): every distinct combination is a custom
 * metric that costs money each month. The organization and request ids ride as properties
 * (metadata) of the line, searchable in Logs Insights, never as dimensions. No metric, dimension
 * or property ever carries personal data: names and values here are code constants and ids.
 * Published in Lambda, or wherever POWERTOOLS_METRICS_DISABLED=false (tests that read the lines).
 *
 * Tracing is Powertools Tracer (X-Ray SDK), loaded only where it can work: in Lambda
 * (AWS_EXECUTION_ENV set), not under SAM, and unless POWERTOOLS_TRACE_ENABLED=false. Elsewhere
 * (npm start, jest, the CLI) its module is never evaluated: no cost and no "missing context" noise.
 * The stack sets POWERTOOLS_TRACE_ENABLED=false unless deployed with `-c sdkTracing=true`, which
 * also attaches the layer that holds the Tracer (deployed bundles never contain it).
 * Responses are never captured (they hold personal data); errors are.
 */

/** The figures the areas own: name -> unit. Documented in docs/operations.md. */
export const BUSINESS_METRICS = {
  /** timesheets */
  TimeEntriesCreated: MetricUnit.Count,
  TimeEntriesCorrected: MetricUnit.Count,
  TimeEntriesVoided: MetricUnit.Count,
  /** A create or correction refused with TIME_ENTRY_OVERLAP. */
  OverlapRejections: MetricUnit.Count,
  /** scim: the outcome of each committed write */
  ScimUsersCreated: MetricUnit.Count,
  ScimUsersRelinked: MetricUnit.Count,
  ScimUsersUpdated: MetricUnit.Count,
  ScimUsersDeactivated: MetricUnit.Count,
  ScimUsersReactivated: MetricUnit.Count,
  ScimUsersDeleted: MetricUnit.Count,
  /** reports worker: one per finished export job */
  ExportsSucceeded: MetricUnit.Count,
  ExportsFailed: MetricUnit.Count,
  ExportDuration: MetricUnit.Milliseconds,
} as const;
export type BusinessMetric = keyof typeof BUSINESS_METRICS;

/** What an area records figures on. A write's figures count only once its transaction committed. */
export interface MetricsRecorder {
  /** Adds `value` (default 1) to a count. */
  count(name: BusinessMetric, value?: number): void;
  /** Records one duration in milliseconds. */
  duration(name: BusinessMetric, ms: number): void;
}

/** Figures held until they may be published (a write attempt's, until its commit). */
export class MetricsBuffer implements MetricsRecorder {
  private readonly values: Array<readonly [BusinessMetric, number]> = [];
  count(name: BusinessMetric, value = 1): void {
    this.values.push([name, value]);
  }
  duration(name: BusinessMetric, ms: number): void {
    this.values.push([name, Math.round(ms)]);
  }
  /** Takes over another buffer's figures (a committed attempt's). */
  absorb(other: MetricsBuffer): void {
    this.values.push(...other.values);
  }
  get entries(): ReadonlyArray<readonly [BusinessMetric, number]> {
    return this.values;
  }
}

/** Generic figures of every API request (emitted by the area kit). */
export const REQUEST_METRICS = {
  /** Dimensions operation, statusClass (2xx, 3xx, 4xx, 5xx). */
  Requests: MetricUnit.Count,
  /** Dimension code: each error response, by its problem code. */
  Problems: MetricUnit.Count,
  /** A write answered from the idempotency record (Idempotency-Replayed). */
  IdempotentReplays: MetricUnit.Count,
} as const;

export interface RequestFigures {
  readonly operation: string;
  readonly statusCode: number;
  /** The problem code of an error response. */
  readonly problemCode?: string;
  readonly replayed: boolean;
  readonly organizationId?: string;
  readonly requestId?: string;
  readonly figures?: MetricsBuffer;
}

/**
 * Whether this process publishes metrics: as POWERTOOLS_METRICS_DISABLED says when set, else in
 * Lambda only (AWS_EXECUTION_ENV), so that `npm start`, jest and the bench print no EMF lines.
 */
export function metricsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = (env.POWERTOOLS_METRICS_DISABLED ?? '').toLowerCase();
  if (flag !== '') return flag !== 'true' && flag !== '1';
  return Boolean(env.AWS_EXECUTION_ENV);
}

let metrics: Metrics | undefined;

/** One Metrics per process, made on first use so that tests and `npm start` can set the environment first. */
function processMetrics(): Metrics {
  metrics ??= new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE,
    serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'wfm-api',
    defaultDimensions: { environment: process.env.API_ENVIRONMENT || 'LOCAL' },
  });
  return metrics;
}

/** Dimension values come from fixed sets; anything else is refused rather than published. */
const DIMENSION_VALUE = /^[A-Za-z0-9_.-]{1,64}$/;

interface Line {
  readonly dimensions: Readonly<Record<string, string>>;
  readonly values: ReadonlyArray<readonly [string, Unit, number]>;
  readonly metadata: Readonly<Record<string, string | undefined>>;
}

/**
 * One EMF line: publishing is synchronous, so lines of requests served at once in one process
 * (the local gateway) never mix.
 */
function publish(line: Line): void {
  try {
    publishLine(line);
  } catch (error) {
    // A metric must never fail the request it describes.
    logger.error('Metric line dropped: publishing failed', { error: error as Error });
  }
}

function publishLine(line: Line): void {
  if (line.values.length === 0 || !metricsEnabled()) return;
  const m = processMetrics();
  for (const [name, value] of Object.entries(line.dimensions)) {
    if (!DIMENSION_VALUE.test(value)) {
      // Never the value itself: it is not one of ours. A metric must never fail a request.
      logger.error('Metric line dropped: a dimension value is outside its fixed set', { dimension: name });
      return;
    }
  }
  // addDimension, not addDimensions: one dimension set with the default ones (service, environment).
  for (const [name, value] of Object.entries(line.dimensions)) m.addDimension(name, value);
  for (const [name, unit, value] of line.values) m.addMetric(name, unit, value);
  for (const [key, value] of Object.entries(line.metadata)) if (value !== undefined) m.addMetadata(key, value);
  m.publishStoredMetrics();
}

const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

/**
 * The lines of one API request: requests by operation and status class, the problem code of an
 * error, and the idempotent replay and the area's committed figures (service-wide, no operation).
 */
export function publishRequestFigures(request: RequestFigures): void {
  const metadata = { organizationId: request.organizationId, requestId: request.requestId };
  publish({ dimensions: { operation: request.operation, statusClass: statusClass(request.statusCode) }, values: [['Requests', REQUEST_METRICS.Requests, 1]], metadata });
  if (request.problemCode) publish({ dimensions: { code: request.problemCode }, values: [['Problems', REQUEST_METRICS.Problems, 1]], metadata });
  const values: Array<readonly [string, Unit, number]> = (request.figures?.entries ?? []).map(([name, value]) => [name, BUSINESS_METRICS[name], value] as const);
  if (request.replayed) values.push(['IdempotentReplays', REQUEST_METRICS.IdempotentReplays, 1]);
  publish({ dimensions: {}, values, metadata });
}

/** Publishes figures outside an API request (the report worker), service-wide. */
export function publishFigures(figures: MetricsBuffer, metadata: Readonly<Record<string, string | undefined>> = {}): void {
  publish({ dimensions: {}, values: figures.entries.map(([name, value]) => [name, BUSINESS_METRICS[name], value] as const), metadata });
}

// ---- tracing -------------------------------------------------------------------------------

type TracerModule = typeof import('@aws-lambda-powertools/tracer');
type TracerMiddlewareModule = typeof import('@aws-lambda-powertools/tracer/middleware');

/** Whether this process traces: in Lambda only, and unless POWERTOOLS_TRACE_ENABLED=false. */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.AWS_EXECUTION_ENV) && !env.AWS_SAM_LOCAL && (env.POWERTOOLS_TRACE_ENABLED ?? '').toLowerCase() !== 'false';
}

let tracer: Tracer | null | undefined;

/**
 * The process's Tracer, or null when tracing is off. `require`, not `import`: it is evaluated only
 * here, so a process that does not trace never pays for loading the X-Ray SDK (see
 * docs/performance.md, "Metrics and tracing").
 */
function processTracer(): Tracer | null {
  if (tracer === undefined) {
    tracer = tracingEnabled() ? loadTracer() : null;
  }
  return tracer;
}

/**
 * The deployed bundles leave the Tracer out (lib/constructs/tracer-layer.ts): it comes from the
 * TracerLayer where SDK tracing is on. Missing, the function runs untraced rather than failing.
 */
function loadTracer(): Tracer | null {
  try {
    return new (require('@aws-lambda-powertools/tracer') as TracerModule).Tracer({ captureHTTPsRequests: false });
  } catch (error) {
    logger.warn('Tracing is enabled but the Tracer cannot be loaded (is the tracer layer attached?); running untraced', { error: error as Error });
    return null;
  }
}

/** An AWS SDK v3 client whose calls become X-Ray subsegments when tracing; the client itself otherwise. */
export function traceClient<T>(client: T): T {
  const t = processTracer();
  return t ? t.captureAWSv3Client(client) : client;
}

/** The middy middleware that opens the handler's subsegment (cold start and service annotations), or none. */
export function tracingMiddleware<E, R>(): MiddlewareObj<E, R> | undefined {
  const t = processTracer();
  if (!t) return undefined;
  const { captureLambdaHandler } = require('@aws-lambda-powertools/tracer/middleware') as TracerMiddlewareModule;
  return captureLambdaHandler(t, { captureResponse: false }) as unknown as MiddlewareObj<E, R>;
}
