import { randomBytes, randomUUID } from 'node:crypto';
import { putLocation } from '../../services/locations/public';
import { createCustomer, updateCustomer, customerEtag, type CustomerPorts } from '../../services/customers/domain';
import { createFeedback } from '../../services/customers/domain-feedback';
import { activateGrant, createGrant, grantEtag, revokeGrant } from '../../services/customers/domain-access';
import { customersStore, getCustomer, listCustomers, saveCustomer } from '../../services/customers/store';
import { CUSTOMER_DEMO_IDS, seedCustomersAndQuality } from '../../services/customers/seed';
import { UniquenessConflictError } from '../../services/shared/errors';
import { ConcurrentChangeError } from '../../services/shared/domain/conflict';
import { inUnitOfWork, TransactionUnit, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import type { Principal } from '../../services/shared/auth/principal';
import type { Db } from '../../services/shared/ddb/client';
import type { TransactionCancelledError } from '../../services/shared/ddb/transaction';
import { scanTable } from '../support/api';
import { createTestTable } from '../support/table';

/**
 * The customers store on DynamoDB Local: the customer number guard under a race (exactly one
 * of two writers wins, by the guard's condition, not by a read), guard moves, and references
 * that vanish between read and commit.
 */
const ORG = randomUUID();
const principal: Principal = { organizationId: ORG, keyId: 'customers', keyLabel: 'Customers test', environment: 'TEST', scopes: new Set(['customers:write']) };
const actor = { principal, requestId: 'req-customers' };
let db: Db;

const portsOn = (unit: UnitOfWork): CustomerPorts => ({ store: customersStore(db, unit), now: () => new Date(), newId: randomUUID, newSecret: () => randomBytes(32).toString('base64url') });
const run = <T>(work: (ports: CustomerPorts) => Promise<T>) => inUnitOfWork(db, (unit) => work(portsOn(unit)));

/** A location of ORG, written as the seed writes it; `archived` archives it. */
async function site(archived = false, id: string = randomUUID()): Promise<string> {
  const at = new Date().toISOString();
  await putLocation(db, { id, organizationId: ORG, name: 'Site', address: 'x', archived, archivedAt: archived ? at : null, createdAt: at, updatedAt: at });
  return id;
}

beforeAll(async () => {
  db = await createTestTable();
});

describe('customer number guard', () => {
  it('lets exactly one of two writers that both read "free" commit one number', async () => {
    // Both decide before either commits: only the guard's condition can tell them apart.
    const a = new TransactionUnit(db);
    const b = new TransactionUnit(db);
    await createCustomer(portsOn(a), actor, { name: 'A', customerNumber: 'R-1' });
    await createCustomer(portsOn(b), actor, { name: 'B', customerNumber: 'r-1' });
    const results = await Promise.allSettled([a.commit(), b.commit()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(UniquenessConflictError);
    const items = await scanTable(db);
    expect(items.filter((i) => i.itemType === 'Customer' && i.organizationId === ORG)).toHaveLength(1);
    expect(items.filter((i) => i.itemType === 'CustomerNumberGuard' && i.organizationId === ORG)).toHaveLength(1);
    expect(items.filter((i) => i.itemType === 'AuditEntry' && i.organizationId === ORG)).toHaveLength(1);
  });

  it('moves the guard with the number, and the same number in another organization is free', async () => {
    const c = await run((p) => createCustomer(p, actor, { name: 'Mover', customerNumber: 'M-1' }));
    const moved = await run((p) => updateCustomer(p, actor, c.id, customerEtag(c), { customerNumber: 'M-2' }));
    expect(moved.customerNumber).toBe('M-2');
    await run((p) => createCustomer(p, actor, { name: 'Reuses', customerNumber: 'm-1' }));
    const otherActor = { principal: { ...principal, organizationId: randomUUID() }, requestId: 'req-other' };
    await run((p) => createCustomer(p, otherActor, { name: 'Elsewhere', customerNumber: 'M-2' }));
    const guards = (await scanTable(db)).filter((i) => i.itemType === 'CustomerNumberGuard' && i.customerId === c.id);
    expect(guards.map((g) => g.PK)).toEqual([`ORG#${ORG}#CUSTNO#M-2`]);
  });

  it('refuses a release of a guard another customer holds: the stale writer reads again', async () => {
    const c = await run((p) => createCustomer(p, actor, { name: 'Stale', customerNumber: 'S-1' }));
    const unit = new TransactionUnit(db);
    saveCustomer(unit, { before: { ...c, customerNumber: 'NOT-MINE' }, after: { ...c, customerNumber: 'S-2', version: 2 }, audit: (await import('../../services/audit/model')).auditEntry({ id: randomUUID(), actor, occurredAt: new Date().toISOString(), action: 'customer.updated', entity: { type: 'customer', id: c.id } }) });
    await expect(unit.commit()).rejects.toThrow();
    expect((await getCustomer(db, ORG, c.id))?.customerNumber).toBe('S-1');
  });
});

describe('references', () => {
  it('refuses feedback whose location vanished before the commit (the condition check holds, nothing written)', async () => {
    const locationId = randomUUID();
    await putLocation(db, { id: locationId, organizationId: ORG, name: 'Site', address: 'x', createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
    const unit = new TransactionUnit(db);
    await createFeedback(portsOn(unit), actor, { rating: 3, category: 'OTHER', locationId });
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { locationKeys } = await import('../../services/locations/public');
    await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: locationKeys.location(ORG, locationId) }));
    await expect(unit.commit()).rejects.toThrow(/location/i);
    expect((await scanTable(db)).filter((i) => i.itemType === 'Feedback' && i.locationId === locationId)).toHaveLength(0);
  });

  it('refuses feedback whose visit confirmation vanished before the commit: the use case runs again and answers 422, nothing written', async () => {
    const locationId = await site();
    const visitId = randomUUID();
    const at = new Date().toISOString();
    const { DeleteCommand, PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { visitKeys, visitToItem } = await import('../../services/planning/model');
    await db.doc.send(new PutCommand({ TableName: db.tableName, Item: visitToItem({ id: visitId, organizationId: ORG, locationId, employeeIds: [randomUUID()], shiftId: null, confirmedAt: at, method: 'LOCATION_TAG', verificationState: 'VERIFIED', recordedAt: at }) }));
    const unit = new TransactionUnit(db);
    const decided = await createFeedback(portsOn(unit), actor, { rating: 5, category: 'STAFF', locationId, visitConfirmationId: visitId });
    expect(decided.visitConfirmationId).toBe(visitId);
    await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: visitKeys.visit(ORG, visitId) }));
    const refused = await unit.commit().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConcurrentChangeError);
    expect(((refused as ConcurrentChangeError).cause as TransactionCancelledError).failedLabels()).toEqual(['visit-confirmation']);
    await expect(run((p) => createFeedback(p, actor, { rating: 5, category: 'STAFF', locationId, visitConfirmationId: visitId }))).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ pointer: '/visitConfirmationId' }] });
    expect((await scanTable(db)).filter((i) => i.itemType === 'Feedback' && i.locationId === locationId)).toHaveLength(0);
  });

  it('refuses feedback whose location or customer was archived before the commit: the use case runs again and answers 422', async () => {
    const locationId = await site();
    const customer = await run((p) => createCustomer(p, actor, { name: 'Archived later', customerNumber: 'AL-1', locationIds: [locationId] }));
    const byCustomer = new TransactionUnit(db);
    await createFeedback(portsOn(byCustomer), actor, { rating: 2, category: 'OTHER', locationId, customerId: customer.id });
    const archived = await run((p) => updateCustomer(p, actor, customer.id, customerEtag(customer), { archived: true }));
    await expect(byCustomer.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    await expect(run((p) => createFeedback(p, actor, { rating: 2, category: 'OTHER', locationId, customerId: customer.id }))).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ pointer: '/customerId' }] });
    expect(archived.archived).toBe(true);

    const atLocation = new TransactionUnit(db);
    await createFeedback(portsOn(atLocation), actor, { rating: 2, category: 'OTHER', locationId });
    await site(true, locationId);
    await expect(atLocation.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    await expect(run((p) => createFeedback(p, actor, { rating: 2, category: 'OTHER', locationId }))).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ pointer: '/locationId' }] });
    expect((await scanTable(db)).filter((i) => i.itemType === 'Feedback' && i.locationId === locationId)).toHaveLength(0);
  });

  it('refuses an activation whose customer was archived before the commit: the use case runs again and answers 409', async () => {
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { contactKeys } = await import('../../services/locations/public');
    const contactId = randomUUID();
    await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...contactKeys.contact(ORG, contactId), itemType: 'Contact', id: contactId, organizationId: ORG, name: 'Invitee' } }));
    const linker = { principal: { ...principal, scopes: new Set(['customers:write', 'contacts:write']) }, requestId: 'req-linker' };
    const customer = await run((p) => createCustomer(p, linker, { name: 'Closing soon', customerNumber: 'CS-1', contactIds: [contactId] }));
    const { grant, invitationSecret } = await run((p) => createGrant(p, actor, { customerId: customer.id, contactId, permissions: ['reports:read'], expiresAt: new Date(Date.now() + 86_400_000).toISOString() }));
    const unit = new TransactionUnit(db);
    await activateGrant(portsOn(unit), actor, grant.id, grantEtag(grant), invitationSecret);
    await run((p) => updateCustomer(p, actor, customer.id, customerEtag(customer), { archived: true }));
    await expect(unit.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    await expect(run((p) => activateGrant(p, actor, grant.id, grantEtag(grant), invitationSecret))).rejects.toMatchObject({ code: 'CUSTOMER_ARCHIVED' });
    expect((await scanTable(db)).find((i) => i.itemType === 'CustomerAccessGrant' && i.id === grant.id)).toMatchObject({ state: 'INVITED', version: 1 });
  });

  describe('access guard', () => {
    const linker = { principal: { ...principal, scopes: new Set(['customers:write', 'contacts:write']) }, requestId: 'req-linker' };
    async function customerWithGrant(customerNumber: string) {
      const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
      const { contactKeys } = await import('../../services/locations/public');
      const contactId = randomUUID();
      await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...contactKeys.contact(ORG, contactId), itemType: 'Contact', id: contactId, organizationId: ORG, name: 'Portal user' } }));
      const customer = await run((p) => createCustomer(p, linker, { name: 'Guarded', customerNumber, contactIds: [contactId] }));
      const issued = await run((p) => createGrant(p, actor, { customerId: customer.id, contactId, permissions: ['reports:read'], expiresAt: new Date(Date.now() + 86_400_000).toISOString() }));
      return { customer, contactId, ...issued };
    }
    const storedCustomer = async (id: string) => (await scanTable(db)).find((i) => i.itemType === 'Customer' && i.id === id);

    it('refuses an archive and an unlink decided before an activation committed: each runs again and answers 409 CUSTOMER_ACCESS_GRANTED', async () => {
      const { customer, grant, invitationSecret } = await customerWithGrant('AG-1');
      // Both decide while the grant is still INVITED (nothing blocks them then).
      const archive = new TransactionUnit(db);
      await updateCustomer(portsOn(archive), actor, customer.id, customerEtag(customer), { archived: true });
      const unlink = new TransactionUnit(db);
      await updateCustomer(portsOn(unlink), linker, customer.id, customerEtag(customer), { contactIds: [] });
      await run((p) => activateGrant(p, actor, grant.id, grantEtag(grant), invitationSecret));
      await expect(archive.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
      await expect(unlink.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
      await expect(run((p) => updateCustomer(p, actor, customer.id, customerEtag(customer), { archived: true }))).rejects.toMatchObject({ code: 'CUSTOMER_ACCESS_GRANTED', extensions: { activeGrantIds: [grant.id] } });
      await expect(run((p) => updateCustomer(p, linker, customer.id, customerEtag(customer), { contactIds: [] }))).rejects.toMatchObject({ code: 'CUSTOMER_ACCESS_GRANTED' });
      expect(await storedCustomer(customer.id)).toMatchObject({ archived: false, contactIds: customer.contactIds, version: 1 });
    });

    it('counts a grant activated before the guard existed (read from the customer grants), and the revocation writes the guard without it', async () => {
      const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
      const { customerKeys } = await import('../../services/customers/model');
      const { customer, grant, invitationSecret } = await customerWithGrant('AG-2');
      const active = await run((p) => activateGrant(p, actor, grant.id, grantEtag(grant), invitationSecret));
      await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: customerKeys.accessGuard(ORG, customer.id) }));
      await expect(run((p) => updateCustomer(p, actor, customer.id, customerEtag(customer), { archived: true }))).rejects.toMatchObject({ code: 'CUSTOMER_ACCESS_GRANTED', extensions: { activeGrantIds: [grant.id] } });
      await run((p) => revokeGrant(p, actor, grant.id, grantEtag(active)));
      expect((await scanTable(db)).find((i) => i.itemType === 'CustomerAccessGuard' && i.customerId === customer.id)).toMatchObject({ version: 1, activeGrants: {} });
      expect(await run((p) => updateCustomer(p, actor, customer.id, customerEtag(customer), { archived: true }))).toMatchObject({ archived: true, version: 2 });
    });
  });

  it('refuses a customer link to a location archived before the commit: the use case runs again and answers 422', async () => {
    const locationId = await site();
    const unit = new TransactionUnit(db);
    await createCustomer(portsOn(unit), actor, { name: 'Late link', customerNumber: 'LL-1', locationIds: [locationId] });
    await site(true, locationId);
    await expect(unit.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    expect((await scanTable(db)).filter((i) => i.itemType === 'Customer' && i.customerNumber === 'LL-1')).toHaveLength(0);
    await expect(run((p) => createCustomer(p, actor, { name: 'Late link', customerNumber: 'LL-1', locationIds: [locationId] }))).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ pointer: '/locationIds/0' }] });
  });
});

