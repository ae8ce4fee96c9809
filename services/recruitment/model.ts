import * as z from 'zod';
import { onIndexes } from '../shared/ddb/table-spec';

/**
 * The entities of the recruitment area as stored: each type is the output of its item schema,
 * and items are parsed with it on read (keys and unknown attributes are dropped). Keys
 * (docs/areas/recruitment.md lists the access patterns):
 *   candidate   PK ORG#<org>#CAND#<id>   SK CAND
 *   message     PK ORG#<org>#CAND#<id>   SK MSG#<recordedAt>#<id>     (the conversation, oldest first)
 *   GSI1 ORG#<org>#CANDIDATES          / <createdAt>#<id>   every candidate, creation order
 *   GSI2 ORG#<org>#CANDIDATES#<stage>  / <createdAt>#<id>   the candidates in one stage
 *   search index scope `candidate`: given name, family name, e-mail (removed on erasure)
 * No key holds a personal value: names and e-mail addresses live only in attributes, which
 * erasure sets to null. A candidate and its messages share one partition, so erasure reads
 * the whole conversation with one consistent Query.
 */

export const STAGES = ['APPLIED', 'SCREENING', 'INTERVIEW', 'OFFER', 'HIRED', 'REJECTED', 'WITHDRAWN'] as const;
export type Stage = (typeof STAGES)[number];

export const MESSAGE_DIRECTIONS = ['INBOUND', 'OUTBOUND'] as const;
export const MESSAGE_CHANNELS = ['EMAIL', 'PHONE', 'IN_PERSON', 'OTHER'] as const;

const nullableText = z.string().nullable();

/**
 * A candidate of the organization. Personal data: givenName, familyName, email, phone and
 * source (free text that may name a referrer); erasure sets them to null and `erased` true.
 * `messageCount` counts the conversation (bounded, see domain.ts) and is never shown.
 */
export const candidateSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    givenName: nullableText,
    familyName: nullableText,
    email: nullableText,
    phone: nullableText,
    position: z.string(),
    source: nullableText,
    stage: z.enum(STAGES),
    stageChangedAt: z.string(),
    /** The employee created by the hire, in this organization. */
    employeeId: nullableText,
    hiredAt: nullableText,
    messageCount: z.number().int(),
    erased: z.boolean(),
    erasedAt: nullableText,
    /** Increases with every change, a new message included; the ETag carries it. */
    version: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .readonly();
export type Candidate = z.output<typeof candidateSchema>;

/** One message of the conversation with a candidate; immutable, except that erasure nulls subject and body. */
export const candidateMessageSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    candidateId: z.string(),
    direction: z.enum(MESSAGE_DIRECTIONS),
    channel: z.enum(MESSAGE_CHANNELS),
    subject: nullableText,
    body: nullableText,
    erased: z.boolean(),
    recordedAt: z.string(),
  })
  .readonly();
export type CandidateMessage = z.output<typeof candidateMessageSchema>;

const partition = (org: string, candidateId: string) => `ORG#${org}#CAND#${candidateId}`;

export const candidateKeys = {
  candidate: (org: string, id: string) => ({ PK: partition(org, id), SK: 'CAND' }),
  partition,
  message: (m: Pick<CandidateMessage, 'organizationId' | 'candidateId' | 'recordedAt' | 'id'>) => ({ PK: partition(m.organizationId, m.candidateId), SK: `MSG#${m.recordedAt}#${m.id}` }),
  all: (org: string) => `ORG#${org}#CANDIDATES`,
  inStage: (org: string, stage: Stage) => `ORG#${org}#CANDIDATES#${stage}`,
};

export const CANDIDATE_SEARCH_SCOPE = 'candidate';
export const CANDIDATE_ITEM = 'Candidate';
export const CANDIDATE_MESSAGE_ITEM = 'CandidateMessage';

export function candidateToItem(c: Candidate): Record<string, unknown> {
  const position = `${c.createdAt}#${c.id}`;
  return {
    ...candidateKeys.candidate(c.organizationId, c.id),
    ...onIndexes(position, { GSI1: candidateKeys.all(c.organizationId), GSI2: candidateKeys.inStage(c.organizationId, c.stage) }),
    itemType: CANDIDATE_ITEM,
    ...c,
  };
}

export const messageToItem = (m: CandidateMessage): Record<string, unknown> => ({ ...candidateKeys.message(m), itemType: CANDIDATE_MESSAGE_ITEM, ...m });

export const candidateFromItem = (item: Record<string, unknown>): Candidate => candidateSchema.parse(item);
export const messageFromItem = (item: Record<string, unknown>): CandidateMessage => candidateMessageSchema.parse(item);
