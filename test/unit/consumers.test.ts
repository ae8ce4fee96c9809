import { ACCESS_LOG_QUERY, consumerReport, parseAccessLog, parseInsightsResults, parseWindow } from '../../services/api-keys/consumers';
import type { ApiKeyRecord } from '../../services/api-keys/store';

const since = new Date('2026-11-01T00:00:00Z');
const key = (over: Partial<ApiKeyRecord>): ApiKeyRecord => ({
  keyId: 'k',
  organizationId: 'org-a',
  environment: 'TEST',
  label: 'Payroll sync',
  scopes: ['timesheets:read'],
  secretHash: 'h',
  createdAt: '2026-01-01T00:00:00Z',
  ...over,
});

describe('the access-log query', () => {
  it('counts requests and the last sight per key, without the lines that carry no key', () => {
    expect(ACCESS_LOG_QUERY).toBe(
      'fields @timestamp, keyId, organizationId\n| filter ispresent(keyId) and keyId != "" and keyId != "-"\n| stats count(*) as requests, max(@timestamp) as lastSeen by keyId, organizationId',
    );
  });

  it('reads Insights rows (UTC "yyyy-MM-dd HH:mm:ss.SSS" times) and skips incomplete ones', () => {
    const rows = [
      [{ field: 'keyId', value: 'abc' }, { field: 'organizationId', value: 'org-a' }, { field: 'requests', value: '42' }, { field: 'lastSeen', value: '2026-11-20 08:15:30.123' }],
      [{ field: 'organizationId', value: 'org-b' }, { field: 'requests', value: '1' }],
    ];
    expect(parseInsightsResults(rows)).toEqual([{ keyId: 'abc', organizationId: 'org-a', requests: 42, lastSeen: '2026-11-20T08:15:30.123Z' }]);
  });

  it('reads the local access log: counts per key since the window, skips lines without a key and broken lines', () => {
    const text = [
      JSON.stringify({ requestId: '1', requestTime: '2026-11-10T00:00:00.000Z', keyId: 'abc', organizationId: 'org-a', status: '200' }),
      JSON.stringify({ requestId: '2', requestTime: '2026-11-12T00:00:00.000Z', keyId: 'abc', organizationId: 'org-a', status: '200' }),
      JSON.stringify({ requestId: '3', requestTime: '2026-10-01T00:00:00.000Z', keyId: 'old', organizationId: 'org-a', status: '200' }),
      JSON.stringify({ requestId: '4', requestTime: '2026-11-12T00:00:00.000Z', status: '401' }),
      'not json',
    ].join('\n');
    expect(parseAccessLog(text, since)).toEqual([{ keyId: 'abc', organizationId: 'org-a', requests: 2, lastSeen: '2026-11-12T00:00:00.000Z' }]);
  });

  it('takes windows in days, hours or minutes', () => {
    expect(parseWindow('30d')).toBe(30 * 86_400_000);
    expect(parseWindow('12h')).toBe(12 * 3_600_000);
    expect(() => parseWindow('a month')).toThrow(/30d/);
  });
});

describe('consumerReport', () => {
  it('names a key that is not internal and was used in the window as an external consumer', () => {
    const report = consumerReport([key({ keyId: 'ext' }), key({ keyId: 'own', internal: true })], [{ keyId: 'ext', organizationId: 'org-a', requests: 3, lastSeen: '2026-11-20T00:00:00.000Z' }, { keyId: 'own', organizationId: 'org-a', requests: 9, lastSeen: '2026-11-20T00:00:00.000Z' }], 'TEST', since);
    expect(report.external.map((r) => [r.keyId, r.organizationId, r.lastUsedAt])).toEqual([['ext', 'org-a', '2026-11-20T00:00:00.000Z']]);
  });

  it('counts the last use the authorizer recorded when the logs have none', () => {
    const report = consumerReport([key({ keyId: 'ext', lastUsedAt: '2026-11-05T00:00:00.000Z' })], [], 'TEST', since);
    expect(report.external).toHaveLength(1);
  });

  it('ignores keys of the other environment, uses before the window, and revoked keys not used within it', () => {
    const report = consumerReport(
      [
        key({ keyId: 'revoked-idle', revokedAt: '2026-10-02T00:00:00Z', lastUsedAt: '2026-10-01T00:00:00.000Z' }),
        key({ keyId: 'live', environment: 'LIVE', lastUsedAt: '2026-11-10T00:00:00.000Z' }),
        key({ keyId: 'idle', lastUsedAt: '2026-10-01T00:00:00.000Z' }),
      ],
      [{ keyId: 'revoked-idle', organizationId: 'org-a', requests: 1, lastSeen: '2026-10-01T00:00:00.000Z' }],
      'TEST',
      since,
    );
    expect(report.external).toEqual([]);
    expect(report.rows.map((r) => r.keyId)).toEqual(['idle']);
  });

  it('counts a key revoked after it was used within the window: its holder consumed the API and may hold a key not used yet', () => {
    const report = consumerReport(
      [key({ keyId: 'revoked', revokedAt: '2026-11-12T00:00:00Z', lastUsedAt: '2026-11-10T00:00:00.000Z' }), key({ keyId: 'revoked-internal', internal: true, revokedAt: '2026-11-12T00:00:00Z', lastUsedAt: '2026-11-10T00:00:00.000Z' })],
      [{ keyId: 'revoked', organizationId: 'org-a', requests: 2, lastSeen: '2026-11-11T00:00:00.000Z' }],
      'TEST',
      since,
    );
    expect(report.external).toEqual([expect.objectContaining({ keyId: 'revoked', revoked: true, requests: 2, lastUsedAt: '2026-11-11T00:00:00.000Z' })]);
    expect(report.rows.map((r) => [r.keyId, r.external])).toEqual([
      ['revoked', true],
      ['revoked-internal', false],
    ]);
  });

  it('treats a key the logs show but the inventory does not know as external', () => {
    const report = consumerReport([], [{ keyId: 'ghost', organizationId: 'org-x', requests: 1, lastSeen: '2026-11-10T00:00:00.000Z' }], 'TEST', since);
    expect(report.external).toEqual([expect.objectContaining({ keyId: 'ghost', unknown: true })]);
  });
});
