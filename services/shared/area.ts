import type { z } from 'zod';
import type { Scope } from './auth/scopes';
import type { ProblemRef, ProblemTable } from './errors';
import type { FunctionPermissions } from './permissions';

/**
 * How a resource area declares itself: once, in `services/<area>/area.ts`, listed in
 * services/registry.ts. The CDK stack (functions, permissions, routes), the local gateway,
 * the handler's dispatch and input parsing, the OpenAPI document and the audit filter all
 * read these declarations; nothing else names an area. docs/architecture.md walks through
 * adding one.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Which REST API serves the route: `public` (problem+json errors) or `scim` (its own REST
 * API and stage, with gateway responses in the SCIM error schema).
 */
export type ApiName = 'public' | 'scim';

export const ORG_PREFIX = '/v1/organizations/{organizationId}';

/**
 * The stage variable that holds the public base URL of the API (scheme, host and any stage
 * path before ORG_PREFIX, e.g. `https://api.test.example.com`): configuration of the stage,
 * set by the stack and by the local gateway, never taken from request headers.
 */
export const PUBLIC_BASE_URL_VARIABLE = 'publicBaseUrl';
export const SCIM_PREFIX = '/scim/v2';

/** `required`: missing is an error; `optional`: honoured when sent. */
export type HeaderNeed = 'required' | 'optional';

export type ResponseHeader = 'ETag' | 'Location' | 'Idempotency-Replayed' | 'Content-Disposition' | 'Cache-Control';

/**
 * One operation: its HTTP route, who may call it, what it accepts and what it answers.
 * The shared handler layer enforces every input rule written here before the operation
 * runs (services/shared/http/area-handler.ts), and the OpenAPI document is generated from
 * it (services/openapi/document.ts), so the two cannot drift.
 */
export interface RouteContract {
  readonly method: HttpMethod;
  /** Resource path relative to ORG_PREFIX, API Gateway style (`/materials/{materialId}`). */
  readonly path: string;
  /** Every scope listed is required. */
  readonly scopes: readonly Scope[];
  /**
   * At least one of these is required as well (a route over several areas, e.g. a search whose
   * results the operation gates per area): a key with none of them is 403 SCOPE_REQUIRED.
   * @default - none
   */
  readonly anyOfScopes?: readonly Scope[];
  readonly summary: string;
  /** What the operation does, for the reference; scopes, headers and problems are added. */
  readonly description: string;
  /**
   * Path parameters that are not UUIDs (e.g. SCIM's schema ids). Every other `{param}` must be
   * a UUID: anything else names nothing and is answered 404, as an unknown id is.
   * @default - every path parameter is a UUID
   */
  readonly textParams?: readonly string[];
  /**
   * The strict query schema; every key is a query parameter.
   * @default - no query parameters: any parameter is 422
   */
  readonly query?: z.ZodObject;
  /**
   * The strict body schema (input side).
   * @default - no body: a body other than `{}` is 422
   */
  readonly body?: z.ZodType;
  /** The body may be left out (e.g. a command without input that also accepts `{}`). @default false */
  readonly bodyOptional?: boolean;
  /**
   * Idempotency-Key: writes are run once per key (replays, 409 on reuse with another input).
   * @default - not read
   */
  readonly idempotencyKey?: HeaderNeed;
  /**
   * The operation's only effect is the one transaction the kit commits with the idempotency
   * record (no commit of its own, no effect before it): no IN_PROGRESS lock is taken (one
   * call less). The record commits on the condition that its key is free, so a concurrent
   * duplicate loses in its transaction and replays; the store may read the record along with
   * its first reads (`unit.readAlong`). decisions.md: the lock is skipped only where the
   * transaction alone decides.
   * @default false - the IN_PROGRESS lock is taken before the operation runs
   */
  readonly idempotencyInTransaction?: boolean;
  /**
   * The stored response of this route (its idempotency record, kept 24 h for replays) concerns
   * a personal-data subject whose erasure must reach it: the record goes on the subject's
   * sparse index (GSI1 `IDEMSUBJ#<org>#<type>#<id>`), where the area's erasure finds it and
   * replaces the response by a tombstone (`eraseStoredResponses`, shared/http/idempotent.ts).
   * Needs `idempotencyKey`; only routes whose responses carry the subject's personal values.
   * @default - the stored response concerns no erasable subject (off the index)
   */
  readonly erasableSubject?: ErasableSubject;
  /**
   * The success response holds a secret shown once or a short-lived credential (a presigned
   * URL): the kit sends it with `Cache-Control: no-store` (no browser, proxy or client cache
   * keeps it), in the stored response too, so an idempotent replay says the same; the OpenAPI
   * document lists the header.
   * @default false - no Cache-Control
   */
  readonly noStore?: boolean;
  /**
   * If-Match: `required` answers 428 ETAG_REQUIRED without it; the operation compares it.
   * @default - not read
   */
  readonly ifMatch?: HeaderNeed;
  readonly success: {
    readonly status: number;
    readonly description: string;
    /** The response body schema (output side); registered schemas become components. */
    readonly schema?: z.ZodType;
    readonly headers?: readonly ResponseHeader[];
    /** Non-JSON content (files), by media type: a JSON Schema each. */
    readonly content?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
    /**
     * Another success status the route answers with the same body and headers, and when (an
     * attach of a document already attached answers 200 where a new attachment answers 201);
     * the OpenAPI document lists both.
     * @default - the route answers `status` only
     */
    readonly alsoStatus?: { readonly status: number; readonly description: string };
  };
  /** The problem codes particular to this operation; the ones its inputs imply are added. */
  readonly problems: readonly ProblemRef[];
  /**
   * The reference's example request body and response, where the one generated from the
   * schemas (services/openapi/examples.ts) cannot satisfy them; each must still parse with its
   * schema (test/unit/openapi-examples.test.ts).
   * @default - generated from `body` and `success.schema`
   */
  readonly examples?: { readonly request?: unknown; readonly response?: unknown };
}

