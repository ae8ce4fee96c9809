import { randomUUID } from 'node:crypto';
import { startApi, type ApiFixture } from '../support/api';
import { ALLOWED_DIMENSIONS, captureEmf, settle } from './metrics-capture';
import { createEntry, dayInterval, manualBody } from './timesheets-fixture';

/**
 * The EMF lines of timesheet writes (services/shared/observability.ts): requests by operation
 * and status class, problem codes, idempotent replays and the area's committed figures, through
 * the local gateway on DynamoDB Local.
 */
const emf = captureEmf();
let api: ApiFixture;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

let day = 4000;
const freshBody = () => manualBody(api, dayInterval((day += 1)));

describe('EMF metrics of timesheet writes', () => {
  it('counts a created time entry: the request by operation and status class, and the area figure', async () => {
    const res = await createEntry(api, freshBody());
    expect(res.status).toBe(201);
    await settle();

    const [request] = emf.withMetric('Requests');
    expect(request).toMatchObject({ service: expect.any(String), environment: 'TEST', operation: 'createTimeEntry', statusClass: '2xx', Requests: 1 });
    expect(request._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'WFM-test', Dimensions: [expect.arrayContaining(['service', 'environment', 'operation', 'statusClass'])] });
    expect(emf.total('TimeEntriesCreated')).toBe(1);
    // The organization rides as a property, never as a dimension.
    const created = emf.withMetric('TimeEntriesCreated')[0];
    expect(created.organizationId).toBe(api.demo.organizationId);
    expect(created._aws.CloudWatchMetrics[0].Dimensions.flat().every((d) => ALLOWED_DIMENSIONS.includes(d))).toBe(true);
    expect(emf.withMetric('Problems')).toHaveLength(0);
  });

  it('counts an overlap rejection as the problem code and as the area figure, and creates nothing', async () => {
    const body = freshBody();
    expect((await createEntry(api, body)).status).toBe(201);
    await settle();
    emf.reset();

    const overlapping = await createEntry(api, { ...body, startedAt: body.startedAt.replace('08:00', '09:00') });
    expect(overlapping.status).toBe(409);
    expect(overlapping.body.code).toBe('TIME_ENTRY_OVERLAP');
    await settle();

    expect(emf.withMetric('Requests')[0]).toMatchObject({ operation: 'createTimeEntry', statusClass: '4xx' });
    expect(emf.withMetric('Problems')[0]).toMatchObject({ code: 'TIME_ENTRY_OVERLAP', Problems: 1 });
    expect(emf.total('OverlapRejections')).toBe(1);
    expect(emf.total('TimeEntriesCreated')).toBe(0);
  });

  it('counts an idempotent replay, and not a second creation', async () => {
    const key = randomUUID();
    const body = freshBody();
    expect((await createEntry(api, body, { idempotencyKey: key })).status).toBe(201);
    const again = await createEntry(api, body, { idempotencyKey: key });
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    await settle();

    expect(emf.total('Requests')).toBe(2);
    expect(emf.total('IdempotentReplays')).toBe(1);
    expect(emf.total('TimeEntriesCreated')).toBe(1);
  });
});
