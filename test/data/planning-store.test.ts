import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { putEmployee } from '../../services/employees/public';
import { putLocation } from '../../services/locations/public';
import { createShift, publishRange, publishShift, updateShift, type PlanningPorts } from '../../services/planning/domain';
import { planningPorts, publishedNear, readGuard } from '../../services/planning/store';
import type { Principal } from '../../services/shared/auth/principal';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { itemsOfType } from '../support/api';
import { createTestTable } from '../support/table';
import { taskToItem, type Task } from '../../services/tasks/model';

/**
 * Shifts on DynamoDB Local, run as the area handler runs them (inUnitOfWork: commit, run again
 * while a read went stale): of two publishes that would overlap exactly one commits, whatever
 * the interleaving; the plan and the guard stay in step with the shifts.
 */
let db: Db;
const ORG = '7a7a7a7a-7a7a-4a7a-8a7a-7a7a7a7a7a7a';
const LOC = '8b8b8b8b-8b8b-4b8b-8b8b-8b8b8b8b8b8b';
const t = '2026-01-01T00:00:00.000Z';
const principal: Principal = { organizationId: ORG, keyId: 'planning', keyLabel: 'Planning test', environment: 'TEST', scopes: new Set(['planning:write']) };
const actor = { principal, requestId: 'req-planning' };

const run = <T>(work: (ports: PlanningPorts) => Promise<T>): Promise<T> => inUnitOfWork(db, (unit) => work(planningPorts(db, unit, () => new Date(), randomUUID)));

async function employee(): Promise<string> {
  const id = randomUUID();
  await putEmployee(db, { id, organizationId: ORG, userName: `${id}@test.example`, emails: [], active: true, createdAt: t, updatedAt: t, version: 1 });
  return id;
}

/** Writes a task of LOC as stored (archived or not); the same id again overwrites it. */
async function putTask(id: string, archived: boolean): Promise<void> {
  const task: Task = { id, organizationId: ORG, locationId: LOC, title: 'Sweep', instructions: null, schedule: null, estimatedMinutes: null, archived, archivedAt: archived ? t : null, createdAt: t, updatedAt: t, version: archived ? 2 : 1 };
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: taskToItem(task) }));
}

beforeAll(async () => {
  db = await createTestTable();
  await putLocation(db, { id: LOC, organizationId: ORG, name: 'Depot', createdAt: t, updatedAt: t } as never);
});

