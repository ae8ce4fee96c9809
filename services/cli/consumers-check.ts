import { existsSync, readFileSync } from 'node:fs';
import { consumerReport, parseAccessLog, type ConsumerReport, type KeyUse } from '../api-keys/consumers';
import { listApiKeys, type ApiKeyRecord } from '../api-keys/store';
import { listOrganizations } from '../organization/public';
import type { ApiEnvironment } from '../shared/config';
import type { Db } from '../shared/ddb/client';

export interface ConsumersCheck {
  readonly db: Db;
  readonly environment: ApiEnvironment;
  readonly since: Date;
  /** The key uses of the access logs since `since` (local file or CloudWatch Logs Insights). */
  readonly uses: () => Promise<readonly KeyUse[]>;
  /** Told after each organization's keys were read: organizations done, of how many, keys so far. */
  readonly onOrganization?: (done: number, total: number, keys: number) => void;
}

/** Every issued key of every organization (the inventory), with its last use. */
export async function keyInventory(db: Db, onOrganization?: ConsumersCheck['onOrganization']): Promise<ApiKeyRecord[]> {
  const keys: ApiKeyRecord[] = [];
  const orgs = await listOrganizations(db);
  for (const [i, org] of orgs.entries()) {
    keys.push(...(await listApiKeys(db, org.id)));
    onOrganization?.(i + 1, orgs.length, keys.length);
  }
  return keys;
}

/** The inventory and the access logs, judged: 0 when no external consumer used the API since `since`, 1 otherwise. */
export async function checkConsumers(check: ConsumersCheck): Promise<{ report: ConsumerReport; exitCode: 0 | 1; lines: string[] }> {
  const [keys, uses] = await Promise.all([keyInventory(check.db, check.onOrganization), check.uses()]);
  const report = consumerReport(keys, uses, check.environment, check.since);
  const lines = [
    `${report.rows.length} key(s) of ${check.environment}: issued and not revoked, or used since ${check.since.toISOString()} (revoked ones too, and any the inventory does not know):`,
    ['key id', 'organization', 'label', 'kind', 'created', 'last use', 'requests'].join('\t'),
    ...report.rows.map((r) =>
      [r.keyId, r.organizationId, r.label, `${r.unknown ? 'UNKNOWN' : r.internal ? 'internal' : r.external ? 'EXTERNAL' : 'external, unused'}${r.revoked ? ', revoked' : ''}`, r.createdAt || '-', r.lastUsedAt ?? 'never', String(r.requests)].join('\t'),
    ),
    report.external.length === 0
      ? 'No external consumer: the in-place alignment may proceed.'
      : `${report.external.length} external consumer(s): STOP the release for a compatibility and version review (docs/deployment.md, "Release gate").`,
  ];
  return { report, exitCode: report.external.length === 0 ? 0 : 1, lines };
}

/** Key uses from the local gateway's access log (npm start writes .local/access.log). */
export const localUses = (path: string, since: Date) => async (): Promise<KeyUse[]> => (existsSync(path) ? parseAccessLog(readFileSync(path, 'utf8'), since) : []);
