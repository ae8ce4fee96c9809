import { auditFor, type AuditEntry } from '../audit/model';
import type { Employee, EmployeeChange, GuardAction, UniqueAttribute, UniqueValue } from '../employees/public';
import { organizationOf, type Actor, type SystemActor } from '../shared/domain/actor';
import { assertSentEtag, entityEtag, versionedEtag } from '../shared/domain/etag';
import { givenAttributes, newRecord, revised } from '../shared/domain/lifecycle';
import { AppError, NotFoundError, UniquenessConflictError, ValidationError, type Problem } from '../shared/errors';
import type { Candidate, CandidateMessage, Stage } from './model';
import { PROBLEMS } from './problems';
import type { UseCasePorts } from '../shared/domain/ports';

export type { Candidate, CandidateMessage, Stage } from './model';

/**
 * Recruitment: candidates through the pipeline, the hire that creates their employee, the
 * conversation with them, and the erasure of their personal data. Pure rules on ports: no
 * HTTP, no SDK. Audit entries name attributes, never a candidate's values.
 */

/**
 * At most this many messages per candidate: erasure rewrites the candidate, its search words
 * (<= 24) and every message in ONE transaction (<= 100 items), so it is all or nothing.
 */
export const MAX_MESSAGES = 60;

// ---- the pipeline (pure) ---------------------------------------------------------------------

const OPEN_STAGES: readonly Stage[] = ['APPLIED', 'SCREENING', 'INTERVIEW', 'OFFER'];
const FINAL_CODE: Readonly<Partial<Record<Stage, Problem>>> = { HIRED: PROBLEMS.CANDIDATE_HIRED, REJECTED: PROBLEMS.CANDIDATE_REJECTED, WITHDRAWN: PROBLEMS.CANDIDATE_WITHDRAWN };

export const isOpen = (stage: Stage): boolean => OPEN_STAGES.includes(stage);

/** The outcome of a stage move: nothing to do, the move, or the 409 code that refuses it. */
export type MoveOutcome = { readonly kind: 'unchanged' } | { readonly kind: 'move' } | { readonly kind: 'refused'; readonly problem: Problem };

/**
 * THE transition rule. APPLIED -> SCREENING -> INTERVIEW -> OFFER -> HIRED, and REJECTED or
 * WITHDRAWN from any open stage. Open stages move forward only (skipping is allowed: a
 * referral may go straight to INTERVIEW); HIRED only from OFFER; the final stages are final.
 */
export function stageMove(from: Stage, to: Stage): MoveOutcome {
  const final = FINAL_CODE[from];
  if (final) return { kind: 'refused', problem: final };
  if (to === from) return { kind: 'unchanged' };
  if (to === 'HIRED') return from === 'OFFER' ? { kind: 'move' } : { kind: 'refused', problem: PROBLEMS.CANDIDATE_NOT_OFFERED };
  if (to === 'REJECTED' || to === 'WITHDRAWN') return { kind: 'move' };
  return OPEN_STAGES.indexOf(to) > OPEN_STAGES.indexOf(from) ? { kind: 'move' } : { kind: 'refused', problem: PROBLEMS.CANDIDATE_STAGE_PASSED };
}

/** The stages a candidate in `from` may move to (empty for a final stage). */
export const allowedStages = (from: Stage): Stage[] => (['SCREENING', 'INTERVIEW', 'OFFER', 'HIRED', 'REJECTED', 'WITHDRAWN'] as const).filter((to) => stageMove(from, to).kind === 'move');

const REFUSAL: Readonly<Partial<Record<string, (c: Candidate, to: Stage) => string>>> = {
  CANDIDATE_HIRED: () => 'The candidate is hired; a final stage does not change.',
  CANDIDATE_REJECTED: () => 'The candidate is rejected; a final stage does not change.',
  CANDIDATE_WITHDRAWN: () => 'The candidate has withdrawn; a final stage does not change.',
  CANDIDATE_NOT_OFFERED: (c) => `Only a candidate in stage OFFER can be hired; this one is in ${c.stage}.`,
  CANDIDATE_STAGE_PASSED: (c, to) => `The candidate is in ${c.stage} and has passed ${to}; the pipeline only moves forward.`,
};

