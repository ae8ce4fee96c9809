import { randomUUID } from 'node:crypto';
import { listAuditEntries } from '../../services/audit/store';
import { readOrganization, settingsEtag, updateSettings as updateSettingsWith, type Organization, type OrganizationPorts, type OrganizationSettings } from '../../services/organization/domain';
import { organizationStore, saveSettings } from '../../services/organization/store';
import { getOrganization, putOrganization, setTimesheetCorrections, versionOf } from '../../services/organization/public';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork, READ_ONLY_UNIT } from '../../services/shared/ddb/unit-of-work';
import type { Actor } from '../../services/shared/domain/actor';
import { EtagMismatchError } from '../../services/shared/errors';
import { createTestTable } from '../support/table';

/** Settings writes on the organization item, against DynamoDB Local. */
let db: Db;
let deps: OrganizationPorts;
beforeAll(async () => {
  db = await createTestTable();
  deps = { store: organizationStore(db, READ_ONLY_UNIT), now: () => new Date(), newId: randomUUID };
});

/** The use case in a unit of work of its own, as the area handler runs it: reads through `ports`, stages in the unit. */
const updateSettings = (ports: OrganizationPorts, actor: Actor, ifMatch: string, patch: Partial<OrganizationSettings>) =>
  inUnitOfWork(db, (unit) => updateSettingsWith({ ...ports, store: { getOrganization: ports.store.getOrganization, saveSettings: (change) => saveSettings(unit, change) } }, actor, ifMatch, patch));

const newOrg = async (): Promise<string> => {
  const id = randomUUID();
  const now = new Date().toISOString();
  await putOrganization(db, { id, name: 'Org', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: now, updatedAt: now });
  return id;
};
const actor = (organizationId: string) => ({
  principal: { organizationId, keyId: 'k1', keyLabel: 'Admin', environment: 'TEST' as const, scopes: new Set(['organization:write']) },
  requestId: randomUUID(),
});

describe('updateSettings on DynamoDB Local', () => {
  it('lets exactly one of two changes with the same ETag commit', async () => {
    const org = await newOrg();
    const etag = settingsEtag(await readOrganization(deps, org));
    const results = await Promise.allSettled([
      updateSettings(deps, actor(org), etag, { locale: 'de' }),
      updateSettings(deps, actor(org), etag, { locale: 'fr' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(EtagMismatchError);
    expect(versionOf((await getOrganization(db, org, true))!)).toBe(1);
    expect((await listAuditEntries(db, org, { limit: 10 })).items).toHaveLength(1);
  });

  it('keeps the capability facts and moves the version with an operator change', async () => {
    const org = await newOrg();
    await updateSettings(deps, actor(org), settingsEtag(await readOrganization(deps, org)), { timeZone: 'Europe/Berlin' });
    const changed = await setTimesheetCorrections(db, org, { rolloutGate: false }, new Date().toISOString());
    expect(changed).toMatchObject({ version: 2, settings: { timeZone: 'Europe/Berlin' }, rolloutGates: { timesheetCorrections: false }, entitlements: { timesheetCorrections: true } });
  });

  it('writes neither settings nor audit when the organization moved after the read', async () => {
    const org = await newOrg();
    const read = await readOrganization(deps, org);
    await setTimesheetCorrections(db, org, { entitlement: false }, new Date().toISOString());
    const stale = { ...deps, store: { ...deps.store, getOrganization: async (): Promise<Organization> => read } };
    await expect(updateSettings(stale, actor(org), settingsEtag(read), { locale: 'de' })).rejects.toBeInstanceOf(EtagMismatchError);
    expect((await getOrganization(db, org, true))?.settings).toBeUndefined();
    expect((await listAuditEntries(db, org, { limit: 10 })).items).toEqual([]);
  });
});
