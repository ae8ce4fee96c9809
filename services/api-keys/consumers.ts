import type { ApiEnvironment } from '../shared/config';
import type { ApiKeyRecord } from './store';

/**
 * The release gate of an in-place contract alignment (organization-api.md, Versioning rule 2):
 * the inventory of issued keys and the access logs must show no external consumer. Pure:
 * services/cli/consumers.ts reads the table and the logs and hands them here.
 */

/** What the access logs say of one key: how often and when it was last seen. */
export interface KeyUse {
  readonly keyId: string;
  readonly organizationId: string;
  readonly requests: number;
  readonly lastSeen: string;
}

export interface ConsumerRow {
  readonly keyId: string;
  readonly organizationId: string;
  readonly label: string;
  readonly internal: boolean;
  readonly createdAt: string;
  /** The later of the key record's last use and the access logs' last sight. */
  readonly lastUsedAt?: string;
  /** Requests in the access logs since the window's start. */
  readonly requests: number;
  /** Used within the window. */
  readonly active: boolean;
  /** Revoked since; listed only when it was used within the window. */
  readonly revoked?: boolean;
  /** An external consumer: a key the organization handed out (not internal), used within the window, or a key the inventory does not know. */
  readonly external: boolean;
  readonly unknown?: boolean;
}

export interface ConsumerReport {
  readonly rows: readonly ConsumerRow[];
  readonly external: readonly ConsumerRow[];
}

/**
 * Every issued, non-revoked key of the environment with its last use, every revoked key used
 * within the window (its holder consumed the API in the window and may hold another key it has
 * not used yet), and the keys the access logs show that the inventory does not know.
 * Decision (docs/decisions.md): a key is the organization's own only when it was issued as
 * internal (`npm run keys -- create --internal`); labels are free text and decide nothing.
 */
export function consumerReport(keys: readonly ApiKeyRecord[], uses: readonly KeyUse[], environment: ApiEnvironment, since: Date): ConsumerReport {
  const byKey = new Map(uses.map((u) => [u.keyId, u]));
  const known = new Set(keys.map((k) => k.keyId));
  const rows: ConsumerRow[] = keys
    .filter((k) => k.environment === environment)
    .map((k) => {
      const use = byKey.get(k.keyId);
      const lastUsedAt = latest(k.lastUsedAt, use?.lastSeen);
      const active = lastUsedAt !== undefined && Date.parse(lastUsedAt) >= since.getTime();
      return {
        keyId: k.keyId,
        organizationId: k.organizationId,
        label: k.label,
        internal: k.internal === true,
        createdAt: k.createdAt,
        ...(lastUsedAt ? { lastUsedAt } : {}),
        requests: use?.requests ?? 0,
        active,
        ...(k.revokedAt ? { revoked: true } : {}),
        external: active && k.internal !== true,
      };
    })
    .filter((r) => !r.revoked || r.active);
  for (const use of uses) {
    if (known.has(use.keyId) || Date.parse(use.lastSeen) < since.getTime()) continue;
    rows.push({ keyId: use.keyId, organizationId: use.organizationId, label: '(not in the inventory)', internal: false, createdAt: '', lastUsedAt: use.lastSeen, requests: use.requests, active: true, external: true, unknown: true });
  }
  rows.sort((a, b) => Number(b.external) - Number(a.external) || (b.lastUsedAt ?? '').localeCompare(a.lastUsedAt ?? ''));
  return { rows, external: rows.filter((r) => r.external) };
}

const latest = (a: string | undefined, b: string | undefined): string | undefined => (a === undefined ? b : b === undefined ? a : a > b ? a : b);

/** `30d`, `12h`, `45m` -> milliseconds. */
export function parseWindow(text: string): number {
  const m = /^(\d+)([dhm])$/.exec(text.trim());
  if (!m) throw new Error(`--since takes a number of days, hours or minutes such as 30d, 12h or 90m; got "${text}".`);
  return Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm'];
}

/**
 * The CloudWatch Logs Insights query over the stages' access-log groups: requests and last
 * sight per key. API Gateway writes `-` for an empty context variable (no key: 401s, WAF blocks).
 */
export const ACCESS_LOG_QUERY = [
  'fields @timestamp, keyId, organizationId',
  'filter ispresent(keyId) and keyId != "" and keyId != "-"',
  'stats count(*) as requests, max(@timestamp) as lastSeen by keyId, organizationId',
].join('\n| ');

/** Rows of GetQueryResults (`[{ field, value }]` each) as key uses. Insights times are `yyyy-MM-dd HH:mm:ss.SSS` in UTC. */
export function parseInsightsResults(results: readonly (readonly { readonly field?: string; readonly value?: string }[])[]): KeyUse[] {
  return results.flatMap((row) => {
    const get = (name: string) => row.find((c) => c.field === name)?.value;
    const keyId = get('keyId');
    const lastSeen = get('lastSeen');
    if (!keyId || !lastSeen) return [];
    const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(lastSeen) ? `${lastSeen.replace(' ', 'T')}Z` : lastSeen;
    return [{ keyId, organizationId: get('organizationId') ?? '', requests: Number(get('requests') ?? 0), lastSeen: new Date(iso).toISOString() }];
  });
}

/** The local gateway's access log (.local/access.log, one JSON line per request) as key uses since `since`. */
export function parseAccessLog(text: string, since: Date): KeyUse[] {
  const uses = new Map<string, { organizationId: string; requests: number; lastSeen: string }>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let entry: { keyId?: string; organizationId?: string; requestTime?: string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (!entry.keyId || entry.keyId === '-' || !entry.requestTime || Date.parse(entry.requestTime) < since.getTime()) continue;
    const use = uses.get(entry.keyId) ?? { organizationId: entry.organizationId ?? '', requests: 0, lastSeen: entry.requestTime };
    use.requests += 1;
    if (entry.requestTime > use.lastSeen) use.lastSeen = entry.requestTime;
    uses.set(entry.keyId, use);
  }
  return [...uses.entries()].map(([keyId, u]) => ({ keyId, ...u }));
}
