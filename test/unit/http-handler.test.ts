import { PROBLEMS as TIMESHEET_PROBLEMS } from '../../services/timesheets/problems';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { z } from 'zod';
import { defineArea } from '../../services/shared/area';
import { areaHandler, responseSubject, withAbsoluteLocation } from '../../services/shared/http/area-handler';
import { requestIdOf } from '../../services/shared/http/middleware';
import { noContent, ok } from '../../services/shared/http/request';
import { AppError } from '../../services/shared/errors';

const ORG = '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f';
const context = { getRemainingTimeInMillis: () => 10_000, functionName: 'test', awsRequestId: 'aws-req' } as unknown as Context;

function event(over: Partial<APIGatewayProxyEvent> & { scopes?: string; org?: string } = {}): APIGatewayProxyEvent {
  const { scopes = 'audit:read', org = ORG, ...rest } = over;
  return {
    resource: '/v1/organizations/{organizationId}/audit',
    path: `/v1/organizations/${ORG}/audit`,
    httpMethod: 'GET',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { organizationId: ORG },
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-123',
      authorizer: { principalId: 'key1', organizationId: org, keyId: 'key1', keyLabel: 'Label', environment: 'TEST', scopes },
    } as unknown as APIGatewayProxyEvent['requestContext'],
    ...rest,
  };
}

const querySchema = z.object({ limit: z.string().regex(/^\d+$/).optional(), boom: z.string().optional() }).strict();
const bodySchema = z.object({ name: z.string(), nested: z.object({ n: z.number() }).strict().optional() }).strict();

process.env.TABLE_NAME ??= 'unit-test-table-never-called';

/** A small area of the kit's own: one read with a query, one write with a body, If-Match and a path id. */
const testArea = defineArea({
  name: 'kit-test',
  api: 'public',
  description: 'Test area.',
  permissions: { table: ['GetItem'], cursorSecret: false, restrictedDataKey: false },
  auditEntityTypes: [],
  schemas: {},
  routes: {
    listThings: { method: 'GET', path: '/audit', scopes: ['audit:read'], summary: 's', description: 'd', query: querySchema, success: { status: 200, description: 'ok' }, problems: [] },
    renameThing: {
      method: 'POST',
      path: '/things/{thingId}',
      scopes: ['audit:read'],
      summary: 's',
      description: 'd',
      body: bodySchema,
      ifMatch: 'required',
      idempotencyKey: 'optional',
      success: { status: 200, description: 'ok' },
      problems: [],
    },
    pokeThing: { method: 'DELETE', path: '/things/{thingId}', scopes: ['audit:read'], summary: 's', description: 'd', idempotencyKey: 'optional', success: { status: 204, description: 'ok' }, problems: [] },
    resetThing: { method: 'PUT', path: '/things/{thingId}', scopes: ['audit:read'], summary: 's', description: 'd', idempotencyKey: 'required', success: { status: 204, description: 'ok' }, problems: [] },
  },
});

const handler = areaHandler(testArea, {
  ports: () => ({}),
  operations: {
    async listThings(request) {
      if (request.query.boom === 'app') throw new AppError(TIMESHEET_PROBLEMS.TIME_ENTRY_OVERLAP, 'overlaps', { extensions: { overlappingEntryIds: ['a'] } });
      if (request.query.boom === 'raw') throw new Error('DynamoDB table wfm-prod-Table-1 ValidationException');
      return ok({ query: request.query, principal: request.principal.keyId });
    },
    renameThing: async (request) => ok({ body: request.body, thingId: request.params.thingId, ifMatch: request.ifMatch }),
    pokeThing: async () => noContent(),
    resetThing: async () => noContent(),
  },
});

const call = async (e: APIGatewayProxyEvent) => {
  const result = await handler(e, context);
  return { ...result, json: result.body ? JSON.parse(result.body) : undefined };
};

const THING = '0f0e0d0c-0b0a-4908-8706-050403020100';
const thingEvent = (over: Partial<APIGatewayProxyEvent> = {}) =>
  event({ resource: '/v1/organizations/{organizationId}/things/{thingId}', path: `/v1/organizations/${ORG}/things/${THING}`, httpMethod: 'POST', pathParameters: { organizationId: ORG, thingId: THING }, ...over });

