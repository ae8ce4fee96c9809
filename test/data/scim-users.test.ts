import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { listAuditEntries } from '../../services/audit/store';
import { employeeKeys, getEmployee, putEmployee } from '../../services/employees/store';
import { ingestEvidence } from '../../services/evidence-ingest/handler';
import { putLocation } from '../../services/locations/store';
import { putOrganization } from '../../services/organization/public';
import { documentFromResource } from '../../services/scim/domain-patch';
import { fieldsOf } from '../../services/scim/domain-document';
import type { UserFields } from '../../services/scim/model';
import { createUser, deleteUser, getUser, listUsers, scimDeps, updateUser, type Actor, type ScimDeps } from '../support/scim-use-cases';
import type { Db } from '../../services/shared/ddb/client';
import { getWorkEvent } from '../../services/work-events/store';
import { createTestTable } from '../support/table';

let db: Db;
let deps: ScimDeps;
beforeAll(async () => {
  db = await createTestTable();
  deps = scimDeps(db);
});

const newOrg = async (): Promise<string> => {
  const id = randomUUID();
  const now = new Date().toISOString();
  await putOrganization(db, { id, name: 'Org', entitlements: { timesheetCorrections: true }, rolloutGates: { timesheetCorrections: true }, createdAt: now, updatedAt: now });
  return id;
};

const actor = (organizationId: string, requestId = randomUUID()): Actor => ({
  principal: { organizationId, keyId: 'k3yid', keyLabel: 'Entra provisioning', environment: 'TEST', scopes: new Set(['scim:read', 'scim:write']) },
  requestId,
});

const fields = (overrides: Record<string, unknown> = {}): UserFields => {
  const n = randomUUID().slice(0, 8);
  return fieldsOf(
    documentFromResource(
      { userName: `user.${n}@example.com`, externalId: `ext-${n}`, name: { givenName: 'Grace', familyName: 'Hopper' }, emails: [{ value: `grace.${n}@example.com`, type: 'work', primary: true }], ...overrides },
      {},
    ),
    true,
  );
};

const item = async (key: { PK: string; SK: string }) => (await db.doc.send(new GetCommand({ TableName: db.tableName, Key: key, ConsistentRead: true }))).Item;

const audit = async (org: string) => (await listAuditEntries(db, org, { limit: 100 })).items;

