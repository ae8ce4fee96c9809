import { ingestScan, type EvidencePorts, type WorkEventChange } from '../../services/evidence-ingest/domain';
import type { Scan } from '../../services/timesheets/public';

/** The evidence channel's use case on plain objects: no DynamoDB, no SDK. */
const ORG = '12121212-1212-4212-8212-121212121212';
const EVENT = '34343434-3434-4343-8343-343434343434';
const AT = new Date('2026-06-01T05:00:01.000Z');
const scan = { id: EVENT, employeeId: '56565656-5656-4565-8565-565656565656', locationId: '78787878-7878-4787-8787-787878787878', type: 'CHECK_IN' as const, clientTimestamp: '2026-06-01T05:00:00.000Z', offline: true };

function portsWith(seen?: { timeEntryId: string | null }) {
  const staged: WorkEventChange[] = [];
  const projected: Scan[] = [];
  const ports: EvidencePorts = {
    events: { getWorkEvent: async () => seen, saveWorkEvent: (change) => staged.push(change) },
    project: async (actor, s) => {
      projected.push(s);
      expect(actor).toEqual({ system: 'Evidence ingest', organizationId: ORG, requestId: `ingest:${EVENT}` });
      return s.verified ? { projection: 'OPENED', timeEntryId: 'entry-1' } : { projection: 'NONE', timeEntryId: null };
    },
    now: () => AT,
    seal: async () => ({ sealed: true }) as never,
  };
  return { ports, staged, projected };
}

describe('ingestScan', () => {
  it('answers an event id seen before with its first outcome, and projects and stages nothing', async () => {
    const { ports, staged, projected } = portsWith({ timeEntryId: 'first-entry' });
    expect(await ingestScan(ports, ORG, { ...scan, verificationState: 'VERIFIED' })).toEqual({ workEventId: EVENT, timeEntryId: 'first-entry', projection: 'NONE', duplicate: true });
    expect(staged).toEqual([]);
    expect(projected).toEqual([]);
  });

  it('stages the event with the entry it opened, the server time and its restricted data sealed', async () => {
    const { ports, staged, projected } = portsWith();
    const result = await ingestScan(ports, ORG, { ...scan, verificationState: 'VERIFIED', restricted: { latitude: 53.5, deviceId: 'd' } });
    expect(result).toEqual({ workEventId: EVENT, timeEntryId: 'entry-1', projection: 'OPENED', duplicate: false });
    expect(projected).toEqual([{ eventId: EVENT, employeeId: scan.employeeId, locationId: scan.locationId, type: 'CHECK_IN', at: scan.clientTimestamp, verified: true }]);
    expect(staged).toHaveLength(1);
    expect(staged[0].event).toMatchObject({ id: EVENT, organizationId: ORG, taskId: null, serverTimestamp: AT.toISOString(), verificationState: 'VERIFIED', timeEntryId: 'entry-1' });
    expect(staged[0].restricted).toEqual({ sealed: true });
    expect(JSON.stringify(staged[0].event)).not.toContain('53.5');
  });

  it('keeps a REVIEW_REQUIRED scan as evidence without projecting it', async () => {
    const { ports, staged, projected } = portsWith();
    const result = await ingestScan(ports, ORG, { ...scan, verificationState: 'REVIEW_REQUIRED' });
    expect(result).toMatchObject({ projection: 'NONE', timeEntryId: null, duplicate: false });
    expect(projected[0].verified).toBe(false);
    expect(staged[0].event).toMatchObject({ verificationState: 'REVIEW_REQUIRED', timeEntryId: null });
    expect('restricted' in staged[0]).toBe(false);
  });
});
