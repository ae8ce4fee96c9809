import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { createInvoice, commerceStore, invoiceEtag, issueInvoice, recordPayment, type CommercePorts, type Writer } from '../../services/commerce/public';
import { acknowledgeFeedback, createFeedback, feedbackEtag, resolveFeedback } from '../../services/customers/domain-feedback';
import { CUSTOMER_DEMO_IDS } from '../../services/customers/seed';
import { customersStore } from '../../services/customers/store';
import { putEmployee } from '../../services/employees/public';
import { ingestEvidence } from '../../services/evidence-ingest/handler';
import { DEMO_IDS, seedDemo } from '../../services/local/seed';
import { dashboard } from '../../services/overview/domain';
import { overviewStore } from '../../services/overview/store';
import { cancelShift, createShift, publishShift, shiftEtag } from '../../services/planning/domain';
import { planningPorts } from '../../services/planning/store';
import type { Manifest } from '../../services/reports/model';
import { abandonManifest, openManifest, supersedeItem } from '../../services/reports/store-manifests';
import type { Principal } from '../../services/shared/auth/principal';
import type { Db } from '../../services/shared/ddb/client';
import { boundedCount } from '../../services/shared/ddb/count';
import { commit } from '../../services/shared/ddb/transaction';
import { inUnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { SCOPES } from '../../services/shared/auth/scopes';
import { correctTimeEntry, createTimeEntry, voidTimeEntry, type TimesheetPorts } from '../../services/timesheets/domain';
import { etagOf } from '../../services/timesheets/domain-rules';
import { scanTable } from '../support/api';
import { monthManifest, publishMonthManifest } from '../support/manifests';
import { sealRestricted } from '../../services/shared/crypto/restricted';
import { createTestTable } from '../support/table';
import { timesheetsIn } from '../support/timesheets';
import { countsOf, recount, type Recount } from './overview-recount';

/**
 * Counter = recount: after each step of a sequence of creates, corrections and voids (time
 * entries, scans, feedback, invoices, shifts, export manifests), every dashboard figure, read
 * through the owning areas' bounded ports, equals a recount of the table's items; the other
 * organization's figures stay its own.
 */
let db: Db;
const ORG = DEMO_IDS.organization;
const LOC = DEMO_IDS.locations[0];
const principal: Principal = { organizationId: ORG, keyId: 'overview-counts', keyLabel: 'Overview counts', environment: 'TEST', scopes: new Set(SCOPES) };
const actor = () => ({ principal, requestId: randomUUID() });
const writer = (): Writer => ({ system: 'Overview counts test', organizationId: ORG, requestId: randomUUID() });
let employee: string;
let last: Recount;

const figures = async (org: string = ORG) => dashboard({ store: overviewStore(db), now: () => new Date() }, org);

/** Every figure equals the recount; returns the counts, so that a step can also say how they moved. */
async function expectCounterEqualsRecount(): Promise<Recount> {
  const items = await scanTable(db);
  for (const org of [ORG, DEMO_IDS.otherOrganization]) {
    const d = await figures(org);
    expect({ org, ...countsOf(d) }).toEqual({ org, ...recount(items, org, d.asOf, d.reviewSince) });
    for (const f of [d.employeesOnShiftNow, d.openTimeEntries, d.evidenceNeedingReview, d.staleExports, d.unresolvedFeedback, d.overdueInvoices]) expect(f.capped).toBe(false);
  }
  return countsOf(await figures());
}

/** Runs a step, checks counter = recount, and returns how each figure moved. */
async function step(work: () => Promise<unknown>): Promise<Partial<Record<keyof Recount, number>>> {
  await work();
  const now = await expectCounterEqualsRecount();
  const moved = Object.fromEntries(Object.entries(now).filter(([k, v]) => v !== last[k as keyof Recount]).map(([k, v]) => [k, v - last[k as keyof Recount]]));
  last = now;
  return moved;
}

const timesheets = <T>(work: (ports: TimesheetPorts) => Promise<T>) => timesheetsIn(db)(work);
const customers = <T>(work: (ports: Parameters<typeof createFeedback>[0]) => Promise<T>) =>
  inUnitOfWork(db, (unit) => work({ store: customersStore(db, unit), now: () => new Date(), newId: randomUUID, newSecret: () => 'unused' }));
const commerce = <T>(now: Date, work: (ports: CommercePorts) => Promise<T>) => inUnitOfWork(db, (unit) => work({ store: commerceStore(db, unit), now: () => now, newId: randomUUID }));
const planning = <T>(work: (ports: ReturnType<typeof planningPorts>) => Promise<T>) => inUnitOfWork(db, (unit) => work(planningPorts(db, unit, () => new Date(), randomUUID)));
const scan = (over: Record<string, unknown>) =>
  ingestEvidence({ db, now: () => new Date(), newId: randomUUID, seal: sealRestricted }, ORG, {
    employeeId: employee,
    locationId: LOC,
    type: 'CHECK_IN',
    clientTimestamp: new Date().toISOString(),
    offline: false,
    verificationState: 'VERIFIED',
    ...over,
  });

const manifest = (month: string) => monthManifest(ORG, month);
const publish = (m: Manifest, month: string) => publishMonthManifest(db, m, month);

beforeAll(async () => {
  db = await createTestTable();
  await seedDemo(db, 'overview-counts-seed');
  employee = randomUUID();
  const at = new Date().toISOString();
  await putEmployee(db, { id: employee, organizationId: ORG, userName: `${employee}@counts.example`, emails: [], active: true, createdAt: at, updatedAt: at, version: 1 });
});

describe('dashboard counters equal a recount of the items', () => {
  it('after the demo seed', async () => {
    last = await expectCounterEqualsRecount();
  });

  it('through time-entry creates, corrections and voids, with an export made stale and replaced', async () => {
    const created = await timesheets((p) =>
      createTimeEntry(p, actor(), { employeeId: employee, context: { kind: 'REGISTERED_LOCATION', locationId: LOC }, startedAt: '2031-03-10T08:00:00Z', endedAt: '2031-03-10T16:00:00Z', breakMinutes: 30, reason: 'counts' }),
    );
    expect(await step(async () => undefined)).toEqual({});

    const m = manifest('2031-03');
    await openManifest(db, m, ['2031-03']);
    await publish(m, '2031-03');
    const corrected = await timesheets((p) => correctTimeEntry(p, actor(), created.entry.id, etagOf(created.entry), { breakMinutes: 45, reason: 'counts' }));
    expect(corrected.staleExportManifestIds).toEqual([m.id]);
    expect(await step(async () => undefined)).toEqual({ staleExports: 1 });

    // A second change keeps one stale manifest; a replacement takes it off the figure for good.
    const again = await timesheets((p) => correctTimeEntry(p, actor(), corrected.entry.id, etagOf(corrected.entry), { breakMinutes: 50, reason: 'counts' }));
    expect(await step(async () => undefined)).toEqual({});
    expect(await step(() => commit(db, [supersedeItem(ORG, m.id, randomUUID())]))).toEqual({ staleExports: -1 });
    const voided = await step(() => timesheets((p) => voidTimeEntry(p, actor(), again.entry.id, etagOf(again.entry), 'counts')));
    expect(voided).toEqual({});

    // A PENDING manifest marked stale while generated is no stale export; abandoned, it stays off.
    const pending = manifest('2031-05');
    await openManifest(db, pending, ['2031-05']);
    expect(
      await step(() =>
        timesheets((p) =>
          createTimeEntry(p, actor(), { employeeId: employee, context: { kind: 'REGISTERED_LOCATION', locationId: LOC }, startedAt: '2031-05-10T08:00:00Z', endedAt: '2031-05-10T16:00:00Z', breakMinutes: 0, reason: 'counts' }),
        ),
      ),
    ).toEqual({});
    expect(await step(() => abandonManifest(db, ORG, pending, ['2031-05']))).toEqual({});
  });

  it('through scans: an OPEN entry while checked in, evidence needing review', async () => {
    expect(await step(() => scan({}))).toEqual({ openTimeEntries: 1 });
    expect(await step(() => scan({ verificationState: 'REVIEW_REQUIRED' }))).toEqual({ evidenceNeedingReview: 1 });
    expect(await step(() => scan({ type: 'CHECK_OUT', clientTimestamp: new Date(Date.now() + 60_000).toISOString() }))).toEqual({ openTimeEntries: -1 });
  });

  it('through feedback: OPEN and ACKNOWLEDGED are unresolved, RESOLVED is not', async () => {
    let feedback = await customers((p) => createFeedback(p, actor(), { rating: 2, category: 'CLEANLINESS', locationId: LOC }));
    expect(await step(async () => undefined)).toEqual({ unresolvedFeedback: 1 });
    feedback = await customers((p) => acknowledgeFeedback(p, actor(), feedback.id, feedbackEtag(feedback)));
    expect(await step(async () => undefined)).toEqual({});
    expect(await step(() => customers((p) => resolveFeedback(p, actor(), feedback.id, feedbackEtag(feedback), 'Cleaned again')))).toEqual({ unresolvedFeedback: -1 });
  });

  it('through invoices: ISSUED past the due date is overdue until paid', async () => {
    const past = new Date(Date.now() - 40 * 86_400_000);
    const draft = await commerce(past, (p) =>
      createInvoice(p, writer(), { customerId: CUSTOMER_DEMO_IDS.customers[0], currency: 'EUR', paymentTermDays: 14, items: [{ description: 'Cleaning', quantity: 1, unitPrice: 10_000, taxRate: 19 }] }),
    );
    expect(await step(async () => undefined)).toEqual({});
    const issued = await commerce(past, (p) => issueInvoice(p, writer(), draft.id, invoiceEtag(draft)));
    expect(await step(async () => undefined)).toEqual({ overdueInvoices: 1 });
    expect(
      await step(() => commerce(new Date(), (p) => recordPayment(p, writer(), { invoiceId: issued.id, amount: issued.totals.total, paidOn: new Date().toISOString().slice(0, 10), method: 'BANK_TRANSFER', reference: 'counts' }))),
    ).toEqual({ overdueInvoices: -1 });
  });

  it('through shifts: a PUBLISHED shift running now puts its employee on shift, a DRAFT or CANCELLED one does not', async () => {
    const now = Date.now();
    const draft = await planning((p) => createShift(p, actor(), { employeeId: employee, locationId: LOC, startsAt: new Date(now - 3_600_000).toISOString(), endsAt: new Date(now + 3_600_000).toISOString() }));
    expect(await step(async () => undefined)).toEqual({});
    const published = await planning((p) => publishShift(p, actor(), draft.id, shiftEtag(draft)));
    expect(await step(async () => undefined)).toEqual({ employeesOnShiftNow: 1 });
    expect(await step(() => planning((p) => cancelShift(p, actor(), published.id, shiftEtag(published), 'counts')))).toEqual({ employeesOnShiftNow: -1 });
  });
});

describe('boundedCount', () => {
  it('stops at its read bound and says so', async () => {
    const pk = `ORG#${randomUUID()}#TE#OPEN`;
    for (let i = 0; i < 5; i += 1) await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { PK: `X#${i}`, SK: 'X', GSI3PK: pk, GSI3SK: `${i}` } }));
    const input = { IndexName: 'GSI3', KeyConditionExpression: 'GSI3PK = :pk', ExpressionAttributeValues: { ':pk': pk } };
    expect(await boundedCount(db, input, 3)).toEqual({ count: 3, capped: true });
    expect(await boundedCount(db, input, 10)).toEqual({ count: 5, capped: false });
  });
});
