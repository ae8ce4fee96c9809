import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createIntegration, integrationEtag, setCredentials, updateIntegration, type IntegrationPorts } from '../../services/integrations/domain';
import type { JobQueue } from '../../services/integrations/domain-worker';
import { credentialStore, getIntegration, integrationsStore, listIntegrations } from '../../services/integrations/store';
import { integrationsWorkerStore } from '../../services/integrations/store-worker';
import { fileSecretStore } from '../../services/shared/aws/secrets';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import type { Actor } from '../../services/shared/domain/actor';
import type { AppError } from '../../services/shared/errors';
import { createTestTable } from '../support/table';

/** The integrations store on DynamoDB Local: one integration per provider under races, versioned changes, credentials kept out of the table. */
let db: Db;
const ORG = randomUUID();
const secretsDir = mkdtempSync(join(tmpdir(), 'wfm-secrets-'));
const secrets = fileSecretStore(secretsDir);
const actor: Actor = { principal: { organizationId: ORG, keyId: 'k1', keyLabel: 'test key', environment: 'TEST', scopes: new Set() }, requestId: 'req' };
const queue: JobQueue = { send: async () => undefined };

const portsOf = (unit: UnitOfWork): IntegrationPorts => ({ store: integrationsStore(db, unit, queue), credentials: credentialStore(unit, secrets), now: () => new Date(), newId: randomUUID, allowLoopbackHttp: false });
const run = <T>(work: (ports: IntegrationPorts) => Promise<T>) => inUnitOfWork(db, (unit) => work(portsOf(unit)));

/** The secret-store documents of an organization's integrations (of one, given `id`), as the file store keeps them. */
function secretsOf(org: string, id = ''): string[] {
  const walk = (path: string): string[] => (statSync(path).isDirectory() ? readdirSync(path).flatMap((n) => walk(join(path, n))) : [readFileSync(path, 'utf8')]);
  return readdirSync(join(secretsDir, 'integrations', org))
    .filter((n) => n.startsWith(id))
    .flatMap((n) => walk(join(secretsDir, 'integrations', org, n)));
}

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

beforeAll(async () => {
  db = await createTestTable();
});

it('connects a provider once when two requests race', async () => {
  const input = { provider: 'accounting' as const, displayName: 'Books', baseUrl: 'https://books.example.com', approvedJobKinds: ['CONNECTION_CHECK' as const] };
  const outcomes = await Promise.all(Array.from({ length: 5 }, () => run((p) => createIntegration(p, actor, input)).then((i) => i.id, (e: AppError) => e.code)));
  expect(outcomes.filter((o) => o === 'INTEGRATION_EXISTS')).toHaveLength(4);
  const page = await listIntegrations(db, ORG, 50);
  expect(page.items.map((i) => i.provider)).toEqual(['accounting']);
});

it('changes an integration at the version read, and sets credentials without storing them in the table', async () => {
  const created = await run((p) => createIntegration(p, actor, { provider: 'payroll', displayName: 'Pay', baseUrl: 'https://pay.example.com/', approvedJobKinds: [] }));
  expect(created).toMatchObject({ baseUrl: 'https://pay.example.com', credentialsSet: false, version: 1 });
  const updated = await run((p) => updateIntegration(p, actor, created.id, integrationEtag(created), { approvedJobKinds: ['PAYROLL_DISPATCH'], status: 'DISABLED' }));
  expect(updated).toMatchObject({ approvedJobKinds: ['PAYROLL_DISPATCH'], status: 'DISABLED', version: 2 });
  const unchanged = await run((p) => updateIntegration(p, actor, created.id, integrationEtag(updated), { status: 'DISABLED' }));
  expect(unchanged.version).toBe(2);
  await expect(run((p) => updateIntegration(p, actor, created.id, integrationEtag(created), { displayName: 'x' }))).rejects.toMatchObject({ code: 'ETAG_MISMATCH' });

  const withCredentials = await run((p) => setCredentials(p, actor, 'payroll', integrationEtag(updated), { token: 'tok-DataStoreSecret-99' }));
  expect(withCredentials).toMatchObject({ credentialsSet: true, version: 3 });
  expect(secretsOf(ORG, created.id)).toEqual([expect.stringContaining('tok-DataStoreSecret-99')]);
  expect((await getIntegration(db, ORG, created.id))?.credentialsSet).toBe(true);
  const items = (await db.doc.send(new ScanCommand({ TableName: db.tableName }))).Items ?? [];
  expect(JSON.stringify(items)).not.toContain('tok-DataStoreSecret-99');
});

it('of two credential writes that read the same version, the refused one leaves nothing: the record names the winner\'s credentials', async () => {
  const hr = await run((p) => createIntegration(p, actor, { provider: 'hr', displayName: 'HR', baseUrl: 'https://hr.example.com', approvedJobKinds: ['CONNECTION_CHECK'], credentials: { token: 'tok-First-0001' } }));
  // B reads version 1, then waits; A reads version 1 and commits; then B writes its credentials, last, and its
  // commit is refused (it runs again from its read and answers 412).
  const bRead = deferred();
  const aCommitted = deferred();
  const late = (unit: UnitOfWork): IntegrationPorts => {
    const ports = portsOf(unit);
    return {
      ...ports,
      credentials: {
        putCredentials: async (...args) => {
          bRead.resolve();
          await aCommitted.promise;
          return ports.credentials.putCredentials(...args);
        },
      },
    };
  };
  const b = inUnitOfWork(db, (unit) => setCredentials(late(unit), actor, 'hr', integrationEtag(hr), { token: 'tok-Loser-0002' }));
  await bRead.promise;
  const a = await run((p) => setCredentials(p, actor, 'hr', integrationEtag(hr), { token: 'tok-Winner-0003' }));
  aCommitted.resolve();
  await expect(b).rejects.toMatchObject({ code: 'ETAG_MISMATCH' });

  const record = (await getIntegration(db, ORG, hr.id))!;
  expect(record).toMatchObject({ version: 2, credentialsId: a.credentialsId });
  expect(await integrationsWorkerStore(db, secrets).credentials(record)).toEqual({ token: 'tok-Winner-0003' });
  // The loser's credentials were removed when its commit was refused, the first ones when the winner's committed.
  expect(secretsOf(ORG, hr.id)).toEqual([expect.stringContaining('tok-Winner-0003')]);
});

it('of racing connects with credentials, only the connected integration keeps any in the store', async () => {
  const org = randomUUID();
  const other: Actor = { ...actor, principal: { ...actor.principal, organizationId: org } };
  const input = { provider: 'payroll' as const, displayName: 'Pay', baseUrl: 'https://pay.example.com', approvedJobKinds: ['CONNECTION_CHECK' as const] };
  const outcomes = await Promise.all(
    Array.from({ length: 4 }, (_, n) =>
      inUnitOfWork(db, (unit) => createIntegration(portsOf(unit), other, { ...input, credentials: { token: `tok-Racer-000${n}` } })).then(
        (i) => i,
        (e: AppError) => e.code,
      ),
    ),
  );
  const won = outcomes.filter((o): o is Exclude<typeof o, string> => typeof o !== 'string');
  expect(won).toHaveLength(1);
  expect(outcomes.filter((o) => o === 'INTEGRATION_EXISTS')).toHaveLength(3);
  const kept = await integrationsWorkerStore(db, secrets).credentials(won[0]!);
  expect(kept).toMatchObject({ token: expect.stringMatching(/^tok-Racer-/) });
  expect(secretsOf(org)).toEqual([expect.stringContaining(kept!.token)]);
});