/** The candidate may move to `to`: true; no change: false; refused: 409 with the stage and the allowed moves. */
export function assertMove(c: Candidate, to: Stage): boolean {
  assertNotErased(c);
  const outcome = stageMove(c.stage, to);
  if (outcome.kind === 'refused') {
    throw new AppError(outcome.problem, REFUSAL[outcome.problem.code]?.(c, to) ?? `The candidate cannot move to ${to}.`, { extensions: { stage: c.stage, allowedStages: allowedStages(c.stage) } });
  }
  return outcome.kind === 'move';
}

/** What a change to an erased candidate answers (409 CANDIDATE_ERASED); also what replays of earlier writes answer once erased. */
export const erasedRefusal = (): AppError => new AppError(PROBLEMS.CANDIDATE_ERASED, "The candidate's personal data was erased on request; the record can no longer change.");

export function assertNotErased(c: Candidate): void {
  if (c.erased) throw erasedRefusal();
}

// ---- erasure (pure) --------------------------------------------------------------------------

/** The candidate attributes that hold personal data, set to null by erasure. */
export const PERSONAL_ATTRIBUTES = ['givenName', 'familyName', 'email', 'phone', 'source'] as const;

/** The candidate with its personal values removed; pipeline facts (position, stage, dates, employee link) stay. */
export function erasedCandidate(c: Candidate, at: string): Candidate {
  return revised(c, at, { givenName: null, familyName: null, email: null, phone: null, source: null, erased: true, erasedAt: at });
}

/** A message with its content removed; direction, channel and time stay. */
export const erasedMessage = (m: CandidateMessage): CandidateMessage => ({ ...m, subject: null, body: null, erased: true });

// ---- ports -----------------------------------------------------------------------------------

export interface CandidateChange {
  /** The stored state read; absent for a new candidate. */
  readonly before?: Candidate;
  readonly after: Candidate;
  readonly audit: AuditEntry;
}

export interface HireChange extends CandidateChange {
  readonly before: Candidate;
  /** The new employee, its guards and its own audit entry (the employees area's change). */
  readonly employee: EmployeeChange;
}

export interface MessageChange extends CandidateChange {
  readonly before: Candidate;
  readonly message: CandidateMessage;
}

export interface ErasureChange extends CandidateChange {
  readonly before: Candidate;
  readonly messages: readonly { readonly before: CandidateMessage; readonly after: CandidateMessage }[];
}

/**
 * The recruitment store port (store.ts is the DynamoDB adapter). `save*` stage a change in the
 * request's unit of work; a candidate that moved since it was read makes the use case run
 * again from its reads.
 */
export interface RecruitmentStore {
  getCandidate(organizationId: string, id: string): Promise<Candidate | undefined>;
  /** The whole conversation, consistently (at most MAX_MESSAGES). */
  messagesOf(organizationId: string, candidateId: string): Promise<CandidateMessage[]>;
  /** Which of these employee values another employee already holds. */
  takenEmployeeValues(organizationId: string, values: readonly UniqueValue[]): Promise<UniqueAttribute[]>;
  saveCandidate(change: CandidateChange): void;
  saveHire(change: HireChange): void;
  saveMessage(change: MessageChange): void;
  saveErasure(change: ErasureChange): void;
  /**
   * After the commit, the stored responses of earlier writes about the candidate (their
   * idempotency records) answer `refusal` instead, with nothing of the erased values; a
   * failure fails the request, and erasing again, or a retry with the same Idempotency-Key
   * (completeErasure), completes it. `requestId` names the erasing request in the stored
   * refusal; a replay answers it with its own request id and path (shared/http/idempotent.ts).
   */
  eraseStoredResponses(organizationId: string, candidateId: string, refusal: AppError, requestId: string): void;
}

export type RecruitmentPorts = UseCasePorts<RecruitmentStore>;

