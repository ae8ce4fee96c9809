import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createIntegration, integrationEtag, setCredentials, updateIntegration, type IntegrationPorts } from '../../services/integrations/domain';
import type { JobQueue } from '../../services/integrations/domain-worker';
import { credentialStore, getIntegration, integrationsStore, listIntegrations } from '../../services/integrations/store';
import { fileSecretStore } from '../../services/shared/aws/secrets';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork } from '../../services/shared/ddb/unit-of-work';
import type { Actor } from '../../services/shared/domain/actor';
import type { AppError } from '../../services/shared/errors';
import { createTestTable } from '../support/table';

/** The integrations store on DynamoDB Local: one integration per provider under races, versioned changes, credentials kept out of the table. */
let db: Db;
const ORG = randomUUID();
const secrets = fileSecretStore(mkdtempSync(join(tmpdir(), 'wfm-secrets-')));
const actor: Actor = { principal: { organizationId: ORG, keyId: 'k1', keyLabel: 'test key', environment: 'TEST', scopes: new Set() }, requestId: 'req' };
const queue: JobQueue = { send: async () => undefined };

const run = <T>(work: (ports: IntegrationPorts) => Promise<T>) =>
  inUnitOfWork(db, (unit) => work({ store: integrationsStore(db, unit, queue), credentials: credentialStore(secrets), now: () => new Date(), newId: randomUUID, allowLoopbackHttp: false }));

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
  expect(await secrets.get(`integrations/${ORG}/${created.id}`)).toContain('tok-DataStoreSecret-99');
  expect((await getIntegration(db, ORG, created.id))?.credentialsSet).toBe(true);
  const items = (await db.doc.send(new ScanCommand({ TableName: db.tableName }))).Items ?? [];
  expect(JSON.stringify(items)).not.toContain('tok-DataStoreSecret-99');
});
