import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { AUTHORIZER_CACHE_SECONDS } from '../authorizer/cache';
import { handler as authorizerHandler } from '../authorizer/handler';
import { AREAS } from '../registry';
import { setLocalIntegrationWorker } from '../integrations/store-queue';
import { setLocalReportWorker } from '../reports/store-queue';
import { FAKE_PAYROLL_PREFIX, fakePayroll } from './fake-payroll';
import { PUBLIC_ROUTES, ROUTES, resourcePath, SCIM_PREFIX, ORG_PREFIX, type ApiName, type RouteSpec } from '../routes';
import { PUBLIC_BASE_URL_VARIABLE } from '../shared/area';
import { policyAllows, type PolicyDocument } from '../shared/auth/policy';
import type { AccessLogLine } from '../shared/http/access-log';
import { allowHeader, API_ERROR_FORMAT, API_STAGES, ERROR_MEDIA_TYPE, FORWARD_HEADERS, FORWARDED_REQUEST_ID_HEADER, gatewayResponse, gatewayResponseBody, methodNotAllowedBody, type GatewayResponseType } from '../shared/http/gateway-responses';
import { loadAreaHandler, type ProxyHandler } from './areas';
import { checkJobQueueSend, guardObjectPermissions, guardSecretStore, guardTablePermissions, runAsFunction, type BucketRow } from './permissions';
import { checkLocalJobSends } from '../shared/aws/job-queue';
import { BUCKET_ENV, decorateS3Clients } from '../shared/aws/s3';
import { wrapLocalSecretStores } from '../shared/aws/secrets';
import type { S3Client } from '@aws-sdk/client-s3';
import { defaultDb } from '../shared/ddb/client';

/**
 * A local API Gateway: the same route table as the deployed REST APIs, the same REQUEST
 * authorizer (with a policy cache per token, as API Gateway keeps one), the same handlers,
 * invoked with API-Gateway-shaped proxy events, and the same gateway responses.
 */
export interface LocalGatewayOptions {
  readonly port: number;
  readonly host: string;
  /** Seconds a policy stays cached per Authorization header. @default AUTHORIZER_CACHE_SECONDS */
  readonly authorizerCacheSeconds?: number;
  /**
   * The per-key usage plan's throttle (token bucket per usage identifier), as API Gateway
   * applies it: over it, 429 RATE_LIMITED with Retry-After.
   * @default - no per-key throttling (tests and benchmarks send bursts on purpose)
   */
  readonly perKeyThrottle?: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * Where to append one JSON access-log line per request, with the deployed stages' fields
   * (services/shared/http/access-log.ts).
   * @default - no access log
   */
  readonly accessLogPath?: string;
  /**
   * The stages' `publicBaseUrl` variable (PUBLIC_BASE_URL_VARIABLE): the base of absolute
   * URLs in responses, never taken from the Host header.
   * @default - the gateway's own URL
   */
  readonly publicBaseUrl?: string;
}