describe('createUser', () => {
  it('creates the employee with its guards, e-mail lookup and one audit entry of allowlisted content', async () => {
    const org = await newOrg();
    const requestId = randomUUID();
    const input = fields({ displayName: 'Grace Hopper' });
    const { user } = await createUser(deps, actor(org, requestId), input);

    expect(await getEmployee(db, org, user.id)).toEqual(user);
    expect(await item(employeeKeys.uniqueGuard(org, 'userName', input.userName.toUpperCase()))).toMatchObject({ employeeId: user.id });
    expect(await item(employeeKeys.uniqueGuard(org, 'externalId', input.externalId!))).toMatchObject({ employeeId: user.id });
    expect(await item(employeeKeys.emailLookup(org, input.emails[0].value, user.id))).toMatchObject({ employeeId: user.id });

    const [entry] = await audit(org);
    expect(entry).toMatchObject({
      action: 'scim_user.created',
      actor: { type: 'API_KEY', keyId: 'k3yid', label: 'Entra provisioning' },
      entity: { type: 'employee', id: user.id },
      after: { active: true, scimDeleted: false },
      changedAttributes: ['userName', 'externalId', 'displayName', 'name.givenName', 'name.familyName', 'active', 'emails'],
      requestId,
    });
    const text = JSON.stringify(entry);
    for (const secret of [input.userName, input.emails[0].value, 'Grace', 'Hopper', input.externalId!]) expect(text).not.toContain(secret);
  });

  it('lets exactly one of many concurrent creates of the same userName win', async () => {
    const org = await newOrg();
    const userName = `race.${randomUUID().slice(0, 8)}@example.com`;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => createUser(deps, actor(org), fields({ userName: i % 2 ? userName.toUpperCase() : userName }))),
    );
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(7);
    for (const l of lost) expect(l.reason).toMatchObject({ code: 'UNIQUENESS_CONFLICT', attribute: 'userName' });
    expect((await listUsers(deps, org, { filter: [], startIndex: 1, count: 100 })).totalResults).toBe(1);
    expect(await audit(org)).toHaveLength(1);
  });

  it('lets exactly one of many concurrent creates of the same externalId win', async () => {
    const org = await newOrg();
    const externalId = `ext-${randomUUID()}`;
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => createUser(deps, actor(org), fields({ externalId }))));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'UNIQUENESS_CONFLICT', attribute: 'externalId' });
    expect((await listUsers(deps, org, { filter: [], startIndex: 1, count: 100 })).totalResults).toBe(1);
  });

  it('keeps externalId case-exact: values differing in case are different users', async () => {
    const org = await newOrg();
    await createUser(deps, actor(org), fields({ externalId: 'AbC' }));
    await expect(createUser(deps, actor(org), fields({ externalId: 'abc' }))).resolves.toBeDefined();
    await expect(createUser(deps, actor(org), fields({ externalId: 'AbC' }))).rejects.toMatchObject({ code: 'UNIQUENESS_CONFLICT' });
  });

  it('writes nothing when a value is taken', async () => {
    const org = await newOrg();
    const first = fields();
    await createUser(deps, actor(org), first);
    await expect(createUser(deps, actor(org), fields({ userName: first.userName }))).rejects.toMatchObject({ code: 'UNIQUENESS_CONFLICT' });
    expect((await listUsers(deps, org, { filter: [], startIndex: 1, count: 100 })).totalResults).toBe(1);
    expect(await audit(org)).toHaveLength(1);
  });

  it('keeps the same person in two organizations apart', async () => {
    const [orgA, orgB] = [await newOrg(), await newOrg()];
    const person = fields();
    const a = await createUser(deps, actor(orgA), person);
    const b = await createUser(deps, actor(orgB), person);
    expect(a.user.id).not.toBe(b.user.id);
    expect(a.user.organizationId).toBe(orgA);
    await expect(getUser(deps, orgB, a.user.id)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    expect((await listUsers(deps, orgB, { filter: [{ attribute: 'userName', value: person.userName }], startIndex: 1, count: 10 })).users.map((u) => u.id)).toEqual([b.user.id]);
  });

  it('adds the caller’s items (the idempotency record) to the same transaction', async () => {
    const org = await newOrg();
    const marker = { PK: `TEST#${randomUUID()}`, SK: 'MARKER' };
    const { user } = await createUser(deps, actor(org), fields(), async (after) => [{ label: 'marker', op: { Put: { Item: { ...marker, employeeId: after.id } } } }]);
    expect(await item(marker)).toMatchObject({ employeeId: user.id });
  });
});

describe('updateUser', () => {
  it('moves the userName and externalId guards in the same transaction', async () => {
    const org = await newOrg();
    const original = fields();
    const { user } = await createUser(deps, actor(org), original);
    const moved = { ...original, userName: `moved.${randomUUID().slice(0, 8)}@example.com`, externalId: `ext-moved-${randomUUID()}` };
    const { user: after } = await updateUser(deps, actor(org), user.id, undefined, () => moved);
    expect(after).toMatchObject({ userName: moved.userName, externalId: moved.externalId, version: 2 });

    expect(await item(employeeKeys.uniqueGuard(org, 'userName', original.userName))).toBeUndefined();
    expect(await item(employeeKeys.uniqueGuard(org, 'externalId', original.externalId!))).toBeUndefined();
    await expect(createUser(deps, actor(org), fields({ userName: moved.userName }))).rejects.toMatchObject({ attribute: 'userName' });
    await expect(createUser(deps, actor(org), fields({ userName: original.userName, externalId: original.externalId }))).resolves.toBeDefined();
  });

  it('replaces the e-mail lookups with the new addresses', async () => {
    const org = await newOrg();
    const original = fields();
    const { user } = await createUser(deps, actor(org), original);
    await updateUser(deps, actor(org), user.id, undefined, () => ({ ...original, emails: [{ value: 'New.Address@Example.com', type: 'work' }] }));
    expect(await item(employeeKeys.emailLookup(org, original.emails[0].value, user.id))).toBeUndefined();
    const found = await listUsers(deps, org, { filter: [{ attribute: 'emails.value', emailType: 'work', value: 'new.address@example.com' }], startIndex: 1, count: 10 });
    expect(found.users.map((u) => u.id)).toEqual([user.id]);
  });

  it('refuses a userName another user holds', async () => {
    const org = await newOrg();
    const a = fields();
    await createUser(deps, actor(org), a);
    const { user: b } = await createUser(deps, actor(org), fields());
    await expect(updateUser(deps, actor(org), b.id, undefined, (before) => ({ ...before, userName: a.userName.toUpperCase() }))).rejects.toMatchObject({
      code: 'UNIQUENESS_CONFLICT',
      attribute: 'userName',
    });
  });

  it('commits nothing and writes no audit entry when nothing changed', async () => {
    const org = await newOrg();
    const input = fields();
    const { user } = await createUser(deps, actor(org), input);
    const { user: same } = await updateUser(deps, actor(org), user.id, undefined, () => input);
    expect(same.version).toBe(1);
    expect(await audit(org)).toHaveLength(1);
  });

  it('answers 412 for a stale If-Match and applies with the current one', async () => {
    const org = await newOrg();
    const input = fields();
    const { user } = await createUser(deps, actor(org), input);
    await expect(updateUser(deps, actor(org), user.id, 'W/"7"', () => ({ ...input, active: false }))).rejects.toMatchObject({ code: 'ETAG_MISMATCH' });
    await expect(updateUser(deps, actor(org), user.id, 'W/"1"', () => ({ ...input, active: false }))).resolves.toMatchObject({ user: { active: false, version: 2 } });
  });

  it('re-reads and applies both of two concurrent changes', async () => {
    const org = await newOrg();
    const { user } = await createUser(deps, actor(org), fields());
    await Promise.all([
      updateUser(deps, actor(org), user.id, undefined, (before) => ({ ...before, title: 'Site lead' })),
      updateUser(deps, actor(org), user.id, undefined, (before) => ({ ...before, department: 'Cleaning' })),
    ]);
    expect(await getEmployee(db, org, user.id)).toMatchObject({ title: 'Site lead', department: 'Cleaning', version: 3 });
  });

  it('audits deactivation and reactivation', async () => {
    const org = await newOrg();
    const input = fields();
    const { user } = await createUser(deps, actor(org), input);
    await updateUser(deps, actor(org), user.id, undefined, () => ({ ...input, active: false }));
    await updateUser(deps, actor(org), user.id, undefined, () => ({ ...input, active: true }));
    expect((await audit(org)).map((e) => [e.action, e.before, e.after])).toEqual([
      ['scim_user.reactivated', { active: false, scimDeleted: false }, { active: true, scimDeleted: false }],
      ['scim_user.deactivated', { active: true, scimDeleted: false }, { active: false, scimDeleted: false }],
      ['scim_user.created', undefined, { active: true, scimDeleted: false }],
    ]);
  });
});

