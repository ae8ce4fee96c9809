import { randomUUID } from 'node:crypto';
import { ingestVisitConfirmation } from './public';
import { createShift, publishShift } from './domain';
import { getShift, planningPorts } from './store';
import type { Principal } from '../shared/auth/principal';
import { sealRestricted } from '../shared/crypto/restricted';
import type { Db } from '../shared/ddb/client';
import type { DemoSeed } from '../shared/seed';
import { inUnitOfWork } from '../shared/ddb/unit-of-work';
import type { Actor } from '../shared/domain/actor';
import { createTask } from '../tasks/domain';
import { getTask, tasksStore } from '../tasks/store';

/**
 * The planning part of the demo seed: tasks per location, a week of published shifts (the
 * one of yesterday matches the scanned entry the seed projects; the one on shift now meets an OPEN entry;
 * the others have none), an open draft, and visit confirmations, plus one of each in the
 * other organization for the isolation drills. Idempotent: fixed ids, existing records left
 * alone; written through the areas' use cases so every record has its audit entry.
 */
export const PLANNING_IDS = {
  tasks: ['7a000001-0000-4000-8000-000000000001', '7a000001-0000-4000-8000-000000000002', '7a000001-0000-4000-8000-000000000003'],
  otherTask: '7a000002-0000-4000-8000-000000000001',
  /** 0..6: employee 0 at location 0 on days -3..+3 (2 is yesterday); 7: employee 1 on shift now; 8: an unpublished draft. */
  shifts: Array.from({ length: 9 }, (_, i) => `5f000001-0000-4000-8000-00000000000${i + 1}`),
  otherShift: '5f000002-0000-4000-8000-000000000001',
  visits: ['b1000001-0000-4000-8000-000000000001', 'b1000001-0000-4000-8000-000000000002'],
  otherVisit: 'b1000002-0000-4000-8000-000000000001',
} as const;

export interface PlanningSeedIds {
  readonly organizationId: string;
  readonly otherOrganizationId: string;
  readonly employees: readonly string[];
  readonly locations: readonly string[];
  readonly otherEmployee: string;
  readonly otherLocation: string;
}

const seedActor = (organizationId: string): Actor => {
  const principal: Principal = { organizationId, keyId: 'demo-seed', keyLabel: 'Demo seed', environment: 'TEST', scopes: new Set() };
  return { principal, requestId: `seed-planning-${organizationId}` };
};

/** newId that answers `first` once (the entity's fixed id), then fresh ids (audit entries). */
const fixedFirst = (first: string) => {
  let used = false;
  return () => (used ? randomUUID() : ((used = true), first));
};

