import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * The observability kit's switches (services/shared/observability.ts): tracing only in Lambda,
 * metrics only in Lambda unless told, and a Tracer that is never loaded where it is off.
 */
type Kit = typeof import('../../services/shared/observability');
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});
/** The kit loaded afresh under `env` (kept until the test ends: the kit reads it on first use). */
const freshKit = (env: Record<string, string | undefined>): Kit => {
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  let kit: Kit | undefined;
  jest.isolateModules(() => {
    kit = require('../../services/shared/observability') as Kit;
  });
  return kit!;
};
const middlewareNames = (client: DynamoDBClient) => client.middlewareStack.identify().join(' ');

describe('tracing switch', () => {
  it('traces in Lambda only, not under SAM, and not with POWERTOOLS_TRACE_ENABLED=false', () => {
    const kit = freshKit({});
    expect(kit.tracingEnabled({})).toBe(false);
    expect(kit.tracingEnabled({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' })).toBe(true);
    expect(kit.tracingEnabled({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', POWERTOOLS_TRACE_ENABLED: 'false' })).toBe(false);
    expect(kit.tracingEnabled({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', AWS_SAM_LOCAL: 'true' })).toBe(false);
  });

  it('leaves clients and the handler chain alone where tracing is off, without loading the Tracer', () => {
    const kit = freshKit({ AWS_EXECUTION_ENV: undefined });
    const client = new DynamoDBClient({ region: 'eu-central-1' });
    const before = middlewareNames(client);
    expect(kit.traceClient(client)).toBe(client);
    expect(middlewareNames(client)).toBe(before);
    expect(kit.tracingMiddleware()).toBeUndefined();
    expect(Object.keys(require.cache).some((path) => path.includes('@aws-lambda-powertools/tracer'))).toBe(false);
  });

  it('captures SDK clients and gives the middy middleware in Lambda', () => {
    const kit = freshKit({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', POWERTOOLS_TRACE_ENABLED: undefined, AWS_SAM_LOCAL: undefined });
    const client = kit.traceClient(new DynamoDBClient({ region: 'eu-central-1' }));
    expect(middlewareNames(client)).toMatch(/XRay/i);
    const middleware = kit.tracingMiddleware();
    expect(typeof middleware?.before).toBe('function');
  });
});

describe('metrics switch', () => {
  it('publishes in Lambda, or wherever POWERTOOLS_METRICS_DISABLED says false', () => {
    const kit = freshKit({});
    expect(kit.metricsEnabled({})).toBe(false);
    expect(kit.metricsEnabled({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' })).toBe(true);
    expect(kit.metricsEnabled({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', POWERTOOLS_METRICS_DISABLED: 'true' })).toBe(false);
    expect(kit.metricsEnabled({ POWERTOOLS_METRICS_DISABLED: 'false' })).toBe(true);
  });

  it('drops a line whose dimension value is outside the fixed sets, without failing the request', () => {
    const kit = freshKit({ POWERTOOLS_METRICS_DISABLED: 'false' });
    const written: string[] = [];
    jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write);
    try {
      kit.publishRequestFigures({ operation: 'someone@example.com', statusCode: 200, replayed: false });
      kit.publishRequestFigures({ operation: 'createTimeEntry', statusCode: 201, replayed: false });
    } finally {
      jest.restoreAllMocks();
    }
    const emf = written.filter((w) => w.includes('"_aws"'));
    expect(emf).toHaveLength(1);
    expect(emf.join('')).not.toContain('someone@example.com');
    expect(JSON.parse(emf[0])).toMatchObject({ operation: 'createTimeEntry', statusClass: '2xx', Requests: 1 });
  });
});

describe('docs/operations.md', () => {
  it('names every metric the code can publish', () => {
    const doc = require('node:fs').readFileSync(require('node:path').join(__dirname, '../../docs/operations.md'), 'utf8') as string;
    const kit = freshKit({});
    const names = [...Object.keys(kit.BUSINESS_METRICS), ...Object.keys(kit.REQUEST_METRICS)];
    expect(names.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });
});
