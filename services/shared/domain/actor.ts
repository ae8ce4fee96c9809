import type { Principal } from '../auth/principal';

/**
 * Who asks, and under which request ID: the API key of the request (its id and label are the
 * audit actor; the request ID is the response's X-Request-Id). Use cases take an Actor,
 * never the HTTP event.
 */
export interface Actor {
  readonly principal: Principal;
  readonly requestId: string;
}

/** An internal writer that is not an API key (the evidence channel, the report worker). */
export interface SystemActor {
  /** Shown as the audit actor's label, e.g. `Evidence ingest`. */
  readonly system: string;
  readonly organizationId: string;
  /** Correlates the audit entry with the log lines of the work that made it. */
  readonly requestId: string;
}

export const organizationOf = (actor: Actor | SystemActor): string => ('principal' in actor ? actor.principal.organizationId : actor.organizationId);
