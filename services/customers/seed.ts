import { customerSearchItems, customerToItem, feedbackToItem, getCustomer, numberGuardItem, type Customer, type Feedback } from './public';
import { inspectionToItem, revisionToItem, templateToItem, weightedScore, type Inspection, type Template } from '../quality/public';
import type { Db } from '../shared/ddb/client';
import type { DemoSeed } from '../shared/seed';
import { commit, type TxItem } from '../shared/ddb/transaction';

/**
 * Demo data of customers and quality: two customers linked to the demo locations (with their
 * search words, as a create writes them), a quality template, a completed inspection with its
 * exact score, and open feedback. Fixed ids; a seed that finds the first customer writes
 * nothing but the demo customers' search words (puts only: idempotent), so customers seeded
 * before the seed wrote them become findable by `q`.
 */
export const CUSTOMER_DEMO_IDS = {
  customers: ['c0570000-0000-4000-8000-000000000001', 'c0570000-0000-4000-8000-000000000002'],
  template: 'a7e00000-0000-4000-8000-000000000001',
  templateItems: ['a7e00000-0000-4000-8000-0000000000a1', 'a7e00000-0000-4000-8000-0000000000a2', 'a7e00000-0000-4000-8000-0000000000a3'],
  inspection: '15e00000-0000-4000-8000-000000000001',
  feedback: 'feed0000-0000-4000-8000-000000000001',
} as const;

const put = (label: string, item: Record<string, unknown>): TxItem => ({ label, op: { Put: { Item: item, ConditionExpression: 'attribute_not_exists(PK)' } } });

export async function seedCustomersAndQuality(db: Db, organizationId: string, locationIds: readonly string[], employeeId: string, at: string): Promise<void> {
  const ids = CUSTOMER_DEMO_IDS;
  if (await getCustomer(db, organizationId, ids.customers[0])) {
    const seeded = await Promise.all(ids.customers.map((id) => getCustomer(db, organizationId, id)));
    const words = seeded.flatMap((c) => (c ? customerSearchItems(undefined, c) : []));
    if (words.length > 0) await commit(db, words);
    return;
  }
  const customer = (i: number, name: string, customerNumber: string, locations: readonly string[]): Customer => ({
    id: ids.customers[i],
    organizationId,
    name,
    customerNumber,
    billingAddress: `${name}, Billing Lane ${i + 1}`,
    vatId: null,
    locationIds: [...locations],
    contactIds: [],
    archived: false,
    archivedAt: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
  });
  const customers = [customer(0, 'Harbour Holdings', 'C-1001', [locationIds[0]]), customer(1, 'Central Rail Services', 'C-1002', [locationIds[1]])];
  const items = [
    { id: ids.templateItems[0], title: 'Floors clean and dry', description: null, weightMilli: 2000, scaleMax: 5 },
    { id: ids.templateItems[1], title: 'Restrooms stocked', description: 'Soap, paper towels, toilet paper', weightMilli: 1500, scaleMax: 3 },
    { id: ids.templateItems[2], title: 'Waste bins emptied', description: null, weightMilli: 333, scaleMax: 1 },
  ];
  const template: Template = { id: ids.template, organizationId, name: 'Office cleaning check', description: 'Monthly walk-through', revision: 1, items, archived: false, archivedAt: null, version: 1, createdAt: at, updatedAt: at };
  const scores = [4, 3, 1];
  const inspectionItems = items.map((item, i) => ({ itemId: item.id, title: item.title, weightMilli: item.weightMilli, scaleMax: item.scaleMax, score: scores[i], comment: null }));
  const score = weightedScore(inspectionItems.map((i) => ({ weightMilli: i.weightMilli, scaleMax: i.scaleMax, score: i.score })));
  const inspection: Inspection = {
    id: ids.inspection,
    organizationId,
    templateId: ids.template,
    templateRevision: 1,
    locationId: locationIds[0],
    employeeId,
    correctsInspectionId: null,
    state: 'COMPLETED',
    note: null,
    items: inspectionItems,
    scoreNumerator: String(score.numerator),
    scoreDenominator: String(score.denominator),
    completedAt: at,
    version: 5,
    createdAt: at,
    updatedAt: at,
  };
  const feedback: Feedback = {
    id: ids.feedback,
    organizationId,
    rating: 4,
    comment: 'Lobby looks great; restroom on floor 2 ran out of paper once.',
    category: 'CLEANLINESS',
    locationId: locationIds[0],
    customerId: ids.customers[0],
    inspectionId: ids.inspection,
    visitConfirmationId: null,
    state: 'OPEN',
    resolutionNote: null,
    acknowledgedAt: null,
    resolvedAt: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
  await commit(db, [
    ...customers.flatMap((c) => [put('customer', customerToItem(c)), put('customer-number', numberGuardItem(c)), ...customerSearchItems(undefined, c)]),
    put('quality-template', templateToItem(template)),
    put('quality-template-revision', revisionToItem({ templateId: template.id, organizationId, revision: 1, name: template.name, description: template.description, items, createdAt: at })),
    put('inspection', inspectionToItem(inspection)),
    put('feedback', feedbackToItem(feedback)),
  ]);
}

/** The registry's demo seed of customers (and quality, whose inspection names a demo location). */
export const seed: DemoSeed = (c) => seedCustomersAndQuality(c.db, c.organizationId, c.locations, c.employees[0], c.now.toISOString());