describe('publishing', () => {
  it('lets exactly one of two overlapping publishes win, whatever the interleaving', async () => {
    for (let round = 0; round < 5; round += 1) {
      const emp = await employee();
      const a = await run((p) => createShift(p, actor, { employeeId: emp, locationId: LOC, startsAt: '2031-05-01T08:00:00.000Z', endsAt: '2031-05-01T16:00:00.000Z' }));
      const b = await run((p) => createShift(p, actor, { employeeId: emp, locationId: LOC, startsAt: '2031-05-01T12:00:00.000Z', endsAt: '2031-05-01T20:00:00.000Z' }));
      const outcomes = await Promise.allSettled([run((p) => publishShift(p, actor, a.id, undefined)), run((p) => publishShift(p, actor, b.id, undefined))]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const lost = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')!;
      expect(lost.reason).toMatchObject({ code: 'SHIFT_OVERLAP' });
      const guard = await readGuard(db, ORG, emp);
      expect(guard.version).toBe(1);
      expect((await publishedNear(db, guard, { startsAt: '2031-05-01T00:00:00.000Z', endsAt: '2031-05-02T00:00:00.000Z' })).map((s) => s.id)).toHaveLength(1);
    }
  });

  it('publishes non-overlapping shifts of one employee concurrently, all of them', async () => {
    const emp = await employee();
    const shifts = await Promise.all(
      [0, 1, 2, 3].map((d) => run((p) => createShift(p, actor, { employeeId: emp, locationId: LOC, startsAt: `2031-06-0${d + 1}T08:00:00.000Z`, endsAt: `2031-06-0${d + 1}T16:00:00.000Z` }))),
    );
    const outcomes = await Promise.allSettled(shifts.map((s) => run((p) => publishShift(p, actor, s.id, undefined))));
    expect(outcomes.every((o) => o.status === 'fulfilled')).toBe(true);
    expect((await readGuard(db, ORG, emp)).version).toBe(4);
    const planned = (await itemsOfType(db, 'PlannedShift')).filter((i) => String(i.PK).includes(emp));
    expect(planned.map((i) => i.id).sort()).toEqual(shifts.map((s) => s.id).sort());
  });

  it("a bulk publish runs employees side by side and one employee's drafts in start order", async () => {
    const [a, b, c] = [await employee(), await employee(), await employee()];
    const draft = (emp: string, day: string, from: string, to: string) =>
      run((p) => createShift(p, actor, { employeeId: emp, locationId: LOC, startsAt: `2031-08-${day}T${from}:00.000Z`, endsAt: `2031-08-${day}T${to}:00.000Z` }));
    const early = await draft(a, '01', '08:00', '12:00');
    const later = await draft(a, '01', '10:00', '14:00');
    const others = [await draft(b, '01', '09:00', '17:00'), await draft(c, '01', '09:30', '17:00'), await draft(a, '02', '08:00', '12:00')];
    let running = 0;
    let most = 0;
    const counted = (p: PlanningPorts): PlanningPorts => ({
      ...p,
      separately: async (work) => {
        running += 1;
        most = Math.max(most, running);
        try {
          return await p.separately(work);
        } finally {
          running -= 1;
        }
      },
    });
    const result = await run((p) => publishRange(counted(p), actor, { from: '2031-08-01T00:00:00.000Z', to: '2031-08-03T00:00:00.000Z', locationId: LOC }));
    // Three employees at once; never two drafts of one employee (five drafts in all).
    expect(most).toBe(3);
    // The earlier of a's two overlapping drafts published, the later refused; the lists keep the drafts' order.
    expect(result.publishedShiftIds).toEqual([early.id, others[0].id, others[1].id, others[2].id]);
    expect(result.rejected).toEqual([{ shiftId: later.id, code: 'SHIFT_OVERLAP', detail: expect.any(String), overlappingShiftIds: [early.id] }]);
  });

  it('a bulk publish commits per shift, each with its audit entry', async () => {
    const emp = await employee();
    for (const d of [1, 2, 3]) await run((p) => createShift(p, actor, { employeeId: emp, locationId: LOC, startsAt: `2031-07-0${d}T08:00:00.000Z`, endsAt: `2031-07-0${d}T16:00:00.000Z` }));
    const result = await run((p) => publishRange(p, actor, { from: '2031-07-01T00:00:00.000Z', to: '2031-07-04T00:00:00.000Z', employeeId: emp }));
    expect(result.publishedShiftIds).toHaveLength(3);
    const audits = (await itemsOfType(db, 'AuditEntry')).filter((a) => a.action === 'shift.published' && result.publishedShiftIds.includes(a.entity.id));
    expect(audits).toHaveLength(3);
  });
});

describe('references checked again in the transaction', () => {
  /** Ports whose first reference read runs `meanwhile` right after it: the read is stale when the write commits. */
  const racing = (p: PlanningPorts, meanwhile: () => Promise<void>, state: { done: boolean }): PlanningPorts => ({
    ...p,
    store: {
      ...p.store,
      readReferences: async (org, refs) => {
        const read = await p.store.readReferences(org, refs);
        if (!state.done) {
          state.done = true;
          await meanwhile();
        }
        return read;
      },
    },
  });

  it('a create whose employee is deactivated after the read runs again and answers 422 at /employeeId; nothing is written', async () => {
    const emp = await employee();
    const state = { done: false };
    const deactivate = () => putEmployee(db, { id: emp, organizationId: ORG, userName: `${emp}@test.example`, emails: [], active: false, createdAt: t, updatedAt: t, version: 2 });
    const attempt = run((p) => createShift(racing(p, deactivate, state), actor, { employeeId: emp, locationId: LOC, startsAt: '2031-09-01T08:00:00.000Z', endsAt: '2031-09-01T16:00:00.000Z' }));
    await expect(attempt).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ pointer: '/employeeId' }] });
    expect(state.done).toBe(true);
    expect((await itemsOfType(db, 'Shift')).filter((i) => i.employeeId === emp)).toEqual([]);
  });

  it('a publish whose location is archived after the read runs again and answers 409 SHIFT_LOCATION_ARCHIVED; the shift stays a draft', async () => {
    const site = randomUUID();
    const location = { id: site, organizationId: ORG, name: 'Kiosk', createdAt: t, updatedAt: t };
    await putLocation(db, location as never);
    const draft = await run((p) => createShift(p, actor, { locationId: site, startsAt: '2031-09-02T08:00:00.000Z', endsAt: '2031-09-02T16:00:00.000Z' }));
    const state = { done: false };
    const archive = () => putLocation(db, { ...location, archived: true, archivedAt: t } as never);
    await expect(run((p) => publishShift(racing(p, archive, state), actor, draft.id, undefined))).rejects.toMatchObject({ code: 'SHIFT_LOCATION_ARCHIVED' });
    expect(state.done).toBe(true);
    expect((await itemsOfType(db, 'Shift')).find((i) => i.id === draft.id)).toMatchObject({ state: 'DRAFT', version: 1 });
  });

  it('a publish whose task is archived after the read runs again and answers 409 SHIFT_TASK_ARCHIVED; the shift stays a draft', async () => {
    const task = randomUUID();
    await putTask(task, false);
    const draft = await run((p) => createShift(p, actor, { locationId: LOC, startsAt: '2031-09-03T08:00:00.000Z', endsAt: '2031-09-03T16:00:00.000Z', taskIds: [task] }));
    const state = { done: false };
    await expect(run((p) => publishShift(racing(p, () => putTask(task, true), state), actor, draft.id, undefined))).rejects.toMatchObject({ code: 'SHIFT_TASK_ARCHIVED' });
    expect(state.done).toBe(true);
    expect((await itemsOfType(db, 'Shift')).find((i) => i.id === draft.id)).toMatchObject({ state: 'DRAFT', version: 1 });
  });

  it('a bulk publish decides on the drafts its query read, reading no shift again; a draft changed after the query never publishes as it was: its commit fails and the rerun publishes the change', async () => {
    const emp = await employee();
    const draft = (day: string, employeeId?: string) =>
      run((p) => createShift(p, actor, { employeeId, locationId: LOC, startsAt: `2031-11-${day}T08:00:00.000Z`, endsAt: `2031-11-${day}T16:00:00.000Z` }));
    const changed = await draft('01', emp);
    const others = [await draft('02', emp), await draft('03')];
    const shiftReads: string[] = [];
    const counting = (p: PlanningPorts): PlanningPorts => ({
      ...p,
      store: {
        ...p.store,
        getShift: async (org, id) => {
          shiftReads.push(id);
          return p.store.getShift(org, id);
        },
        // Right after the query, another request changes one of the drafts it read.
        draftsStartingIn: async (org, filter, max) => {
          const drafts = await p.store.draftsStartingIn(org, filter, max);
          await run((own) => updateShift(own, actor, changed.id, `"shift:${changed.id}:v1"`, { notes: 'Bring the ladder' }));
          return drafts;
        },
      },
      separately: (work) => p.separately((own) => work(counting(own))),
    });
    const result = await run((p) => publishRange(counting(p), actor, { from: '2031-11-01T00:00:00.000Z', to: '2031-11-04T00:00:00.000Z', locationId: LOC }));
    expect(result).toEqual({ publishedShiftIds: [changed.id, ...others.map((s) => s.id)], rejected: [] });
    // Only the changed draft's rerun read its shift again.
    expect(shiftReads).toEqual([changed.id]);
    const stored = (await itemsOfType(db, 'Shift')).find((i) => i.id === changed.id);
    expect(stored).toMatchObject({ state: 'PUBLISHED', version: 3, notes: 'Bring the ladder' });
  });

  it('a bulk publish reads the references of all drafts once; a task archived after that read fails the check in the transaction, and the retry reads afresh and rejects the draft', async () => {
    const [emp, task, other] = [await employee(), randomUUID(), randomUUID()];
    await putTask(task, false);
    await putTask(other, false);
    const draft = (day: string, taskIds: string[], employeeId?: string) =>
      run((p) => createShift(p, actor, { employeeId, locationId: LOC, startsAt: `2031-10-${day}T08:00:00.000Z`, endsAt: `2031-10-${day}T16:00:00.000Z`, taskIds }));
    const held = await draft('01', [other, task], emp);
    const fine = [await draft('02', [other], emp), await draft('03', [other])];
    // Every reference read, by the bulk publish itself and by the publish of each draft (each attempt's own ports).
    const reads: string[][] = [];
    const state = { done: false };
    const counting = (p: PlanningPorts): PlanningPorts => ({
      ...p,
      store: {
        ...p.store,
        readReferences: async (org, ids) => {
          reads.push([...(ids.taskIds ?? [])]);
          return p.store.readReferences(org, ids);
        },
      },
      separately: (work) => p.separately((own) => work(counting(own))),
    });
    const result = await run((p) => publishRange(racing(counting(p), () => putTask(task, true), state), actor, { from: '2031-10-01T00:00:00.000Z', to: '2031-10-04T00:00:00.000Z', locationId: LOC }));
    expect(state.done).toBe(true);
    expect(result.publishedShiftIds).toEqual(fine.map((s) => s.id));
    expect(result.rejected).toEqual([{ shiftId: held.id, code: 'SHIFT_TASK_ARCHIVED', detail: expect.stringContaining(task) }]);
    // One read for all three drafts (each id once), then only the retry of the draft whose check failed.
    expect(reads).toEqual([[other, task], [other, task]]);
    expect((await itemsOfType(db, 'Shift')).find((i) => i.id === held.id)).toMatchObject({ state: 'DRAFT', version: 1 });
  });
});