describe('deleteUser and re-linking', () => {
  it('retires the SCIM resource, keeps the employee and its work events, and re-links it on a later create', async () => {
    const org = await newOrg();
    const input = fields();
    const { user } = await createUser(deps, actor(org), input);
    const locationId = randomUUID();
    const now = new Date().toISOString();
    await putLocation(db, { id: locationId, organizationId: org, name: 'Depot', createdAt: now, updatedAt: now });
    const scan = await ingestEvidence({ db, now: () => new Date(), newId: randomUUID, seal: async () => ({}) as never }, org, {
      employeeId: user.id,
      locationId,
      type: 'CHECK_IN',
      clientTimestamp: now,
      offline: false,
      verificationState: 'VERIFIED',
    });

    await deleteUser(deps, actor(org), user.id, undefined);
    await expect(getUser(deps, org, user.id)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    expect((await listUsers(deps, org, { filter: [], startIndex: 1, count: 100 })).totalResults).toBe(0);
    expect((await listUsers(deps, org, { filter: [{ attribute: 'externalId', value: input.externalId! }], startIndex: 1, count: 100 })).totalResults).toBe(0);
    expect(await getEmployee(db, org, user.id)).toMatchObject({ id: user.id, scimDeleted: true, active: false });
    expect(await getWorkEvent(db, org, scan.workEventId)).toMatchObject({ employeeId: user.id });
    await expect(deleteUser(deps, actor(org), user.id, undefined)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(updateUser(deps, actor(org), user.id, undefined, () => input)).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });

    const again = await createUser(deps, actor(org), { ...input, displayName: 'Back again' });
    expect(again).toMatchObject({ relinked: true, user: { id: user.id, active: true, displayName: 'Back again', createdAt: user.createdAt } });
    expect(again.user.scimDeleted).toBeUndefined();
    expect(await getWorkEvent(db, org, scan.workEventId)).toMatchObject({ employeeId: user.id });
    expect((await audit(org)).map((e) => e.action).filter((a) => a.startsWith('scim_user.'))).toEqual(['scim_user.relinked', 'scim_user.deleted', 'scim_user.created']);
  });

  it('re-links by userName when the create has no externalId', async () => {
    const org = await newOrg();
    const { user } = await createUser(deps, actor(org), fields({ userName: 'Relink.Me@example.com' }));
    await deleteUser(deps, actor(org), user.id, undefined);
    const again = await createUser(deps, actor(org), fields({ userName: 'relink.me@EXAMPLE.com', externalId: null }));
    expect(again).toMatchObject({ relinked: true, user: { id: user.id, userName: 'relink.me@EXAMPLE.com' } });
    expect(again.user.externalId).toBeUndefined();
  });

  it('lets one of two concurrent re-links of the same retained employee win', async () => {
    const org = await newOrg();
    const input = fields();
    const { user } = await createUser(deps, actor(org), input);
    await deleteUser(deps, actor(org), user.id, undefined);
    const outcomes = await Promise.allSettled([createUser(deps, actor(org), input), createUser(deps, actor(org), input)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'UNIQUENESS_CONFLICT' } });
  });

  it('hands a retired user’s userName to another user, and then refuses it to the retired one', async () => {
    const org = await newOrg();
    const a = fields();
    const d = fields();
    const { user: userA } = await createUser(deps, actor(org), a);
    const { user: userD } = await createUser(deps, actor(org), d);
    await deleteUser(deps, actor(org), userA.id, undefined);
    await deleteUser(deps, actor(org), userD.id, undefined);
    // D comes back (by its externalId) under A's userName: D takes A's userName over.
    const back = await createUser(deps, actor(org), { ...d, userName: a.userName });
    expect(back.user.id).toBe(userD.id);
    expect(await item(employeeKeys.uniqueGuard(org, 'userName', a.userName))).toMatchObject({ employeeId: userD.id });
    // A, re-linked by its externalId with its old userName, now collides with the live D.
    await expect(createUser(deps, actor(org), a)).rejects.toMatchObject({ code: 'UNIQUENESS_CONFLICT', attribute: 'userName' });
  });
});