export async function seedPlanning(db: Db, ids: PlanningSeedIds, now: Date): Promise<void> {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const iso = (offsetDays: number, hour: number) => new Date(day + offsetDays * 86_400_000 + hour * 3_600_000).toISOString();
  const [e0, e1, e2] = ids.employees;
  const [l0, l1] = ids.locations;

  const task = async (organizationId: string, id: string, locationId: string, title: string, schedule: Parameters<typeof createTask>[3]['schedule'], estimatedMinutes: number) => {
    if (await getTask(db, organizationId, id)) return;
    await inUnitOfWork(db, (unit) => createTask({ store: tasksStore(db, unit), now: () => now, newId: fixedFirst(id) }, seedActor(organizationId), locationId, { title, schedule, estimatedMinutes }));
  };
  await task(ids.organizationId, PLANNING_IDS.tasks[0], l0, 'Clean office floors', { kind: 'WEEKLY', weekdays: ['MON', 'TUE', 'WED', 'THU', 'FRI'] }, 240);
  await task(ids.organizationId, PLANNING_IDS.tasks[1], l0, 'Window cleaning', { kind: 'EVERY_N_DAYS', everyDays: 14, startsOn: iso(0, 0).slice(0, 10) }, 120);
  await task(ids.organizationId, PLANNING_IDS.tasks[2], l1, 'Depot security round', { kind: 'WEEKLY', weekdays: ['SAT', 'SUN'] }, 60);
  await task(ids.otherOrganizationId, PLANNING_IDS.otherTask, ids.otherLocation, 'Globex lobby', null, 30);

  const shift = async (organizationId: string, id: string, input: Parameters<typeof createShift>[2], published = true) => {
    if (await getShift(db, organizationId, id)) return;
    const actor = seedActor(organizationId);
    const draft = await inUnitOfWork(db, (unit) => createShift(planningPorts(db, unit, () => now, fixedFirst(id)), actor, input));
    if (published) await inUnitOfWork(db, (unit) => publishShift(planningPorts(db, unit, () => now, randomUUID), actor, draft.id, undefined));
  };
  // Employee 0 at location 0: a week, 07:00-15:00 with 30 minutes' break; yesterday's meets the scanned 07:00-15:30 entry.
  for (let d = -3; d <= 3; d += 1) {
    await shift(ids.organizationId, PLANNING_IDS.shifts[d + 3], { employeeId: e0, locationId: l0, startsAt: iso(d, 7), endsAt: iso(d, 15), breakMinutes: 30, taskIds: [PLANNING_IDS.tasks[0]] });
  }
  // Employee 1 on shift now at location 1, from the full hour 3 hours ago for 8 hours: it holds the
  // OPEN scanned entry that began 2 hours ago (actual incomplete) at whatever time of day the seed
  // runs (a fixed 06:00-14:00 UTC missed it from 16:00 UTC on). An open draft tomorrow without employee.
  const hourNow = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
  const onShiftNow = { startsAt: new Date(hourNow - 3 * 3_600_000).toISOString(), endsAt: new Date(hourNow + 5 * 3_600_000).toISOString() };
  await shift(ids.organizationId, PLANNING_IDS.shifts[7], { employeeId: e1, locationId: l1, ...onShiftNow, breakMinutes: 30, taskIds: [PLANNING_IDS.tasks[2]] });
  await shift(ids.organizationId, PLANNING_IDS.shifts[8], { employeeId: e2 ?? null, locationId: l1, startsAt: iso(1, 22), endsAt: iso(2, 6) }, false);
  await shift(ids.otherOrganizationId, PLANNING_IDS.otherShift, { employeeId: ids.otherEmployee, locationId: ids.otherLocation, startsAt: iso(-1, 6), endsAt: iso(-1, 14) });

  const deps = { db, now: () => now, newId: randomUUID, seal: sealRestricted };
  await ingestVisitConfirmation(deps, ids.organizationId, { id: PLANNING_IDS.visits[0], locationId: l0, employeeIds: [e0], shiftId: PLANNING_IDS.shifts[2], confirmedAt: iso(-1, 15), method: 'CUSTOMER_CONTACT', verificationState: 'VERIFIED', restricted: { signature: 'data:image/png;base64,AAAA', deviceId: 'demo-device' } });
  await ingestVisitConfirmation(deps, ids.organizationId, { id: PLANNING_IDS.visits[1], locationId: l1, employeeIds: [e1], confirmedAt: iso(0, 0), method: 'LOCATION_TAG', verificationState: 'REVIEW_REQUIRED', restricted: { tagId: 'tag-depot-1', latitude: 53.55127, longitude: 9.99341 } });
  await ingestVisitConfirmation(deps, ids.otherOrganizationId, { id: PLANNING_IDS.otherVisit, locationId: ids.otherLocation, employeeIds: [ids.otherEmployee], confirmedAt: iso(-1, 14), method: 'LOCATION_TAG', verificationState: 'VERIFIED' });
}

/** The registry's demo seed of planning (tasks included: shifts reference them). */
export const seed: DemoSeed = (c) =>
  seedPlanning(c.db, { organizationId: c.organizationId, otherOrganizationId: c.otherOrganizationId, employees: c.employees, locations: c.locations, otherEmployee: c.otherOrganizationEmployees[0], otherLocation: c.otherOrganizationLocations[0] }, c.now);