export const candidateEtag = versionedEtag<Pick<Candidate, 'id' | 'version'>>('candidate');
export const messageEtag = (m: Pick<CandidateMessage, 'id'>): string => entityEtag('candidate-message', m.id, 1);

type Who = Actor | SystemActor;

const audit = auditFor;

/** The audit entry of a candidate's move from `before`'s stage to `after`'s: the stages, and the attributes it changed. */
const stageAudit = (ports: RecruitmentPorts, actor: Who, before: Candidate, after: Candidate, action: string, extra: { readonly references?: Record<string, string>; readonly changedAttributes?: string[] } = {}): AuditEntry =>
  audit(ports, actor, after.updatedAt, { action, entity: { type: 'candidate', id: after.id }, before: { stage: before.stage }, after: { stage: after.stage }, changedAttributes: ['stage'], ...extra });

async function readCandidate(ports: RecruitmentPorts, org: string, id: string, ifMatch?: string): Promise<Candidate> {
  const c = await ports.store.getCandidate(org, id);
  if (!c) throw new NotFoundError(`Candidate ${id}`);
  assertSentEtag(ifMatch, candidateEtag(c));
  return c;
}

// ---- use cases -------------------------------------------------------------------------------

export interface CandidateInput {
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string;
  readonly phone?: string | null;
  readonly position: string;
  readonly source?: string | null;
}

export type CandidatePatch = Partial<CandidateInput>;

/**
 * Creates a candidate in stage APPLIED.
 * 1. Build version 1.  2. Stage it with its search words and an audit entry naming the
 *    attributes given (never their values).
 */
export async function createCandidate(ports: RecruitmentPorts, actor: Who, input: CandidateInput): Promise<Candidate> {
  const now = ports.now().toISOString();
  const candidate: Candidate = {
    ...newRecord(ports.newId(), organizationOf(actor), now),
    givenName: input.givenName,
    familyName: input.familyName,
    email: input.email,
    phone: input.phone ?? null,
    position: input.position,
    source: input.source ?? null,
    stage: 'APPLIED',
    stageChangedAt: now,
    employeeId: null,
    hiredAt: null,
    messageCount: 0,
    erased: false,
    erasedAt: null,
  };
  const given = givenAttributes(input);
  ports.store.saveCandidate({ after: candidate, audit: audit(ports, actor, now, { action: 'candidate.created', entity: { type: 'candidate', id: candidate.id }, after: { stage: 'APPLIED' }, changedAttributes: given }) });
  return candidate;
}

const EDITABLE = ['givenName', 'familyName', 'email', 'phone', 'position', 'source'] as const;

/**
 * Changes a candidate's data (partial; `null` clears phone or source).
 * 1. Read (404); If-Match must be its ETag (412); an erased candidate is 409 CANDIDATE_ERASED.
 * 2. Nothing changed: answer it as it is.  3. Stage the next version with its search words.
 */
export async function updateCandidate(ports: RecruitmentPorts, actor: Who, id: string, ifMatch: string, patch: CandidatePatch): Promise<Candidate> {
  const current = await readCandidate(ports, organizationOf(actor), id, ifMatch);
  assertNotErased(current);
  const next = { ...current };
  for (const field of EDITABLE) if (patch[field] !== undefined) (next as Record<string, unknown>)[field] = patch[field];
  const changed = EDITABLE.filter((f) => next[f] !== current[f]);
  if (changed.length === 0) return current;
  const now = ports.now().toISOString();
  const after: Candidate = revised(current, now, next);
  ports.store.saveCandidate({ before: current, after, audit: audit(ports, actor, now, { action: 'candidate.updated', entity: { type: 'candidate', id }, changedAttributes: [...changed].sort() }) });
  return after;
}

export type MoveTarget = Exclude<Stage, 'APPLIED' | 'HIRED'>;

/**
 * Moves a candidate through the pipeline (never to HIRED: that is the hire).
 * 1. Read (404); If-Match (412).  2. The transition rule (409 with the code of the refusal);
 *    the current stage answers as it is.  3. Stage the next version, audited with the stages.
 */
