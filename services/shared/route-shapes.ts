import type { z } from 'zod';
import type { ProblemRef } from './errors';
import type { ResponseHeader, RouteContract } from './area';

/**
 * The shapes most routes take, each with the conventions of the API written once
 * (docs/architecture.md, "Route shapes"): what a GET answers, which headers a write needs,
 * which status and headers it answers. An area writes only what is its own: path, scopes,
 * texts, schemas and problems. A route that differs from every shape declares its contract
 * whole, as before.
 */

/** What every shape leaves to the route: the fields of RouteContract that no shape fixes. */
type Own = Omit<RouteContract, 'method' | 'success' | 'problems' | 'ifMatch' | 'idempotencyKey'> & {
  /** The success body's schema. */
  readonly schema: z.ZodType;
  /** The success response's description (`The feedback.`). */
  readonly returns: string;
  /** @default [] */
  readonly problems?: readonly ProblemRef[];
};

/** `returns` and `schema` become the success response with the shape's status and headers; problems default to none. */
const answer = <const C extends Own>(c: C, status: number, headers?: readonly ResponseHeader[]) => {
  const { schema, returns, problems = [], ...own } = c;
  const success = { status, description: returns, schema, ...(headers ? { headers } : {}) };
  return { ...own, success, problems } as Omit<C, 'schema' | 'returns' | 'problems'> & { readonly success: RouteContract['success']; readonly problems: readonly ProblemRef[] };
};

/** GET of a page (`pageSchema(...)`): 200, no ETag (a page is no resource). */
export const listRoute = <const C extends Own & { readonly body?: never }>(c: C) =>
  ({ method: 'GET', ...answer(c, 200) }) as const;

/** GET of one resource, or of a part of it (a quote's items): 200 with the resource's ETag, the If-Match of the next write. */
export const readRoute = <const C extends Own & { readonly body?: never; readonly query?: never }>(c: C) =>
  ({ method: 'GET', ...answer(c, 200, ['ETag']) }) as const;

/** POST that creates a resource: Idempotency-Key required; 201 with its ETag and Location. */
export const createRoute = <const C extends Own & { readonly body: z.ZodType }>(c: C) =>
  ({ method: 'POST', idempotencyKey: 'required', ...answer(c, 201, ['ETag', 'Location']) }) as const;

/**
 * POST of a command on one resource (`/{id}/send`, a state transition): If-Match and
 * Idempotency-Key required; 200 with the resource after it and its new ETag.
 */
export const actionRoute = <const C extends Own>(c: C) =>
  ({ method: 'POST', ifMatch: 'required', idempotencyKey: 'required', ...answer(c, 200, ['ETag']) }) as const;

/**
 * POST that queues a job (an export, an integration job): Idempotency-Key required; 202 with
 * the QUEUED job and its Location, to poll for the result.
 */
export const jobRoute = <const C extends Own & { readonly body: z.ZodType }>(c: C) =>
  ({ method: 'POST', idempotencyKey: 'required', ...answer(c, 202, ['Location']) }) as const;

/**
 * PATCH of one resource (partial): If-Match required; 200 with the resource and its new ETag.
 * Idempotency-Key is the route's to say (docs/decisions.md: optional where a replay cannot
 * differ from a second call, required where it can).
 */
export const updateRoute = <const C extends Own & { readonly body: z.ZodType; readonly idempotencyKey: 'required' | 'optional' }>(c: C) =>
  ({ method: 'PATCH', ifMatch: 'required', ...answer(c, 200, ['ETag']) }) as const;

/**
 * DELETE that archives a resource or removes a part or link of it, answering what remains:
 * If-Match and Idempotency-Key optional (a repeat finds the change in place); 200 with the
 * resource after it and its new ETag.
 */
export const removeRoute = <const C extends Own & { readonly body?: never }>(c: C) =>
  ({ method: 'DELETE', ifMatch: 'optional', idempotencyKey: 'optional', ...answer(c, 200, ['ETag']) }) as const;