describe('listUsers', () => {
  it('pages in creation order with totalResults, and reads only with Query, Get and BatchGet (never Scan)', async () => {
    const org = await newOrg();
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push((await createUser(deps, actor(org), fields({ displayName: i < 3 ? 'Same Name' : `Other ${i}` }))).user.id);
    const commands: string[] = [];
    const spy = jest.spyOn(db.doc, 'send').mockImplementation(function (this: unknown, command: { constructor: { name: string } }) {
      commands.push(command.constructor.name);
      return (jest.requireActual('@aws-sdk/lib-dynamodb').DynamoDBDocumentClient.prototype.send as (...a: unknown[]) => unknown).call(db.doc, command);
    } as never);
    try {
      const pages = [];
      for (let start = 1; start <= 5; start += 2) pages.push(await listUsers(deps, org, { filter: [], startIndex: start, count: 2 }));
      expect(pages.map((p) => p.totalResults)).toEqual([5, 5, 5]);
      expect(pages.flatMap((p) => p.users.map((u) => u.id))).toEqual(created);
      const byName = await listUsers(deps, org, { filter: [{ attribute: 'displayName', value: 'same NAME' }], startIndex: 2, count: 5 });
      expect(byName).toMatchObject({ totalResults: 3 });
      expect(byName.users.map((u) => u.id)).toEqual(created.slice(1, 3));
      await listUsers(deps, org, { filter: [{ attribute: 'emails.value', value: 'nobody@example.com' }], startIndex: 1, count: 5 });
      await listUsers(deps, org, { filter: [{ attribute: 'id', value: created[0] }], startIndex: 1, count: 5 });
    } finally {
      spy.mockRestore();
    }
    expect(commands.length).toBeGreaterThan(0);
    expect(commands.filter((c) => !['QueryCommand', 'GetCommand', 'BatchGetCommand'].includes(c))).toEqual([]);
  });

  it('finds employees written by the plain put of seeds and tests', async () => {
    const org = await newOrg();
    const now = new Date().toISOString();
    const id = randomUUID();
    await putEmployee(db, { id, organizationId: org, userName: 'seeded@example.com', emails: [{ value: 'seeded@example.com', type: 'work', primary: true }], externalId: 'seed-1', active: true, createdAt: now, updatedAt: now, version: 1 });
    for (const clause of [
      { attribute: 'userName', value: 'SEEDED@example.com' },
      { attribute: 'externalId', value: 'seed-1' },
      { attribute: 'emails.value', emailType: 'work', value: 'seeded@example.com' },
    ] as const) {
      expect((await listUsers(deps, org, { filter: [clause], startIndex: 1, count: 5 })).users.map((u) => u.id)).toEqual([id]);
    }
    await expect(createUser(deps, actor(org), fields({ userName: 'seeded@example.com' }))).rejects.toMatchObject({ code: 'UNIQUENESS_CONFLICT' });
  });
});
