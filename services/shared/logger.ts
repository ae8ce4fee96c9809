import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One logger per process. Log ids only: never the bearer token, request or response bodies,
 * typed addresses, coordinates, names, e-mail addresses or bank data. The service name comes
 * from POWERTOOLS_SERVICE_NAME (set per function by the stack), the level from
 * POWERTOOLS_LOG_LEVEL.
 *
 * Keys of the request being served (request id, route, key id, organization) live in an
 * AsyncLocalStorage scope per request, not in the logger: one process serves many requests
 * at once locally (and a Lambda may one day, with response streaming), and every line must
 * carry its own request's keys.
 */
const scope = new AsyncLocalStorage<Record<string, unknown>>();

type Message = Parameters<Logger['info']>[0];
type ExtraInput = Parameters<Logger['info']> extends [unknown, ...infer Rest] ? Rest : never;
type Attributes = Record<string, unknown>;

class ScopedLogger extends Logger {
  override debug(input: Message, ...extra: ExtraInput): void {
    super.debug(input, ...withScope(extra));
  }
  override info(input: Message, ...extra: ExtraInput): void {
    super.info(input, ...withScope(extra));
  }
  override warn(input: Message, ...extra: ExtraInput): void {
    super.warn(input, ...withScope(extra));
  }
  override error(input: Message, ...extra: ExtraInput): void {
    super.error(input, ...withScope(extra));
  }
}

/** The request's keys first, so that a line's own attributes win. */
function withScope(extra: ExtraInput): ExtraInput {
  const keys = scope.getStore();
  if (!keys || Object.keys(keys).length === 0) return extra;
  const [first] = extra;
  if (typeof first === 'string') return [{ ...keys, detail: first }] as unknown as ExtraInput;
  if (first instanceof Error) return [{ ...keys, error: first }] as unknown as ExtraInput;
  return [{ ...keys }, ...(extra as Attributes[])] as unknown as ExtraInput;
}

export const logger = new ScopedLogger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'wfm-api' });

/** Runs `work` in a log scope of its own: keys added inside reach only its lines. */
export const withLogScope = <T>(work: () => T): T => scope.run({}, work);

/** Adds keys to every later line of the current request (or of the process, outside a request). */
export function addLogKeys(keys: Record<string, unknown>): void {
  const store = scope.getStore();
  if (store) Object.assign(store, keys);
  else logger.appendKeys(keys as Parameters<Logger['appendKeys']>[0]);
}