export async function moveCandidate(ports: RecruitmentPorts, actor: Who, id: string, ifMatch: string, to: MoveTarget): Promise<Candidate> {
  const current = await readCandidate(ports, organizationOf(actor), id, ifMatch);
  if (!assertMove(current, to)) return current;
  const now = ports.now().toISOString();
  const after: Candidate = revised(current, now, { stage: to, stageChangedAt: now });
  ports.store.saveCandidate({
    before: current,
    after,
    audit: stageAudit(ports, actor, current, after, 'candidate.stage_changed'),
  });
  return after;
}

export interface HireInput {
  /** Login name of the employee; default: the candidate's e-mail address. */
  readonly userName?: string;
  readonly externalId?: string;
  readonly employeeNumber?: string;
  readonly department?: string;
  readonly title?: string;
}

/**
 * Hires a candidate: creates the employee and links it, in ONE transaction.
 * 1. Read the candidate (404); If-Match (412); not erased (409); stage OFFER (409 otherwise).
 * 2. Build the employee (active, version 1) from the candidate's names and e-mail; userName
 *    is the given one or the e-mail. A userName or externalId another employee holds is 409
 *    UNIQUENESS_CONFLICT, as on POST /employees; a claim lost to a concurrent write too.
 * 3. Stage the candidate at HIRED with employeeId (only at the version read: of two hires
 *    exactly one commits, the other reads again and is refused) and the employee change of
 *    the employees area (employee, guards, e-mail lookup, search words, its audit entry).
 */
export async function hireCandidate(ports: RecruitmentPorts, actor: Who, id: string, ifMatch: string, input: HireInput): Promise<{ candidate: Candidate; employee: Employee }> {
  const org = organizationOf(actor);
  const current = await readCandidate(ports, org, id, ifMatch);
  assertMove(current, 'HIRED');
  const userName = input.userName ?? current.email;
  if (!userName) throw new ValidationError([{ pointer: '/userName', detail: 'The candidate has no e-mail address to use as userName: send userName.' }]);
  const values: UniqueValue[] = [{ attribute: 'userName', value: userName }, ...(input.externalId ? [{ attribute: 'externalId' as const, value: input.externalId }] : [])];
  const [taken] = await ports.store.takenEmployeeValues(org, values);
  if (taken) throw new UniquenessConflictError(taken);
  const now = ports.now().toISOString();
  const displayName = [current.givenName, current.familyName].filter(Boolean).join(' ');
  const employee: Employee = {
    ...newRecord(ports.newId(), org, now),
    userName,
    ...(displayName ? { displayName } : {}),
    ...(current.givenName ? { givenName: current.givenName } : {}),
    ...(current.familyName ? { familyName: current.familyName } : {}),
    emails: current.email ? [{ value: current.email, type: 'work', primary: true }] : [],
    ...(input.externalId ? { externalId: input.externalId } : {}),
    ...(input.employeeNumber ? { employeeNumber: input.employeeNumber } : {}),
    ...(input.department ? { department: input.department } : {}),
    ...(input.title ? { title: input.title } : {}),
    active: true,
  };
  const guards: GuardAction[] = values.map((v) => ({ kind: 'claim', attribute: v.attribute, value: v.value }));
  const employeeFields = ['userName', 'displayName', 'givenName', 'familyName', 'emails', 'externalId', 'employeeNumber', 'department', 'title'].filter((f) => (employee as Record<string, unknown>)[f] !== undefined);
  const after: Candidate = revised(current, now, { stage: 'HIRED', stageChangedAt: now, employeeId: employee.id, hiredAt: now });
  ports.store.saveHire({
    before: current,
    after,
    audit: stageAudit(ports, actor, current, after, 'candidate.hired', { references: { employeeId: employee.id }, changedAttributes: ['employeeId', 'hiredAt', 'stage'] }),
    employee: {
      after: employee,
      guards,
      audit: audit(ports, actor, now, { action: 'employee.created', entity: { type: 'employee', id: employee.id }, references: { candidateId: id }, after: { active: true }, changedAttributes: employeeFields }),
    },
  });
  return { candidate: after, employee };
}