describe('demo seed', () => {
  const found = async (org: string, q: string) => (await listCustomers(db, org, { q, limit: 10 })).items.map((c) => c.id);

  it('writes search words with its customers, and a repeat writes the missing words of customers seeded without them', async () => {
    const org = randomUUID();
    const seed = () => seedCustomersAndQuality(db, org, [randomUUID(), randomUUID()], randomUUID(), new Date().toISOString());
    await seed();
    expect(await found(org, 'harbour')).toEqual([CUSTOMER_DEMO_IDS.customers[0]]);
    expect(await found(org, 'c-1002')).toEqual([CUSTOMER_DEMO_IDS.customers[1]]);
    // A table seeded before the seed wrote search words: drop them, then seed again.
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    const words = (await scanTable(db)).filter((i) => i.PK === `ORG#${org}#SEARCH#customer`);
    expect(words.length).toBeGreaterThan(0);
    for (const w of words) await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: { PK: w.PK, SK: w.SK } }));
    expect(await found(org, 'harbour')).toEqual([]);
    await seed();
    expect(await found(org, 'harbour')).toEqual([CUSTOMER_DEMO_IDS.customers[0]]);
    expect((await scanTable(db)).filter((i) => i.PK === `ORG#${org}#SEARCH#customer`)).toHaveLength(words.length);
  });
});
