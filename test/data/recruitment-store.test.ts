import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getEmployee, putEmployee } from '../../services/employees/public';
import { candidateEtag, createCandidate, eraseCandidate, hireCandidate, moveCandidate, postMessage, type Candidate, type CandidateMessage, type RecruitmentPorts, type RecruitmentStore } from '../../services/recruitment/domain';
import { eraseCandidateResponses, getCandidate, listCandidates, messagesOf, recruitmentStore } from '../../services/recruitment/store';
import { runIdempotent, TransactionalIdempotencyStore, type IdempotentCall, type StoredResponse } from '../../services/shared/ddb/idempotency';
import { logger } from '../../services/shared/logger';
import type { Principal } from '../../services/shared/auth/principal';
import type { Db } from '../../services/shared/ddb/client';
import { inUnitOfWork, TransactionUnit, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { ConcurrentChangeError } from '../../services/shared/domain/conflict';
import { AppError, EtagMismatchError, UniquenessConflictError } from '../../services/shared/errors';
import { scanTable } from '../support/api';
import { withCapturedLogs } from '../support/logs';
import { createTestTable } from '../support/table';

/**
 * Recruitment on DynamoDB Local: of two concurrent hires of one candidate exactly one creates
 * an employee; a taken userName commits nothing; erasure leaves no personal value in any item
 * of the table and cannot miss a message that arrived after it read the conversation.
 */
let db: Db;
const ORG = '55555555-5555-4555-8555-555555555555';
const principal: Principal = { organizationId: ORG, keyId: 'recruit', keyLabel: 'Recruitment test', environment: 'TEST', scopes: new Set(['recruitment:write', 'employees:write']) };
const actor = { principal, requestId: 'req-recruitment' };
const portsOf = (unit: UnitOfWork, store: RecruitmentStore = recruitmentStore(db, unit)): RecruitmentPorts => ({ store, now: () => new Date(), newId: randomUUID });
const run = <T>(work: (ports: RecruitmentPorts) => Promise<T>) => inUnitOfWork(db, (unit) => work(portsOf(unit)));

const person = (tag: string) => ({ givenName: `Given${tag}`, familyName: `Family${tag}`, email: `person.${tag}@candidates.example`, position: 'Facility cleaner' });

async function offered(tag: string, extra: Record<string, unknown> = {}): Promise<Candidate> {
  const c = await run((p) => createCandidate(p, actor, { ...person(tag), ...extra }));
  return run((p) => moveCandidate(p, actor, c.id, candidateEtag(c), 'OFFER'));
}

const employeesOf = async (org: string) => (await scanTable(db)).filter((i) => i.itemType === 'Employee' && i.organizationId === org);

beforeAll(async () => {
  db = await createTestTable();
});

describe('hire', () => {
  it('creates and links exactly one employee when two hires of one candidate race', async () => {
    const candidate = await offered(randomUUID().slice(0, 8));
    const before = (await employeesOf(ORG)).length;
    // Both hires make all their reads (the candidate, then the employee values taken) before
    // either commits: a barrier after the last read. A barrier after the first read only let
    // the first hire commit, now and then, before the second checked the values, which it then
    // found taken (409 UNIQUENESS_CONFLICT before any commit): right, but not this race.
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const racing = (unit: UnitOfWork): RecruitmentStore => {
      const store = recruitmentStore(db, unit);
      return {
        ...store,
        takenEmployeeValues: async (org, values) => {
          const read = await store.takenEmployeeValues(org, values);
          if (arrived < 2) {
            arrived += 1;
            if (arrived === 2) release();
            await barrier;
          }
          return read;
        },
      };
    };
    const hire = () => inUnitOfWork(db, (unit) => hireCandidate(portsOf(unit, racing(unit)), actor, candidate.id, candidateEtag(candidate), {}));
    const outcomes = await Promise.allSettled([hire(), hire()]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    // The loser read again: the ETag it was given is no longer the candidate's.
    expect(lost[0].reason).toBeInstanceOf(EtagMismatchError);

    const employees = await employeesOf(ORG);
    expect(employees).toHaveLength(before + 1);
    const stored = (await getCandidate(db, ORG, candidate.id))!;
    expect(stored).toMatchObject({ stage: 'HIRED', version: candidate.version + 1 });
    const employee = (await getEmployee(db, ORG, stored.employeeId!))!;
    expect(employee).toMatchObject({ userName: candidate.email, givenName: candidate.givenName, familyName: candidate.familyName, emails: [{ value: candidate.email, type: 'work', primary: true }], active: true, version: 1 });
    // Guard, e-mail lookup and both audit entries came with it.
    const items = await scanTable(db);
    expect(items.filter((i) => i.itemType === 'EmployeeUniqueGuard' && i.employeeId === employee.id)).toHaveLength(1);
    expect(items.filter((i) => i.itemType === 'EmployeeEmailLookup' && i.employeeId === employee.id)).toHaveLength(1);
    const audit = items.filter((i) => i.itemType === 'AuditEntry' && (i.entity.id === candidate.id || i.entity.id === employee.id)).map((i) => i.action);
    expect(audit.sort()).toEqual(['candidate.created', 'candidate.hired', 'candidate.stage_changed', 'employee.created']);
  });

  it('refuses a userName another employee holds and commits nothing', async () => {
    const tag = randomUUID().slice(0, 8);
    const at = new Date().toISOString();
    await putEmployee(db, { id: randomUUID(), organizationId: ORG, userName: person(tag).email.toUpperCase(), emails: [], active: true, createdAt: at, updatedAt: at, version: 1 });
    const candidate = await offered(tag);
    const count = (await scanTable(db)).length;
    await expect(run((p) => hireCandidate(p, actor, candidate.id, candidateEtag(candidate), {}))).rejects.toEqual(new UniquenessConflictError('userName'));
    expect((await scanTable(db)).length).toBe(count);
    expect((await getCandidate(db, ORG, candidate.id))!.stage).toBe('OFFER');
  });

  it('refuses a hire before OFFER with CANDIDATE_NOT_OFFERED', async () => {
    const c = await run((p) => createCandidate(p, actor, person(randomUUID().slice(0, 8))));
    await expect(run((p) => hireCandidate(p, actor, c.id, candidateEtag(c), {}))).rejects.toMatchObject({ code: 'CANDIDATE_NOT_OFFERED' });
  });
});

describe('erasure', () => {
  const secrets = (tag: string) => ({
    givenName: `Zephyrine${tag}`,
    familyName: `Quillfeather${tag}`,
    email: `zq.${tag}@private.example`,
    phone: '+49 151 9876543',
    source: `Referral by Orlanda${tag}`,
    subject: `Interview slot for Zephyrine${tag}`,
    body: `Call me on +49 151 9876543, greetings Quillfeather${tag}`,
  });

  it('leaves no personal value in any item of the table; record, messages and audit stay', async () => {
    const tag = randomUUID().slice(0, 8);
    const s = secrets(tag);
    const created = await run((p) => createCandidate(p, actor, { givenName: s.givenName, familyName: s.familyName, email: s.email, phone: s.phone, position: 'Night porter', source: s.source }));
    await run((p) => postMessage(p, actor, created.id, { direction: 'OUTBOUND', channel: 'EMAIL', subject: s.subject, body: s.body }));
    await run((p) => postMessage(p, actor, created.id, { direction: 'INBOUND', channel: 'PHONE', body: s.body }));
    const current = (await getCandidate(db, ORG, created.id))!;
    const moved = await run((p) => moveCandidate(p, actor, created.id, candidateEtag(current), 'INTERVIEW'));
    // Findable by q before.
    expect((await listCandidates(db, ORG, { q: s.givenName, limit: 10 })).items.map((c) => c.id)).toEqual([created.id]);
    const values = [s.givenName, s.familyName, s.email, '9876543', `Orlanda${tag}`, s.subject, `Quillfeather${tag}`].map((v) => v.toLowerCase());
    const holding = async () => (await scanTable(db)).filter((item) => values.some((v) => JSON.stringify(item).toLowerCase().includes(v)));
    expect((await holding()).length).toBeGreaterThan(0);

    const erased = await run((p) => eraseCandidate(p, actor, created.id, candidateEtag(moved)));

    expect(await holding()).toEqual([]);
    expect(erased).toMatchObject({ givenName: null, familyName: null, email: null, phone: null, source: null, position: 'Night porter', stage: 'INTERVIEW', erased: true });
    const messages = await messagesOf(db, ORG, created.id);
    expect(messages.map((m) => [m.direction, m.channel, m.subject, m.body, m.erased])).toEqual([
      ['OUTBOUND', 'EMAIL', null, null, true],
      ['INBOUND', 'PHONE', null, null, true],
    ]);
    expect((await listCandidates(db, ORG, { q: s.givenName, limit: 10 })).items).toEqual([]);
    const audit = (await scanTable(db)).filter((i) => i.itemType === 'AuditEntry' && i.entity.id === created.id).map((i) => i.action);
    expect(audit.sort()).toEqual(['candidate.created', 'candidate.erased', 'candidate.stage_changed']);
    // Erasing again changes nothing; any other change is refused.
    const again = await run((p) => eraseCandidate(p, actor, created.id, candidateEtag(erased)));
    expect(again.version).toBe(erased.version);
    await expect(run((p) => postMessage(p, actor, created.id, { direction: 'INBOUND', channel: 'EMAIL', body: 'x' }))).rejects.toMatchObject({ code: 'CANDIDATE_ERASED' });
    await expect(run((p) => moveCandidate(p, actor, created.id, candidateEtag(erased), 'OFFER'))).rejects.toBeInstanceOf(AppError);
  });

  it('never commits an erasure that missed a message which arrived after it read the conversation', async () => {
    const tag = randomUUID().slice(0, 8);
    const s = secrets(tag);
    const c = await run((p) => createCandidate(p, actor, { givenName: s.givenName, familyName: s.familyName, email: s.email, position: 'Porter' }));
    const unit = new TransactionUnit(db);
    await eraseCandidate(portsOf(unit), actor, c.id, candidateEtag(c));
    await run((p) => postMessage(p, actor, c.id, { direction: 'INBOUND', channel: 'EMAIL', body: s.body }));
    await expect(unit.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    // Run from its reads again, the erasure covers the late message too.
    const current = (await getCandidate(db, ORG, c.id))!;
    await run((p) => eraseCandidate(p, actor, c.id, candidateEtag(current)));
    expect((await messagesOf(db, ORG, c.id)).map((m) => m.body)).toEqual([null]);
  });
});

describe('erasure of the stored responses about a candidate', () => {
  const idem = () => new TransactionalIdempotencyStore(db);
  const callOf = (): IdempotentCall => ({ scope: `${ORG}#recruit#POST#/recruitment/test`, idempotencyKey: randomUUID(), input: { n: randomUUID() }, lockMillis: 5_000 });

  /** A use case run as the kit runs a keyed write of a route whose erasableSubject is the candidate: its response stored on the candidate's index. */
  async function recorded<T extends { id: string }>(call: IdempotentCall, candidateIdOf: (result: T) => string, work: (ports: RecruitmentPorts) => Promise<T>): Promise<T> {
    let result!: T;
    await runIdempotent(idem(), call, async (complete) => {
      const unit = new TransactionUnit(db);
      result = await work(portsOf(unit));
      const response: StoredResponse = { statusCode: 201, headers: { ETag: `"x:${result.id}"` }, bodyText: JSON.stringify(result), contentType: 'application/json' };
      await unit.commit(await complete(response, { organizationId: ORG, type: 'candidate', id: candidateIdOf(result) }));
      return response;
    });
    return result;
  }

  /** The table, as the store sees it, except that every UpdateItem after the first `allowed` fails. */
  function failingAfter(allowed: number): Db {
    let updates = 0;
    const send = (command: unknown) => (command instanceof UpdateCommand && ++updates > allowed ? Promise.reject(new Error('Storage unavailable (test)')) : db.doc.send(command as never));
    return { tableName: db.tableName, doc: { send } as unknown as DynamoDBDocumentClient };
  }

  const recordItems = async (calls: readonly IdempotentCall[]) => {
    const keys = new Set(calls.map((c) => idem().recordKey({ key: `${c.scope}#${c.idempotencyKey}`, input: c.input }).PK));
    return (await scanTable(db)).filter((i) => keys.has(i.PK));
  };

  it('completes an interrupted replacement when the erasure is repeated; replays then answer the refusal; nothing personal in the logs', async () => {
    const tag = randomUUID().slice(0, 8);
    const values = [`Rosalind${tag}`, `Featherstone${tag}`, `rf.${tag}@private.example`, `Note for Featherstone${tag}`].map((v) => v.toLowerCase());
    const holds = (x: unknown) => values.filter((v) => JSON.stringify(x).toLowerCase().includes(v));
    const calls = Array.from({ length: 5 }, callOf);
    const c = await recorded(calls[0], (r) => r.id, (p) => createCandidate(p, actor, { givenName: `Rosalind${tag}`, familyName: `Featherstone${tag}`, email: `rf.${tag}@private.example`, position: 'Gardener' }));
    for (const call of calls.slice(1)) await recorded<CandidateMessage>(call, (m) => m.candidateId, (p) => postMessage(p, actor, c.id, { direction: 'OUTBOUND', channel: 'EMAIL', body: `Note for Featherstone${tag}` }));
    // Another candidate's record, which no erasure of c touches.
    const otherCall = callOf();
    const other = await recorded(otherCall, (r) => r.id, (p) => createCandidate(p, actor, person(randomUUID().slice(0, 8))));
    const otherBefore = await recordItems([otherCall]);
    const before = await recordItems(calls);
    expect(before).toHaveLength(5);
    expect(before.every((r) => holds(r).length > 0 && r.subject === `IDEMSUBJ#${ORG}#candidate#${c.id}`)).toBe(true);

    const current = (await getCandidate(db, ORG, c.id))!;
    let failure: unknown;
    const { logs } = await withCapturedLogs(async () => {
      // Batches of 2: the first is written, the second fails. The erasure itself has committed.
      await inUnitOfWork(db, (unit) => eraseCandidate(portsOf(unit, recruitmentStore(failingAfter(2), unit, { batchSize: 2 })), actor, c.id, candidateEtag(current))).catch((error: unknown) => {
        failure = error;
        logger.error('Request failed', { error: error as Error });
      });
      expect(failure).toBeInstanceOf(Error);
      const erased = (await getCandidate(db, ORG, c.id))!;
      expect(erased).toMatchObject({ erased: true, givenName: null });
      const interrupted = await recordItems(calls);
      expect(interrupted.filter((r) => r.response.statusCode === 409)).toHaveLength(2);
      expect(interrupted.filter((r) => holds(r).length > 0)).toHaveLength(3);

      // Erasing the erased candidate again: no change of its own, the replacement completed.
      const again = await run((p) => eraseCandidate(p, actor, c.id, candidateEtag(erased)));
      expect(again.version).toBe(erased.version);
    });
    expect(logs).toContain('Storage unavailable');
    expect(holds(logs)).toEqual([]);

    const after = await recordItems(calls);
    expect(after).toHaveLength(5);
    for (const record of after) {
      const was = before.find((r) => r.PK === record.PK)!;
      expect(record).toMatchObject({ status: 'COMPLETED', payloadHash: was.payloadHash, expiresAt: was.expiresAt, response: { statusCode: 409, contentType: 'application/problem+json' } });
      expect(JSON.parse(record.response.bodyText)).toMatchObject({ code: 'CANDIDATE_ERASED', status: 409, requestId: actor.requestId });
      expect(record.subject).toBeUndefined();
    }
    expect((await scanTable(db)).filter((i) => i.PK === `IDEMSUBJ#${ORG}#candidate#${c.id}`)).toEqual([]);
    // No item of the table holds a value any more, and the erasure was audited once.
    expect((await scanTable(db)).filter((i) => holds(i).length > 0)).toEqual([]);
    const audit = (await scanTable(db)).filter((i) => i.itemType === 'AuditEntry' && i.entity.id === c.id).map((i) => i.action);
    expect(audit.filter((a) => a === 'candidate.erased')).toHaveLength(1);

    // A retry with one of the keys runs nothing again and answers the refusal.
    const work = jest.fn();
    const replay = await runIdempotent(idem(), calls[1], work);
    expect(work).not.toHaveBeenCalled();
    expect(replay).toMatchObject({ replayed: true, response: { statusCode: 409, contentType: 'application/problem+json' } });
    // The other candidate's record is as it was.
    expect(await recordItems([otherCall])).toEqual(otherBefore);
    expect(JSON.parse(otherBefore[0].response.bodyText).id).toBe(other.id);
  });

  it('still reaches a record the version before put on the GSI1 partition of the subject, without a link', async () => {
    const tag = randomUUID().slice(0, 8);
    const call = callOf();
    const c = await recorded(call, (r) => r.id, (p) => createCandidate(p, actor, { givenName: `Legacy${tag}`, familyName: `Record${tag}`, email: `lr.${tag}@private.example`, position: 'Porter' }));
    const partition = `IDEMSUBJ#${ORG}#candidate#${c.id}`;
    // As that version wrote it: on GSI1, naming no subject, and no link.
    const [record] = await recordItems([call]);
    const { subject: _subject, ...legacy } = record;
    await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...legacy, GSI1PK: partition, GSI1SK: new Date().toISOString() } }));
    await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: { PK: partition, SK: record.PK } }));

    expect(await eraseCandidateResponses(db, ORG, c.id, new AppError('VALIDATION_ERROR', 'erased (test)'), 'req-legacy')).toBe(1);
    const [after] = await recordItems([call]);
    expect(after).toMatchObject({ status: 'COMPLETED', payloadHash: record.payloadHash, response: { statusCode: 422 } });
    expect(after).not.toHaveProperty('GSI1PK');
    expect(JSON.stringify(after)).not.toContain(`Legacy${tag}`);
  });
});