export interface MessageInput {
  readonly direction: CandidateMessage['direction'];
  readonly channel: CandidateMessage['channel'];
  readonly subject?: string | null;
  readonly body: string;
}

/**
 * Records a message of the conversation (sent to or received from the candidate).
 * 1. Read the candidate (404); erased is 409 CANDIDATE_ERASED; the MAX_MESSAGES-th message is
 *    the last (409 CANDIDATE_MESSAGE_LIMIT).  2. Stage the message with the candidate's next
 *    version (its messageCount), so that an erasure never misses a message that came meanwhile.
 */
export async function postMessage(ports: RecruitmentPorts, actor: Who, candidateId: string, input: MessageInput): Promise<CandidateMessage> {
  const current = await readCandidate(ports, organizationOf(actor), candidateId);
  assertNotErased(current);
  if (current.messageCount >= MAX_MESSAGES) {
    throw new AppError(PROBLEMS.CANDIDATE_MESSAGE_LIMIT, `A candidate holds at most ${MAX_MESSAGES} messages, so that erasing the conversation stays one atomic change.`, { extensions: { maxMessages: MAX_MESSAGES } });
  }
  const now = ports.now().toISOString();
  const message: CandidateMessage = {
    id: ports.newId(),
    organizationId: current.organizationId,
    candidateId,
    direction: input.direction,
    channel: input.channel,
    subject: input.subject ?? null,
    body: input.body,
    erased: false,
    recordedAt: now,
  };
  const after: Candidate = revised(current, now, { messageCount: current.messageCount + 1 });
  ports.store.saveMessage({
    before: current,
    after,
    message,
    audit: audit(ports, actor, now, {
      action: 'candidate_message.created',
      entity: { type: 'candidate_message', id: message.id },
      references: { candidateId },
      after: { direction: message.direction, channel: message.channel },
      changedAttributes: ['body', ...(message.subject !== null ? ['subject'] : [])],
    }),
  });
  return message;
}

/**
 * Step 4 of an erasure alone, for a replay of it (the kit's `afterReplay`): the stored
 * responses about the candidate answer CANDIDATE_ERASED. Rewriting them again changes nothing.
 */
export async function completeErasure(ports: RecruitmentPorts, actor: Who, id: string): Promise<void> {
  ports.store.eraseStoredResponses(organizationOf(actor), id, erasedRefusal(), actor.requestId);
}

/**
 * Erases a candidate's personal data on request: the values go, the record and its audit
 * trail stay. Erasing an erased candidate changes nothing (no audit entry) but steps 4 again.
 * 1. Read the candidate (404); If-Match (412).  2. Read the whole conversation.
 * 3. Stage in ONE transaction: the candidate without names, e-mail, phone and source
 *    (erased, at the version read, so no message can arrive unseen), every message without
 *    subject and body, the removal of its search words, and an audit entry naming the
 *    erased attributes. The employee a hire created is another record and stays.
 * 4. After that commit, the stored responses of earlier writes about the candidate answer 409
 *    CANDIDATE_ERASED (the transaction of 3 has no room for them: <= 100 items); also for an
 *    erased candidate, so that erasing again completes a replacement that failed.
 */
export async function eraseCandidate(ports: RecruitmentPorts, actor: Who, id: string, ifMatch: string): Promise<Candidate> {
  const current = await readCandidate(ports, organizationOf(actor), id, ifMatch);
  await completeErasure(ports, actor, id);
  if (current.erased) return current;
  const messages = await ports.store.messagesOf(current.organizationId, id);
  const now = ports.now().toISOString();
  const after = erasedCandidate(current, now);
  ports.store.saveErasure({
    before: current,
    after,
    messages: messages.filter((m) => !m.erased).map((m) => ({ before: m, after: erasedMessage(m) })),
    audit: audit(ports, actor, now, {
      action: 'candidate.erased',
      entity: { type: 'candidate', id },
      after: { erased: true, messagesErased: messages.length },
      changedAttributes: [...PERSONAL_ATTRIBUTES, ...(messages.length > 0 ? ['messages'] : [])].sort(),
    }),
  });
  return after;
}
