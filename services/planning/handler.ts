import { randomUUID } from 'node:crypto';
import { defaultDb, type Db } from '../shared/ddb/client';
import { found } from '../shared/errors';
import { areaHandler } from '../shared/http/area-handler';
import { DEFAULT_LIMIT, listPosition, nextCursor } from '../shared/http/list';
import { created, ok, type HttpResult } from '../shared/http/request';
import { planningArea } from './area';
import { cancelShift, createShift, planVsActual, publishRange, publishShift, shiftEtag, updateShift, type PlanVsActual, type Shift, type WorkedInterval } from './domain';
import { visitEtag } from './domain-visits';
import { shiftKeys, visitKeys } from './model';
import { bulkPublishResponse, shiftResponse, visitResponse } from './schemas';
import { entriesOf, getShift, listShifts, planningPorts } from './store';
import { getVisitConfirmation, listVisitConfirmations } from './store-visits';

/**
 * Planned vs actual of shifts: per employee, one read of the effective time entries over the
 * span of that employee's shifts (not one per shift).
 */
async function actualsOf(db: Db, org: string, shifts: readonly Shift[]): Promise<PlanVsActual[]> {
  const spans = new Map<string, { from: string; to: string }>();
  for (const s of shifts) {
    if (!s.employeeId) continue;
    const span = spans.get(s.employeeId);
    spans.set(s.employeeId, span ? { from: s.startsAt < span.from ? s.startsAt : span.from, to: s.endsAt > span.to ? s.endsAt : span.to } : { from: s.startsAt, to: s.endsAt });
  }
  const entries = new Map<string, WorkedInterval[]>(await Promise.all([...spans].map(async ([e, span]) => [e, await entriesOf(db, org, e, span.from, span.to)] as const)));
  return shifts.map((s) => planVsActual(s, s.employeeId ? (entries.get(s.employeeId) ?? []) : []));
}

async function shiftResult(s: Shift, status: 200 | 201, orgPath: string): Promise<HttpResult> {
  const [actual] = await actualsOf(defaultDb(), s.organizationId, [s]);
  const body = shiftResponse(s, actual);
  return status === 201 ? created(body, { ETag: shiftEtag(s), Location: `${orgPath}/planning/shifts/${s.id}` }) : ok(body, { ETag: shiftEtag(s) });
}

export const handler = areaHandler(planningArea, {
  ports: (unit) => planningPorts(defaultDb(), unit, () => new Date(), randomUUID),
  operations: {
    async listShifts(request) {
      const { query } = request;
      const org = request.principal.organizationId;
      const { binding, position } = await listPosition<{ after: string }>(request);
      const page = await listShifts(defaultDb(), { organizationId: org, ...query, after: position?.after }, query.limit ?? DEFAULT_LIMIT);
      const actuals = await actualsOf(defaultDb(), org, page.items);
      const last = page.items.at(-1);
      return ok({ items: page.items.map((s, i) => shiftResponse(s, actuals[i])), nextCursor: await nextCursor(binding, page.hasMore && last ? { after: shiftKeys.position(last) } : undefined) });
    },

    createShift: async (r) => shiftResult(await createShift(r.ports, r.actor, r.body), 201, r.orgPath),

    publishShifts: async (r) => ok(bulkPublishResponse(await publishRange(r.ports, r.actor, r.body))),

    getShift: async (request) => shiftResult(found(await getShift(defaultDb(), request.principal.organizationId, request.params.shiftId), `Shift ${request.params.shiftId}`), 200, request.orgPath),

    updateShift: async (r) => shiftResult(await updateShift(r.ports, r.actor, r.params.shiftId, r.ifMatch, r.body), 200, r.orgPath),

    publishShift: async (r) => shiftResult(await publishShift(r.ports, r.actor, r.params.shiftId, r.ifMatch, r.body ?? {}), 200, r.orgPath),

    cancelShift: async (r) => shiftResult(await cancelShift(r.ports, r.actor, r.params.shiftId, r.ifMatch, r.body.reason), 200, r.orgPath),

    async listVisitConfirmations(request) {
      const { query } = request;
      const { binding, position } = await listPosition<{ after: string }>(request);
      const page = await listVisitConfirmations(defaultDb(), { organizationId: request.principal.organizationId, ...query, after: position?.after }, query.limit ?? DEFAULT_LIMIT);
      const last = page.items.at(-1);
      return ok({ items: page.items.map(visitResponse), nextCursor: await nextCursor(binding, page.hasMore && last ? { after: visitKeys.position(last) } : undefined) });
    },

    async getVisitConfirmation(request) {
      const visit = found(await getVisitConfirmation(defaultDb(), request.principal.organizationId, request.params.visitConfirmationId), `Visit confirmation ${request.params.visitConfirmationId}`);
      return ok(visitResponse(visit), { ETag: visitEtag(visit) });
    },
  },
});