describe('areaHandler', () => {
  it('refuses to build a handler that lacks an operation of its area', () => {
    expect(() => areaHandler(testArea, { ports: () => ({}), operations: {} as never })).toThrow(/listThings/);
  });

  it('refuses an erasableSubject that names a path parameter the route lacks, or a route that stores no response', () => {
    const route = testArea.routes.renameThing;
    const withSubject = (over: Record<string, unknown>) => defineArea({ ...testArea, routes: { ...testArea.routes, renameThing: { ...route, ...over } } });
    const build = (area: ReturnType<typeof withSubject>) => () => areaHandler(area, { ports: () => ({}), operations: Object.fromEntries(Object.keys(area.routes).map((name) => [name, async () => ok({})])) as never });
    expect(build(withSubject({ erasableSubject: { type: 'thing', idFrom: { param: 'otherId' } } }))).toThrow(/otherId/);
    expect(build(withSubject({ idempotencyKey: undefined, erasableSubject: { type: 'thing', idFrom: { param: 'thingId' } } }))).toThrow(/idempotencyKey/);
    expect(build(withSubject({ erasableSubject: { type: 'thing', idFrom: { param: 'thingId' } } }))).not.toThrow();
  });

  it("finds a stored response's erasable subject in the path or in the success body, and none for other routes", () => {
    const base = testArea.routes.renameThing;
    const result = ok({ id: 'new-id' });
    expect(responseSubject(base, { thingId: THING }, ORG, result)).toBeUndefined();
    expect(responseSubject({ ...base, erasableSubject: { type: 'thing', idFrom: { param: 'thingId' } } }, { thingId: THING }, ORG, result)).toEqual({ organizationId: ORG, type: 'thing', id: THING });
    expect(responseSubject({ ...base, erasableSubject: { type: 'thing', idFrom: { responseMember: 'id' } } }, {}, ORG, result)).toEqual({ organizationId: ORG, type: 'thing', id: 'new-id' });
    expect(() => responseSubject({ ...base, erasableSubject: { type: 'thing', idFrom: { responseMember: 'id' } } }, {}, ORG, ok({}))).toThrow(/no thing id/);
  });

  it('answers with X-Request-Id from API Gateway on success', async () => {
    const res = await call(event());
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({ 'X-Request-Id': 'req-123', 'Content-Type': 'application/json' });
    expect(res.json).toEqual({ query: {}, principal: 'key1' });
  });

  it('answers 403 SCOPE_REQUIRED naming the missing scope', async () => {
    const res = await call(event({ scopes: 'timesheets:read' }));
    expect(res.statusCode).toBe(403);
    expect(res.headers).toMatchObject({ 'X-Request-Id': 'req-123', 'Content-Type': 'application/problem+json' });
    expect(res.json).toMatchObject({ code: 'SCOPE_REQUIRED', requestId: 'req-123', requiredScopes: ['audit:read'], instance: `/v1/organizations/${ORG}/audit` });
  });

  it('answers 403 ACCESS_DENIED when the key organization is not the URL organization', async () => {
    const res = await call(event({ org: '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d' }));
    expect(res.statusCode).toBe(403);
    expect(res.json.code).toBe('ACCESS_DENIED');
  });

  it('answers 401 without an authorizer context', async () => {
    const e = event();
    (e.requestContext as unknown as { authorizer: unknown }).authorizer = undefined;
    const res = await call(e);
    expect(res.statusCode).toBe(401);
    expect(res.headers).toMatchObject({ 'WWW-Authenticate': 'Bearer' });
  });

  it('answers 404 for a route the area does not declare', async () => {
    const res = await call(event({ resource: '/v1/organizations/{organizationId}/timesheets' }));
    expect(res.statusCode).toBe(404);
  });

  it('answers what Accept allows (no Accept, wildcards, q values) and 406 NOT_ACCEPTABLE, as problem+json, when it names nothing the route answers', async () => {
    const withAccept = (accept: string) => call(event({ headers: { Accept: accept } }));
    for (const accept of ['application/json', 'application/json; charset=utf-8', '*/*', 'application/*', 'text/html, application/json;q=0.1', 'application/json, text/plain, */*']) {
      expect([accept, (await withAccept(accept)).statusCode]).toEqual([accept, 200]);
    }
    expect((await call(event())).statusCode).toBe(200);
    for (const accept of ['application/xml', 'text/html', 'application/json;q=0', 'application/problem+json', 'application/json; charset=iso-8859-1']) {
      const res = await withAccept(accept);
      expect([accept, res.statusCode, res.json.code]).toEqual([accept, 406, 'NOT_ACCEPTABLE']);
      expect(res.headers?.['Content-Type']).toBe('application/problem+json');
      expect(res.headers?.['X-Request-Id']).toBe('req-123');
    }
  });

  it('answers 422 with query parameter errors, for unknown and repeated parameters too', async () => {
    let res = await call(event({ queryStringParameters: { limit: 'ten', other: '1' }, multiValueQueryStringParameters: { limit: ['ten'], other: ['1'] } }));
    expect(res.statusCode).toBe(422);
    expect(res.json.errors).toEqual(expect.arrayContaining([expect.objectContaining({ parameter: 'limit' }), expect.objectContaining({ parameter: 'other' })]));
    res = await call(event({ queryStringParameters: { limit: '2' }, multiValueQueryStringParameters: { limit: ['1', '2'] } }));
    expect(res.json).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ parameter: 'limit', detail: expect.stringMatching(/once/) }] });
  });

  it('answers 422 naming a query or path parameter, name or value, that a gateway handed on holding a lone surrogate', async () => {
    const query = await call(event({ queryStringParameters: { boom: 'x\ud800' }, multiValueQueryStringParameters: { boom: ['x\ud800'] } }));
    expect(query).toMatchObject({ statusCode: 422, json: { code: 'VALIDATION_ERROR', errors: [{ parameter: 'boom', detail: expect.stringMatching(/^Must be well-formed Unicode text: it holds a lone surrogate \(U\+D800\) at character 2\./) }] } });
    const name = await call(event({ queryStringParameters: { 'b\udc00': '1' }, multiValueQueryStringParameters: { 'b\udc00': ['1', '2'] } }));
    expect(name.json.errors).toEqual([{ parameter: 'b\ufffd', detail: expect.stringMatching(/^The parameter name must be/) }]);
    const path = await call(thingEvent({ body: JSON.stringify({ name: 'x' }), headers: { 'Content-Type': 'application/json', 'If-Match': '"thing:1"' }, pathParameters: { organizationId: ORG, thingId: '\ud800' } }));
    expect(path).toMatchObject({ statusCode: 422, json: { errors: [{ parameter: 'thingId' }], detail: expect.stringMatching(/^Parameter thingId: Must be well-formed/) } });
    // Nor do the answers: a lone surrogate would come back escaped (as \ud800), unreadable to strict parsers.
    const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : v !== null && typeof v === 'object' ? Object.entries(v).flatMap(([k, c]) => [k, ...strings(c)]) : []);
    for (const res of [query, name, path]) expect(strings(res.json).filter((t) => !t.isWellFormed())).toEqual([]);
  });

  describe('route contracts', () => {
    const json = { 'Content-Type': 'application/json', 'If-Match': '"thing:1"' };

    it('hands the operation the parsed body, the lower-cased path id and If-Match', async () => {
      const res = await call(thingEvent({ body: JSON.stringify({ name: 'x' }), headers: json, pathParameters: { organizationId: ORG, thingId: THING.toUpperCase() } }));
      expect(res).toMatchObject({ statusCode: 200, json: { body: { name: 'x' }, thingId: THING, ifMatch: '"thing:1"' } });
    });

    it('answers 404 for a path id that is not a UUID, before If-Match and the body schema', async () => {
      const res = await call(thingEvent({ body: '{}', headers: { 'Content-Type': 'application/json' }, pathParameters: { organizationId: ORG, thingId: 'not-a-uuid' } }));
      expect(res).toMatchObject({ statusCode: 404, json: { code: 'RESOURCE_NOT_FOUND', detail: expect.stringMatching(/^Thing not-a-uuid/) } });
    });

    it('answers 428 ETAG_REQUIRED when a required If-Match is missing', async () => {
      const res = await call(thingEvent({ body: JSON.stringify({ name: 'x' }), headers: { 'Content-Type': 'application/json' } }));
      expect(res).toMatchObject({ statusCode: 428, json: { code: 'ETAG_REQUIRED' } });
    });

    it('answers 400 IDEMPOTENCY_KEY_REQUIRED when a required key is missing, and 400 for a key over 255 characters', async () => {
      const poke = (headers: Record<string, string>) => call(thingEvent({ httpMethod: 'PUT', headers }));
      expect((await poke({})).json.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
      expect(await poke({ 'Idempotency-Key': 'k'.repeat(256) })).toMatchObject({ statusCode: 400, json: { code: 'VALIDATION_ERROR', errors: [{ header: 'Idempotency-Key' }] } });
    });

    it('answers 422 for unknown query parameters on a route that declares none', async () => {
      const res = await call(thingEvent({ body: JSON.stringify({ name: 'x' }), headers: json, queryStringParameters: { extra: '1' }, multiValueQueryStringParameters: { extra: ['1'] } }));
      expect(res).toMatchObject({ statusCode: 422, json: { errors: [{ parameter: 'extra' }] } });
    });

    it('answers 422 for a body on a route that takes none, and accepts {}', async () => {
      const poke = (body: string) => call(thingEvent({ httpMethod: 'DELETE', body, headers: { 'Content-Type': 'application/json' } }));
      expect(await poke('{"a":1}')).toMatchObject({ statusCode: 422, json: { errors: [{ pointer: '', detail: expect.stringMatching(/no request body/) }] } });
      expect((await poke('{}')).statusCode).toBe(204);
    });
  });

  describe('bodies', () => {
    const post = (body: string, headers: Record<string, string> = { 'Content-Type': 'application/json', 'If-Match': '"thing:1"' }) => call(thingEvent({ body, headers }));

    it('parses JSON and points at invalid and unknown fields', async () => {
      const res = await post(JSON.stringify({ name: 1, extra: true, nested: { n: 'x', more: 1 } }));
      expect(res.statusCode).toBe(422);
      expect(res.json.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/extra', '/name', '/nested/more', '/nested/n']);
    });

    it('accepts a charset parameter and mixed-case header names', async () => {
      const res = await post(JSON.stringify({ name: 'x' }), { 'content-TYPE': 'application/json; charset=utf-8', 'if-match': '"thing:1"' });
      expect(res.statusCode).toBe(200);
    });

    it('answers 400 MALFORMED_JSON for text that is not JSON', async () => {
      const res = await post('{"name":');
      expect(res).toMatchObject({ statusCode: 400, json: { code: 'MALFORMED_JSON' } });
    });

    it('answers 415 for another or a missing media type', async () => {
      expect((await post('{}', { 'Content-Type': 'text/plain' })).json.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect((await post('{}', {})).statusCode).toBe(415);
    });

    it('accepts UTF-8 however it is written, and no charset', async () => {
      for (const contentType of ['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON; Charset="utf-8"', 'application/json ; charset = "UTF-8"', 'application/json; charset=utf-8; profile=x', 'application/json; charset=utf8', 'application/json; charset=UTF8']) {
        expect([contentType, (await post(JSON.stringify({ name: 'x' }), { 'Content-Type': contentType, 'If-Match': '"thing:1"' })).statusCode]).toEqual([contentType, 200]);
      }
    });

    it('answers 415 UNSUPPORTED_MEDIA_TYPE, as problem+json saying only UTF-8 is accepted, for any other charset', async () => {
      for (const contentType of ['application/json; charset=utf-16', 'application/json; charset=UTF-16LE', 'application/json; charset="latin1"', 'application/json;charset=ISO-8859-1', 'application/json; charset=utf-7', 'application/json; charset=']) {
        const res = await post(JSON.stringify({ name: 'x' }), { 'Content-Type': contentType, 'If-Match': '"thing:1"' });
        expect([contentType, res.statusCode, res.headers?.['Content-Type'], res.json.code]).toEqual([contentType, 415, 'application/problem+json', 'UNSUPPORTED_MEDIA_TYPE']);
        expect(res.json.detail).toMatch(/only UTF-8 is accepted/);
      }
    });

    it('answers 415 to a compressed body (Content-Encoding), and accepts identity', async () => {
      for (const coding of ['gzip', 'br', 'deflate, gzip']) {
        const res = await post(JSON.stringify({ name: 'x' }), { 'Content-Type': 'application/json', 'Content-Encoding': coding, 'If-Match': '"thing:1"' });
        expect([coding, res.statusCode, res.json.code]).toEqual([coding, 415, 'UNSUPPORTED_MEDIA_TYPE']);
        expect(res.json.detail).toMatch(/send the body uncompressed/);
      }
      expect((await post(JSON.stringify({ name: 'x' }), { 'Content-Type': 'application/json', 'Content-Encoding': 'identity', 'If-Match': '"thing:1"' })).statusCode).toBe(200);
    });

    it('answers 422 for a body nested deeper than 32 levels, and accepts 32', async () => {
      const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
      const deep = await post(`{"name":"x","nested":${nested(5_000)}}`);
      expect(deep).toMatchObject({ statusCode: 422, json: { code: 'VALIDATION_ERROR', errors: [{ pointer: '', detail: expect.stringMatching(/deeper than 32/) }] } });
      const shallow = await post(`{"name":"x","nested":${nested(31)}}`);
      expect(shallow.statusCode).toBe(422);
      expect(shallow.json.errors[0].pointer).toBe('/nested');
    });

    it('answers 422 at the pointer of every string, value or member name, that is not well-formed Unicode, and accepts a surrogate pair', async () => {
      const lone = await post(String.raw`{"name":"a\ud800","nested":{"n":1,"x\udc00":["\udfff"]}}`);
      expect(lone).toMatchObject({ statusCode: 422, json: { code: 'VALIDATION_ERROR' } });
      expect(lone.json.errors).toEqual([
        { pointer: '/name', detail: expect.stringMatching(/^Must be well-formed Unicode text: it holds a lone surrogate \(U\+D800\) at character 2\./) },
        { pointer: '/nested/x\ufffd', detail: expect.stringMatching(/^The member name must be well-formed Unicode text: it holds a lone surrogate \(U\+DC00\) at character 2\./) },
      ]);
      expect((await post(String.raw`"\ud800"`)).json.errors).toEqual([{ pointer: '', detail: expect.stringMatching(/U\+D800/) }]);
      const pair = await post(String.raw`{"name":"a\ud83d\ude00"}`);
      expect(pair).toMatchObject({ statusCode: 200, json: { body: { name: 'a😀' } } });
    });

    it('answers 413 above 64 KiB', async () => {
      const res = await post(JSON.stringify({ name: 'x'.repeat(70_000) }));
      expect(res).toMatchObject({ statusCode: 413, json: { code: 'PAYLOAD_TOO_LARGE' } });
    });
  });

  it('maps AppErrors to their problem with extension members', async () => {
    const res = await call(event({ queryStringParameters: { boom: 'app' } }));
    expect(res.statusCode).toBe(409);
    expect(res.json).toMatchObject({ code: 'TIME_ENTRY_OVERLAP', overlappingEntryIds: ['a'] });
  });

  it('maps anything else to 500 INTERNAL_ERROR without its message', async () => {
    const res = await call(event({ queryStringParameters: { boom: 'raw' } }));
    expect(res.statusCode).toBe(500);
    expect(res.headers).toMatchObject({ 'X-Request-Id': 'req-123' });
    expect(res.body).not.toMatch(/wfm-prod|DynamoDB|Exception/);
    expect(res.json).toMatchObject({ code: 'INTERNAL_ERROR', requestId: 'req-123' });
  });
});

describe('request id', () => {
  it("answers a SCIM-stage call under the public API's forwarded request id, and ignores that header elsewhere", () => {
    const scimEvent = { requestContext: { requestId: 'scim-own', stage: 'scim' }, headers: { 'X-Wfm-Forwarded-Request-Id': 'public-id-1' } } as unknown as APIGatewayProxyEvent;
    expect(requestIdOf(scimEvent)).toBe('public-id-1');
    const publicEvent = { requestContext: { requestId: 'public-own', stage: 'v1' }, headers: { 'X-Wfm-Forwarded-Request-Id': 'spoofed' } } as unknown as APIGatewayProxyEvent;
    expect(requestIdOf(publicEvent)).toBe('public-own');
    const malformed = { requestContext: { requestId: 'scim-own', stage: 'scim' }, headers: { 'x-wfm-forwarded-request-id': 'a b\nc' } } as unknown as APIGatewayProxyEvent;
    expect(requestIdOf(malformed)).toBe('scim-own');
  });
});

describe('withAbsoluteLocation', () => {
  const created = { statusCode: 201, headers: { Location: '/v1/organizations/o1/customers/c1', ETag: '"customer:c1:v1"' }, body: '{}' };

  it('puts the path on the stage base: an execute-api URL keeps its stage, a custom domain its root, a trailing slash is not doubled', () => {
    expect(withAbsoluteLocation(created, 'https://abc.execute-api.eu-west-1.amazonaws.com/v1').headers?.Location).toBe('https://abc.execute-api.eu-west-1.amazonaws.com/v1/v1/organizations/o1/customers/c1');
    expect(withAbsoluteLocation(created, 'https://api.example.com/').headers?.Location).toBe('https://api.example.com/v1/organizations/o1/customers/c1');
  });

  it('leaves an absolute Location (a presigned URL), no Location, and an unconfigured base as they are', () => {
    const redirect = { statusCode: 302, headers: { Location: 'https://bucket.s3.amazonaws.com/x?X-Amz-Signature=s' }, body: '' };
    expect(withAbsoluteLocation(redirect, 'https://api.example.com')).toEqual(redirect);
    expect(withAbsoluteLocation({ statusCode: 200, body: '{}' }, 'https://api.example.com')).toEqual({ statusCode: 200, body: '{}' });
    expect(withAbsoluteLocation(created, undefined)).toEqual(created);
  });
});