export interface LocalGateway {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

const API_IDS: Readonly<Record<ApiName, string>> = { public: 'localpublic', scim: 'localscim' };
const MAX_REQUEST_BYTES = 10 * 1024 * 1024; // API Gateway's payload limit
const MAX_HEADER_BYTES = 10_240; // API Gateway's limit on the request line and header values
const LAMBDA_TIMEOUT_MS = 10_000;

interface CompiledRoute {
  readonly spec: RouteSpec;
  readonly resource: string;
  readonly segments: readonly string[];
  /** Per segment: the name of its `{parameter}`, or undefined for a literal (parsed once, not per request). */
  readonly params: readonly (string | undefined)[];
}

const compiled: readonly CompiledRoute[] = ROUTES.map((spec) => {
  const resource = resourcePath(spec);
  const segments = resource.split('/').slice(1);
  return { spec, resource, segments, params: segments.map((segment) => /^\{(.+)\}$/.exec(segment)?.[1]) };
});

interface Match {
  readonly route: CompiledRoute;
  readonly pathParameters: Record<string, string>;
}

/** The public routes (services/routes.ts PUBLIC_ROUTES) by path: served without a key. */
const publicByPath = new Map<string, (typeof PUBLIC_ROUTES)[number][]>();
for (const route of PUBLIC_ROUTES) publicByPath.set(route.path, [...(publicByPath.get(route.path) ?? []), route]);

/** Routes whose resource path matches `path`; literal segments win over `{parameters}`. */
export function matchPath(path: string): Match[] {
  const parts = path.split('/').slice(1);
  const matches: { match: Match; literals: number }[] = [];
  for (const route of compiled) {
    if (route.segments.length !== parts.length) continue;
    const pathParameters: Record<string, string> = {};
    let literals = 0;
    const ok = route.segments.every((segment, i) => {
      const param = route.params[i];
      if (param !== undefined) {
        if (parts[i] === '') return false;
        pathParameters[param] = safeDecode(parts[i]);
        return true;
      }
      literals += 1;
      return segment === parts[i];
    });
    if (ok) matches.push({ match: { route, pathParameters }, literals });
  }
  const best = Math.max(...matches.map((m) => m.literals));
  return matches.filter((m) => m.literals === best).map((m) => m.match);
}

/** The API a path belongs to, for gateway responses of unknown routes. */
export function apiOfPath(path: string): ApiName {
  const scimPrefix = new RegExp(`^${ORG_PREFIX.replace('{organizationId}', '[^/]+')}${SCIM_PREFIX}(/|$)`.replace(/\//g, '\\/'));
  return scimPrefix.test(path) ? 'scim' : 'public';
}

/** The permissions row that grants a local bucket's objects (the buckets the environment names). */
const localBucketRow = (bucket: string): BucketRow | undefined =>
  bucket === process.env[BUCKET_ENV.documents] ? 'documentsBucket' : bucket === process.env[BUCKET_ENV.reports] ? 'reportsBucket' : undefined;
const guardLocalS3 = (client: S3Client) => guardObjectPermissions(client, localBucketRow);

export async function startLocalGateway(options: LocalGatewayOptions): Promise<LocalGateway> {
  // As the functions: their S3 calls, secret-store access and queue sends must stay within their rows' grants (permissions.ts).
  decorateS3Clients(guardLocalS3);
  wrapLocalSecretStores(guardSecretStore);
  checkLocalJobSends(checkJobQueueSend);
  // Locally there is no SQS: a report job runs in this process after the response, as the
  // queue would run it. Loaded on first use, as the worker function is its own Lambda.
  setLocalReportWorker((message) =>
    runAsFunction('reports-worker', async () => {
      const [{ runReportJob }, { workerPorts }] = await Promise.all([import('../reports/domain-worker'), import('../reports/store-worker')]);
      await runReportJob(workerPorts(), message);
    }),
  );
  // The same for integration jobs (the API's and the sweeper's queue; the worker passes its own).
  setLocalIntegrationWorker((message) =>
    runAsFunction('integrations-worker', async () => {
      const [{ runIntegrationJob }, { workerPorts }] = await Promise.all([import('../integrations/domain-worker'), import('../integrations/store-worker')]);
      await runIntegrationJob(workerPorts(), message);
    }),
  );
  const cacheSeconds = options.authorizerCacheSeconds ?? AUTHORIZER_CACHE_SECONDS;
  const policyCache = new Map<string, { expires: number; result: APIGatewayAuthorizerResult }>();
  const handlers = new Map<string, ProxyHandler>();
  const buckets = new Map<string, { tokens: number; at: number }>();
  /** Set once the server listens (its own URL unless configured). */
  let publicBaseUrl = options.publicBaseUrl ?? '';

  /** The handler of an area or of a platform function: `services/<name>/handler.ts`, loaded once. */
  const handlerOf = async (name: string): Promise<ProxyHandler> => {
    let h = handlers.get(name);
    if (!h) {
      h = await loadAreaHandler(name);
      handlers.set(name, h);
    }
    return h;
  };

  // Larger than API Gateway's limit, so that its own check (below) answers, not Node's parser.
  const server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      // The gateway itself failed: answer like API Gateway's DEFAULT_5XX.
      console.error('local gateway error', error);
      if (!res.headersSent) sendGatewayResponse(res, 'DEFAULT_5XX', 'public', randomUUID(), req.url ?? '');
    });
  });

  // Requests Node cannot even parse (e.g. headers beyond maxHeaderSize) still get a problem
  // body and an X-Request-Id, as every response does.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return;
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const requestId = randomUUID();
    const body = JSON.stringify(headersTooLargeBody(requestId, tooLarge));
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\nContent-Type: application/problem+json\r\nX-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const started = Date.now();
    const access: AccessLogLine = { requestId, requestTime: new Date(started).toISOString(), ip: req.socket.remoteAddress ?? '127.0.0.1', method: req.method, path: (req.url ?? '/').split('?')[0] };
    if (options.accessLogPath) {
      const file = options.accessLogPath;
      // Written as the response ends (before the client can read it), so a caller sees its own line.
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      res.end = ((...args: unknown[]) => {
        const line: AccessLogLine = { ...access, status: String(res.statusCode), latency: String(Date.now() - started) };
        appendFileSync(file, `${JSON.stringify(line)}\n`);
        return end(...args);
      }) as typeof res.end;
    }
    // The raw path, as API Gateway matches it: no WHATWG normalization (which turns `\` into `/`).
    const raw = req.url ?? '/';
    const rawPath = raw.split('?')[0] || '/';
    const url = new URL(`http://localhost${raw.startsWith('/') ? '' : '/'}${raw.replace(/\\/g, '%5C')}`);
    // Matched without one trailing slash, as API Gateway routes `/thing/` to `/thing`; the event
    // keeps the path as sent (`eventPath`), as API Gateway's proxy event does.
    const path = rawPath.length > 1 ? rawPath.replace(/\/$/, '') : rawPath;
    const eventPath = rawPath;
    const method = (req.method ?? 'GET').toUpperCase();

    // API Gateway's limit on the request line and header values together.
    const headerBytes = Buffer.byteLength(`${method} ${raw}`) + req.rawHeaders.reduce((n, part) => n + Buffer.byteLength(part), 0);
    if (headerBytes > MAX_HEADER_BYTES) {
      const api = apiOfPath(path);
      send(res, 431, { 'Content-Type': ERROR_MEDIA_TYPE[API_ERROR_FORMAT[api]], 'X-Request-Id': requestId }, JSON.stringify(headersTooLargeBody(requestId, true, api, path)));
      return;
    }

    const body = await readBody(req);

    // Stand-ins of outside systems, local only (never deployed): the fake payroll provider.
    if (path === FAKE_PAYROLL_PREFIX || path.startsWith(`${FAKE_PAYROLL_PREFIX}/`)) return fakePayroll.handle(req, res, path, body);

    // The public routes (the API reference): no authorizer, no usage plan, as the stack deploys them.
    const publicRoutes = publicByPath.get(path);
    if (publicRoutes) {
      const route = publicRoutes.find((r) => r.method === method);
      if (!route) {
        const allow = allowHeader(publicRoutes.map((r) => r.method));
        send(res, 405, { 'Content-Type': ERROR_MEDIA_TYPE.problem, 'X-Request-Id': requestId, Allow: allow }, JSON.stringify(methodNotAllowedBody('problem', allow, { requestId, instance: path })));
        return;
      }
      if (body === undefined) return sendGatewayResponse(res, 'REQUEST_TOO_LARGE', 'public', requestId, path);
      access.resourcePath = route.path;
      const event = proxyEvent({ method, path: eventPath, resource: route.path, pathParameters: {}, headers: flatHeaders(req), multiValueHeaders: multiHeaders(req), query: parseQuery(url.search), body, requestId, api: 'public', sourceIp: req.socket.remoteAddress ?? '127.0.0.1' });
      return invoke(res, route.function, event, requestId, path);
    }

    const matches = matchPath(path);
    if (matches.length === 0) return sendGatewayResponse(res, 'MISSING_AUTHENTICATION_TOKEN', apiOfPath(path), requestId, path);
    const match = matches.find((m) => m.route.spec.method === method);
    if (!match) return sendMethodNotAllowed(res, matches, requestId, path);
    const api = match.route.spec.api;
    if (body === undefined) return sendGatewayResponse(res, 'REQUEST_TOO_LARGE', api, requestId, path);

    // A SCIM route is reached through the public API's forward, which sets its own headers.
    const { headers, multiValueHeaders } = api === 'scim' ? forwarded(req, requestId) : { headers: flatHeaders(req), multiValueHeaders: multiHeaders(req) };
    const query = parseQuery(url.search);
    const event = proxyEvent({
      method,
      path: eventPath,
      resource: match.route.resource,
      pathParameters: match.pathParameters,
      headers,
      multiValueHeaders,
      query,
      body,
      requestId,
      api,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    });
    event.stageVariables = { [PUBLIC_BASE_URL_VARIABLE]: publicBaseUrl };

    // Identity source: API Gateway answers 401 without calling the authorizer when it is absent.
    const authorization = Object.entries(headers).find(([k]) => k.toLowerCase() === 'authorization')?.[1];
    if (!authorization) return sendGatewayResponse(res, 'UNAUTHORIZED', api, requestId, path);

    const cacheKey = `${api}\n${authorization}`;
    let auth = policyCache.get(cacheKey);
    if (!auth || auth.expires <= Date.now()) {
      try {
        guardTablePermissions(defaultDb());
        const result = await runAsFunction('authorizer', () => authorizerHandler(authorizerEvent(event, api)));
        auth = { expires: Date.now() + cacheSeconds * 1000, result };
        if (cacheSeconds > 0) policyCache.set(cacheKey, auth);
      } catch (error) {
        if ((error as Error).message === 'Unauthorized') return sendGatewayResponse(res, 'UNAUTHORIZED', api, requestId, path);
        console.error('authorizer failed', error);
        return sendGatewayResponse(res, 'AUTHORIZER_FAILURE', api, requestId, path);
      }
    }
    if (!policyAllows(auth.result.policyDocument as unknown as PolicyDocument, methodArn(api, method, path))) {
      return sendGatewayResponse(res, 'ACCESS_DENIED', api, requestId, path);
    }
    if (options.perKeyThrottle && !takeToken(buckets, auth.result.usageIdentifierKey ?? auth.result.principalId, options.perKeyThrottle)) {
      return sendGatewayResponse(res, 'THROTTLED', api, requestId, path);
    }
    event.requestContext.authorizer = { principalId: auth.result.principalId, ...auth.result.context, integrationLatency: 0 };
    access.keyId = String(auth.result.context?.keyId ?? '');
    access.organizationId = String(auth.result.context?.organizationId ?? '');
    access.resourcePath = match.route.resource;

    return invoke(res, match.route.spec.area, event, requestId, path);
  }

  /** Runs the Lambda proxy handler of `name` and writes its result, as API Gateway would. */
  async function invoke(res: ServerResponse, name: string, event: APIGatewayProxyEvent, requestId: string, path: string): Promise<void> {
    const handler = await handlerOf(name);
    guardTablePermissions(defaultDb());
    let result: APIGatewayProxyResult;
    try {
      // As the function: its DynamoDB, S3 and secret-store calls must stay within its role's grants (permissions.ts).
      result = await runAsFunction(name, () => handler(event, lambdaContext(name, requestId)));
    } catch (error) {
      // An unhandled Lambda error is a 502 from API Gateway.
      console.error('handler failed', error);
      return sendGatewayResponse(res, 'INTEGRATION_FAILURE', event.requestContext.stage === API_STAGES.scim ? 'scim' : 'public', requestId, path);
    }
    const outHeaders: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
    for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) outHeaders[name] = values.map(String);
    send(res, result.statusCode, outHeaders, result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? ''));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${options.host}:${address.port}`;
  publicBaseUrl = options.publicBaseUrl ?? url;
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A token bucket per usage identifier: `burstLimit` tokens, refilled at `rateLimit` per second. */
function takeToken(buckets: Map<string, { tokens: number; at: number }>, key: string, limit: { readonly rateLimit: number; readonly burstLimit: number }): boolean {
  const now = Date.now();
  const bucket = buckets.get(key) ?? { tokens: limit.burstLimit, at: now };
  bucket.tokens = Math.min(limit.burstLimit, bucket.tokens + ((now - bucket.at) / 1000) * limit.rateLimit);
  bucket.at = now;
  buckets.set(key, bucket);
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

function proxyEvent(input: {
  method: string;
  path: string;
  resource: string;
  pathParameters: Record<string, string>;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  query: { single: Record<string, string>; multi: Record<string, string[]> };
  body: string;
  requestId: string;
  api: ApiName;
  sourceIp: string;
}): APIGatewayProxyEvent {
  const { method, path, resource, pathParameters, headers, multiValueHeaders, query, body, requestId, api, sourceIp } = input;
  const hasQuery = Object.keys(query.single).length > 0;
  return {
    resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query.single : null,
    multiValueQueryStringParameters: hasQuery ? query.multi : null,
    pathParameters,
    stageVariables: null,
    body: body === '' ? null : body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: API_IDS[api],
      stage: API_STAGES[api],
      requestId,
      extendedRequestId: requestId,
      resourceId: 'local',
      resourcePath: resource,
      httpMethod: method,
      path: `/${API_STAGES[api]}${path}`,
      protocol: 'HTTP/1.1',
      requestTime: new Date().toUTCString(),
      requestTimeEpoch: Date.now(),
      domainName: 'localhost',
      domainPrefix: 'localhost',
      authorizer: undefined,
      identity: {
        sourceIp,
        userAgent: headers['User-Agent'] ?? headers['user-agent'] ?? null,
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        user: null,
        userArn: null,
      },
    },
  };
}

const methodArn = (api: ApiName, method: string, path: string) =>
  `arn:aws:execute-api:local:000000000000:${API_IDS[api]}/${API_STAGES[api]}/${method}${path}`;

function authorizerEvent(event: APIGatewayProxyEvent, api: ApiName): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: methodArn(api, event.httpMethod, event.path),
    resource: event.resource,
    path: event.path,
    httpMethod: event.httpMethod,
    headers: event.headers as Record<string, string>,
    multiValueHeaders: event.multiValueHeaders as Record<string, string[]>,
    queryStringParameters: event.queryStringParameters as Record<string, string> | null,
    multiValueQueryStringParameters: event.multiValueQueryStringParameters as Record<string, string[]> | null,
    pathParameters: event.pathParameters as Record<string, string>,
    stageVariables: null,
    requestContext: event.requestContext as unknown as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

/** The area function's own timeout (its registry row), as Lambda would apply it. */
const timeoutMsOf = (area: string): number => (AREAS.find((a) => a.name === area)?.timeoutSeconds ?? LAMBDA_TIMEOUT_MS / 1000) * 1000;

function lambdaContext(area: string, requestId: string): Context {
  const deadline = Date.now() + timeoutMsOf(area);
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `wfm-local-${area}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:wfm-local-${area}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/wfm-local-${area}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function sendGatewayResponse(res: ServerResponse, type: GatewayResponseType, api: ApiName, requestId: string, path: string): void {
  const row = gatewayResponse(type);
  const format = API_ERROR_FORMAT[api];
  const body = gatewayResponseBody(row, format, { requestId, instance: path });
  send(res, row.status, { 'Content-Type': ERROR_MEDIA_TYPE[format], 'X-Request-Id': requestId, ...row.headers }, JSON.stringify(body));
}

