import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { defineArea } from '../../services/shared/area';
import { areaHandler } from '../../services/shared/http/area-handler';
import { logger } from '../../services/shared/logger';
import { withCapturedLogs } from '../support/logs';

/**
 * A black-box finding: under concurrency, the ERROR line of a failed request carried another
 * request's id and no route or key. Keys of a request now live in its own scope: every line
 * carries its own request id, route and key id, however the requests interleave.
 */
const ORG = '6f1c2a3e-0b4d-4c5e-9f60-7a8b9c0d1e2f';
const context = { getRemainingTimeInMillis: () => 10_000, functionName: 'test', awsRequestId: 'aws' } as unknown as Context;
const area = defineArea({
  name: 'log-test',
  api: 'public',
  description: 'Test area.',
  permissions: { table: ['GetItem'], cursorSecret: false, restrictedDataKey: false },
  auditEntityTypes: [],
  schemas: {},
  routes: { failSlowly: { method: 'GET', path: '/audit', scopes: ['audit:read'], summary: 's', description: 'd', success: { status: 200, description: 'ok' }, problems: [] } },
});
const handler = areaHandler(area, {
  ports: () => ({}),
  operations: {
    async failSlowly() {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
      throw new Error('boom: unexpected');
    },
  },
});

const event = (n: number) =>
  ({
    resource: '/v1/organizations/{organizationId}/audit',
    path: `/v1/organizations/${ORG}/audit`,
    httpMethod: 'GET',
    headers: {},
    pathParameters: { organizationId: ORG },
    requestContext: { requestId: `req-${n}`, authorizer: { organizationId: ORG, keyId: `key-${n}`, keyLabel: 'L', environment: 'TEST', scopes: 'audit:read' } },
  }) as unknown as APIGatewayProxyEvent;

describe('withCapturedLogs (test/support/logs.ts)', () => {
  it('captures the lines of every request it makes, not only the first: the Lambda-context middleware would put the level back between invocations', async () => {
    const { logs } = await withCapturedLogs(async () => {
      for (let n = 0; n < 3; n += 1) expect((await handler(event(n), context)).statusCode).toBe(500);
    });
    const failed = logs.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.message === 'Request failed');
    expect(failed.map((l) => l.requestId)).toEqual(['req-0', 'req-1', 'req-2']);
  });
});

describe('log lines of concurrent requests', () => {
  it('each carry their own request id, route and key id', async () => {
    // The Lambda-context middleware resets the level to the initial one (SILENT in tests) per invocation.
    const levels = logger as unknown as { setInitialLogLevel(level: string): void };
    levels.setInitialLogLevel('INFO');
    let logs: string;
    try {
      ({ logs } = await withCapturedLogs(async () => {
        const results = await Promise.all(Array.from({ length: 12 }, (_, n) => handler(event(n), context)));
        expect(results.every((r) => r.statusCode === 500)).toBe(true);
      }));
    } finally {
      levels.setInitialLogLevel('SILENT');
    }
    const failed = logs.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.message === 'Request failed');
    expect(failed).toHaveLength(12);
    for (const line of failed) {
      const n = String(line.requestId).replace('req-', '');
      expect({ requestId: line.requestId, keyId: line.keyId, route: line.route, organizationId: line.organizationId }).toEqual({
        requestId: `req-${n}`,
        keyId: `key-${n}`,
        route: 'GET /v1/organizations/{organizationId}/audit',
        organizationId: ORG,
      });
    }
  });
});
