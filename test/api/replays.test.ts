import { randomUUID } from 'node:crypto';
import { call, startApi, type ApiFixture } from '../support/api';

/**
 * Idempotent replays are the original response byte for byte (a black-box finding: they were
 * equal as JSON but not as bytes, because DynamoDB keeps map members in an order of its own).
 */
let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('idempotent replays', () => {
  it('send the first response body byte for byte, with Idempotency-Replayed: true', async () => {
    const key = randomUUID();
    const body = { name: 'Zinc primer', unit: 'l', supplier: 'Acme Paints', article: 'ZP-1', preferredOrderQuantity: 12.5, reorderLevel: 2, website: 'https://acme.example/zp' };
    const send = () => call('POST', `${api.orgUrl()}/materials`, { token: api.demo.keys.admin, body, idempotencyKey: key });
    const first = await send();
    const replay = await send();
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
  });
});