/** API Gateway has no 405; the stack adds ANY methods that answer it (lib/constructs/api.ts). */
function sendMethodNotAllowed(res: ServerResponse, matches: Match[], requestId: string, path: string): void {
  const allow = allowHeader(matches.map((m) => m.route.spec.method));
  const format = API_ERROR_FORMAT[matches[0].route.spec.api];
  const body = methodNotAllowedBody(format, allow, { requestId, instance: path });
  send(res, 405, { 'Content-Type': ERROR_MEDIA_TYPE[format], 'X-Request-Id': requestId, Allow: allow }, JSON.stringify(body));
}

function send(res: ServerResponse, status: number, headers: Record<string, string | string[]>, body: string | Buffer): void {
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Headers as API Gateway hands them over: `headers` holds the last value of a repeated header
 * (`multiValueHeaders` all of them), never the values joined with a comma.
 */
function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) out[req.rawHeaders[i]] = req.rawHeaders[i + 1];
  return out;
}

function multiHeaders(req: IncomingMessage): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) (out[req.rawHeaders[i]] ??= []).push(req.rawHeaders[i + 1]);
  return out;
}

/**
 * The headers of a SCIM request as the deployed forward hands them to the SCIM API
 * (docs/deployment.md): every client-sent copy of a forward header (FORWARD_HEADERS, any
 * case) is dropped, and the forwarded request id is the public request's, so a client can
 * never choose the id that X-Request-Id, the logs and the audit entry carry. (X-Wfm-Origin is
 * the stack's secret, proof of the way in for the SCIM WebACL; locally there is neither, so
 * it is only dropped.)
 */