/**
 * Whose personal data a route's stored response holds: the subject's `type` (e.g. `candidate`)
 * and where its id is: a path parameter of the route (`{ param: 'candidateId' }`), or a string
 * member of the success body (`{ responseMember: 'id' }`, for the create that names it).
 */
export interface ErasableSubject {
  readonly type: string;
  readonly idFrom: { readonly param: string } | { readonly responseMember: string };
}

/** A Lambda function and what it may do. */
export interface FunctionDefinition {
  /** kebab-case; also the construct id (`reports-worker` -> `ReportsWorkerFunction`). */
  readonly name: string;
  /** The module exporting `handler`, from the project root. @default `services/<name>/handler.ts` */
  readonly entry?: string;
  readonly permissions: FunctionPermissions;
  /** @default 10 - seconds */
  readonly timeoutSeconds?: number;
  /** What the function is for, in the stack's description of it. */
  readonly description: string;
  /**
   * Routes this function serves WITHOUT a key: no authorizer, no API key, no usage plan (the
   * WebACL still applies). Only for documents anyone may read (the API reference).
   * @default - none
   */
  readonly publicRoutes?: readonly PublicRoute[];
  /**
   * Files the function reads at run time, copied beside its bundle: file name -> path from
   * the project root (e.g. a renderer's browser bundle from node_modules).
   * @default - none
   */
  readonly assets?: Readonly<Record<string, string>>;
}

/**
 * A route on the public REST API outside the organization prefix that anyone may call: the
 * local gateway and the stack serve it without the key authorizer and without an API key.
 */
export interface PublicRoute {
  readonly method: 'GET';
  /** The full resource path, e.g. `/docs` (not below ORG_PREFIX). */
  readonly path: string;
  /** Names the response in the function's handler. */
  readonly operation: string;
  readonly summary: string;
}

/** A resource area: one Lambda function behind the routes it declares. */
export interface AreaDefinition<N extends string = string, R extends Readonly<Record<string, RouteContract>> = Readonly<Record<string, RouteContract>>> {
  /** The folder under services/ (kebab-case); its `handler.ts` serves every route below. */
  readonly name: N;
  readonly api: ApiName;
  /** The OpenAPI tag's description. */
  readonly description: string;
  readonly permissions: FunctionPermissions;
  /** The function's timeout (the local gateway applies it too). @default 10 - seconds */
  readonly timeoutSeconds?: number;
  /** The `entity.type` values of the audit entries the area writes (GET /audit filters on them). */
  readonly auditEntityTypes: readonly string[];
  /**
   * The area's own problem codes (`services/<area>/problems.ts`); the registry checks them for
   * clashes and docs/errors.md documents each.
   * @default - none: the area only meets platform codes
   */
  readonly problems?: ProblemTable;
  /**
   * The local runtime seeds demo records from `services/<area>/seed.ts` (export `seed`), in
   * registry order; never part of a Lambda bundle.
   * @default false
   */
  readonly demoSeed?: boolean;
  /** Response schemas shown as OpenAPI components, by name. */
  readonly schemas: Readonly<Record<string, z.ZodType>>;
  /** The operations, by name: each becomes one route, and the handler must implement each. */
  readonly routes: R;
  /** Further functions the area owns (queue workers, schedules), each with its own permissions. */
  readonly functions?: readonly FunctionDefinition[];
  /**
   * Replaces the generated OpenAPI operation (SCIM: RFC 7644 payloads and error schema).
   * @default - generated from the route contract
   */
  readonly openapi?: {
    readonly operation: (route: RouteRow) => Record<string, unknown>;
    readonly components?: Readonly<Record<string, unknown>>;
  };
}

/** Declares an area; `const` keeps operation names and header needs literal for the handler's types. */
export const defineArea = <const N extends string, const R extends Readonly<Record<string, RouteContract>>>(area: AreaDefinition<N, R>): AreaDefinition<N, R> => area;

/** One route of the flat route table: the contract, with the area and operation it belongs to. */
export interface RouteRow extends RouteContract {
  readonly area: string;
  readonly operation: string;
  readonly api: ApiName;
}

/** A public route with the function that serves it. */
export interface PublicRouteRow extends PublicRoute {
  readonly function: string;
}

/** The rows of one area, in declaration order. */
export const routeRows = (area: AreaDefinition): RouteRow[] =>
  Object.entries(area.routes).map(([operation, contract]) => ({ ...contract, area: area.name, operation, api: area.api }));

/** The full API Gateway resource path of a route. */
export const resourcePath = (r: Pick<RouteContract, 'path'>): string => `${ORG_PREFIX}${r.path}`;

/** `GET /v1/organizations/{organizationId}/timesheets` */
export const routeKey = (method: string, resource: string): string => `${method.toUpperCase()} ${resource}`;

/** The `{name}` parameters of a path, in order. */
export const pathParamNames = (path: string): string[] => [...path.matchAll(/\{([^}+]+)\+?\}/g)].map((m) => m[1]);

/** The module of a function: `services/<name>/handler.ts` unless it names another. */
export const handlerEntry = (fn: Pick<FunctionDefinition, 'name' | 'entry'>): string => fn.entry ?? `services/${fn.name}/handler.ts`;

/** `reports-worker` -> `ReportsWorkerFunction`: stable construct ids derived from the name. */
export const functionConstructId = (name: string): string =>
  `${name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Function`;
