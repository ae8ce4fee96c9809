import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { holderKey, readGuardHolders, saveEmployee, type UniqueAttribute, type UniqueValue } from '../employees/public';
import { ORG_PREFIX } from '../shared/area';
import type { Db } from '../shared/ddb/client';
import { eraseStoredResponses, type EraseOptions } from '../shared/ddb/idempotency';
import { movedOn, searchUpkeep, versionedPut, type SearchState } from '../shared/ddb/entity';
import { getByIds, indexPage, searchPage, type Page, type PagePosition } from '../shared/ddb/paging';
import { collectAll, getOne } from '../shared/ddb/read';
import { searchWords } from '../shared/ddb/search';
import type { TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import type { AppError } from '../shared/errors';
import { refusalResponse } from '../shared/http/idempotent';
import type { CandidateChange, ErasureChange, HireChange, MessageChange, RecruitmentStore } from './domain';
import { candidateFromItem, candidateKeys, candidateToItem, CANDIDATE_SEARCH_SCOPE, messageFromItem, messageToItem, type Candidate, type CandidateMessage, type Stage } from './model';

/**
 * The DynamoDB adapter of candidates and their messages: the only place with their
 * expressions and conditions (keys and item shapes: model.ts). Every candidate write is a
 * versioned put at the version read; a message or an erasure moves the candidate too, so an
 * erasure commits only if no message arrived after it read the conversation.
 */

export const CANDIDATE_LABEL = 'candidate';
const MESSAGE_LABEL = 'candidate-message';

/** The words `q` finds a candidate by: names and e-mail address (none once erased). */
export const candidateSearchWords = (c: Pick<Candidate, 'givenName' | 'familyName' | 'email'>): string[] => searchWords([c.givenName, c.familyName, c.email]);

const searchState = (c: Candidate): SearchState => ({ scope: CANDIDATE_SEARCH_SCOPE, words: candidateSearchWords(c) });

/** The index items of a candidate change; none when its words stay the same. */
function searchItems(before: Candidate | undefined, after: Candidate): TxItem[] {
  const next = searchState(after);
  const previous = before && searchState(before);
  if (previous && previous.words.join(' ') === next.words.join(' ')) return [];
  return searchUpkeep(after.organizationId, after.id, previous, next);
}

const putCandidate = (change: CandidateChange): TxItem[] => [versionedPut(CANDIDATE_LABEL, candidateToItem(change.after), change.before), ...searchItems(change.before, change.after)];

export const getCandidate = (db: Db, org: string, id: string): Promise<Candidate | undefined> => getOne(db, candidateKeys.candidate(org, id), candidateFromItem);

const getCandidates = (db: Db, org: string, ids: readonly string[]): Promise<Map<string, Candidate>> => getByIds(db, ids, (id) => candidateKeys.candidate(org, id), candidateFromItem);

const messagesRange = (org: string, candidateId: string) => ({
  KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
  ExpressionAttributeValues: { ':pk': candidateKeys.partition(org, candidateId), ':prefix': 'MSG#' },
  ConsistentRead: true,
});

/** The whole conversation of a candidate, oldest first (consistent Query of its partition). */
export async function messagesOf(db: Db, org: string, candidateId: string): Promise<CandidateMessage[]> {
  return (await collectAll(db, messagesRange(org, candidateId))).map(messageFromItem);
}

/** One message of a candidate, by id: its sort key holds its time, so the candidate's (at most 60) messages are read. */
export async function getMessage(db: Db, org: string, candidateId: string, id: string): Promise<CandidateMessage | undefined> {
  return (await messagesOf(db, org, candidateId)).find((m) => m.id === id);
}

/** One page of a candidate's messages, oldest first; `after` is the sort key of the last one returned. */
export async function listMessages(db: Db, org: string, candidateId: string, limit: number, after?: string): Promise<{ items: CandidateMessage[]; after?: string }> {
  const out = await db.doc.send(
    new QueryCommand({
      TableName: db.tableName,
      ...messagesRange(org, candidateId),
      ExclusiveStartKey: after ? { PK: candidateKeys.partition(org, candidateId), SK: after } : undefined,
      Limit: limit + 1,
    }),
  );
  const raw = (out.Items ?? []).slice(0, limit + 1);
  const items = raw.slice(0, limit).map(messageFromItem);
  return { items, ...(raw.length > limit ? { after: candidateKeys.message(items.at(-1)!).SK } : {}) };
}

export interface CandidateQuery {
  readonly stage?: Stage;
  readonly q?: string;
  readonly limit: number;
  readonly after?: PagePosition;
}

/** One page of candidates: creation order (GSI1), one stage (GSI2), or `q` through the search index. */
export async function listCandidates(db: Db, org: string, query: CandidateQuery): Promise<Page<Candidate>> {
  if (query.q !== undefined) return searchPage(db, org, CANDIDATE_SEARCH_SCOPE, query.q, query.limit, query.after, (ids) => getCandidates(db, org, ids));
  const page = query.stage ? await indexPage(db, 'GSI2', candidateKeys.inStage(org, query.stage), query.limit, query.after) : await indexPage(db, 'GSI1', candidateKeys.all(org), query.limit, query.after);
  return { items: page.items.map(candidateFromItem), ...(page.next ? { next: page.next } : {}) };
}

async function takenEmployeeValues(db: Db, org: string, values: readonly UniqueValue[]): Promise<UniqueAttribute[]> {
  const holders = await readGuardHolders(db, org, values);
  return values.filter((v) => holders.has(holderKey(v))).map((v) => v.attribute);
}

/** Stages a new candidate or its next version (a version that moved: read again). */
export function saveCandidate(unit: UnitOfWork, change: CandidateChange): void {
  unit.stage({ items: putCandidate(change), audit: change.audit, explain: movedOn(CANDIDATE_LABEL) });
}

/**
 * Stages a hire: the candidate at HIRED (at the version read) first, then the employees
 * area's change of the new employee (employee, guards, e-mail lookup, search words, audit).
 * A candidate that moved explains the failure first (read again, then 409/412); otherwise a
 * guard claimed meanwhile is the employees area's 409 UNIQUENESS_CONFLICT.
 */
export function saveHire(unit: UnitOfWork, change: HireChange): void {
  saveCandidate(unit, change);
  saveEmployee(unit, change.employee);
}

/** Stages a message with the candidate's next version (its message count). */
export function saveMessage(unit: UnitOfWork, change: MessageChange): void {
  unit.stage({
    items: [...putCandidate(change), { label: MESSAGE_LABEL, op: { Put: { Item: messageToItem(change.message), ConditionExpression: 'attribute_not_exists(PK)' } } }],
    audit: change.audit,
    explain: movedOn(CANDIDATE_LABEL),
  });
}

/**
 * Stages an erasure: the erased candidate at the version read (so the conversation read is
 * the whole conversation), every message rewritten without its content (only if it still
 * exists), and the removal of every search word, in one transaction.
 */
export function saveErasure(unit: UnitOfWork, change: ErasureChange): void {
  const messages = change.messages.map(
    (m): TxItem => ({ label: MESSAGE_LABEL, op: { Put: { Item: messageToItem(m.after), ConditionExpression: 'attribute_exists(PK)' } } }),
  );
  unit.stage({ items: [...putCandidate(change), ...messages], audit: change.audit, explain: movedOn(CANDIDATE_LABEL, MESSAGE_LABEL) });
}

/** How the stored responses are rewritten (eraseStoredResponses: the batch size). */
export type ErasureOptions = EraseOptions;

/**
 * Replaces the stored responses of the candidate's earlier writes (the routes that declare it
 * their `erasableSubject`) by the refusal an erased candidate answers; `instance` is the
 * candidate's path as stored (a replay answers with its own path and request id: `replayedBy`).
 * Returns how many it rewrote.
 */
export function eraseCandidateResponses(db: Db, org: string, candidateId: string, refusal: AppError, requestId: string, options: ErasureOptions = {}): Promise<number> {
  const instance = `${ORG_PREFIX.replace('{organizationId}', org)}/recruitment/candidates/${candidateId}`;
  return eraseStoredResponses(db, { organizationId: org, type: 'candidate', id: candidateId }, refusalResponse(refusal, requestId, instance), options);
}

/** The recruitment store port on DynamoDB, staging writes in `unit`. */
export const recruitmentStore = (db: Db, unit: UnitOfWork, erasure: ErasureOptions = {}): RecruitmentStore => ({
  getCandidate: (org, id) => getCandidate(db, org, id),
  messagesOf: (org, id) => messagesOf(db, org, id),
  takenEmployeeValues: (org, values) => takenEmployeeValues(db, org, values),
  saveCandidate: (change) => saveCandidate(unit, change),
  saveHire: (change) => saveHire(unit, change),
  saveMessage: (change) => saveMessage(unit, change),
  saveErasure: (change) => saveErasure(unit, change),
  eraseStoredResponses: (org, id, refusal, requestId) =>
    unit.afterCommit(async () => {
      await eraseCandidateResponses(db, org, id, refusal, requestId, erasure);
    }),
});