function forwarded(req: IncomingMessage, requestId: string): { headers: Record<string, string>; multiValueHeaders: Record<string, string[]> } {
  const internal = new Set(FORWARD_HEADERS.map((h) => h.toLowerCase()));
  const own = <T>(all: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(all).filter(([name]) => !internal.has(name.toLowerCase())));
  return {
    headers: { ...own(flatHeaders(req)), [FORWARDED_REQUEST_ID_HEADER]: requestId },
    multiValueHeaders: { ...own(multiHeaders(req)), [FORWARDED_REQUEST_ID_HEADER]: [requestId] },
  };
}

/** 431: headers larger than API Gateway takes, as a problem in the API's error format. */
function headersTooLargeBody(requestId: string, tooLarge: boolean, api: ApiName = 'public', instance = ''): unknown {
  const row = { type: 'DEFAULT_4XX' as const, status: tooLarge ? 431 : 400, code: 'BAD_REQUEST' as const, detail: tooLarge ? `The request line and headers exceed ${MAX_HEADER_BYTES} bytes.` : 'The request could not be parsed.' };
  return gatewayResponseBody(row, API_ERROR_FORMAT[api], { requestId, instance });
}

/**
 * Query parsing as API Gateway's REST proxy does it: form decoding, so `+` is a space and a
 * literal plus arrives as `%2B` (what URLSearchParams, curl --data-urlencode and most HTTP
 * clients send). Path segments are percent-decoded only: a `+` in a path stays a plus.
 */
export function parseQuery(search: string): { single: Record<string, string>; multi: Record<string, string[]> } {
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const pair of search.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = safeDecode((eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    const value = eq === -1 ? '' : safeDecode(pair.slice(eq + 1).replace(/\+/g, ' '));
    single[name] = value;
    (multi[name] ??= []).push(value);
  }
  return { single, multi };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
