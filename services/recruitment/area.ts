import { defineArea } from '../shared/area';
import { actionRoute, createRoute, listRoute, readRoute, updateRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { candidateListQuery, candidateMessageResponseSchema, candidateResponseSchema, createCandidateBody, emptyBody, hireCandidateBody, messageListQuery, moveCandidateBody, postMessageBody, updateCandidateBody } from './schemas';
import { PROBLEMS } from './problems';

const ERASED = 'Once erased (`erased: true`), names, e-mail, phone and source are `null`.';
const FINAL = '409 `CANDIDATE_HIRED`, `CANDIDATE_REJECTED` or `CANDIDATE_WITHDRAWN` in a final stage, each with `stage` and `allowedStages`, and `CANDIDATE_ERASED` after erasure.';

/** Their stored responses (Idempotency-Key replays) hold the candidate's personal values: erasure reaches them. */
const ABOUT_THE_CANDIDATE = { type: 'candidate', idFrom: { param: 'candidateId' } } as const;

/** Candidates through the recruitment pipeline, their hire, their conversation and its erasure. */
export const recruitmentArea = defineArea({
  name: 'recruitment',
  api: 'public',
  description: 'Candidates, the pipeline stages, hiring into an employee, candidate messages and erasure of personal data.',
  // Candidates and messages; the hire writes the employee, its guards, e-mail lookup and search words.
  permissions: { table: READ_WRITE, cursorSecret: true, restrictedDataKey: false },
  problems: PROBLEMS,
  demoSeed: true,
  auditEntityTypes: ['candidate', 'candidate_message'],
  schemas: { Candidate: candidateResponseSchema, CandidateList: pageSchema(candidateResponseSchema), CandidateMessage: candidateMessageResponseSchema, CandidateMessageList: pageSchema(candidateMessageResponseSchema) },
  routes: {
    listCandidates: listRoute({
      path: '/recruitment/candidates',
      scopes: ['recruitment:read'],
      summary: 'List or search candidates',
      description: `Candidates in creation order (createdAt, then id), optionally of one \`stage\`; or, with \`q\`, the candidates whose name or e-mail has a word starting with every query word (erased candidates are never found by \`q\`). ${ERASED}`,
      query: candidateListQuery,
      schema: pageSchema(candidateResponseSchema),
      returns: 'A page of candidates.',
    }),
    createCandidate: createRoute({
      path: '/recruitment/candidates',
      scopes: ['recruitment:write'],
      summary: 'Create a candidate',
      description: 'Creates a candidate in stage `APPLIED`, atomically with its audit entry (attribute names only, never values).',
      body: createCandidateBody,
      erasableSubject: { type: 'candidate', idFrom: { responseMember: 'id' } },
      schema: candidateResponseSchema,
      returns: 'The created candidate.',
    }),
    getCandidate: readRoute({
      path: '/recruitment/candidates/{candidateId}',
      scopes: ['recruitment:read'],
      summary: 'Get one candidate',
      description: `One candidate, in any stage. ${ERASED}`,
      schema: candidateResponseSchema,
      returns: 'The candidate.',
    }),
    updateCandidate: updateRoute({
      path: '/recruitment/candidates/{candidateId}',
      scopes: ['recruitment:write'],
      summary: "Update a candidate's data",
      description: 'Changes the fields sent (partial; `null` or `""` clears phone or source). The stage changes only through `/move` and `/hire`. A change to the current values changes nothing (same ETag). 409 `CANDIDATE_ERASED` after erasure.',
      body: updateCandidateBody,
      idempotencyKey: 'optional',
      erasableSubject: ABOUT_THE_CANDIDATE,
      schema: candidateResponseSchema,
      returns: 'The candidate after the change.',
      problems: [PROBLEMS.CANDIDATE_ERASED],
    }),
    moveCandidate: actionRoute({
      path: '/recruitment/candidates/{candidateId}/move',
      scopes: ['recruitment:write'],
      summary: 'Move a candidate to another pipeline stage',
      description: `APPLIED → SCREENING → INTERVIEW → OFFER, forward only (stages may be skipped; a passed stage is 409 \`CANDIDATE_STAGE_PASSED\`), and REJECTED or WITHDRAWN from any open stage. Moving to the current stage changes nothing when it is SCREENING, INTERVIEW or OFFER; APPLIED is no target (422), and a final stage refuses every move (409). HIRED only through \`/hire\`. ${FINAL}`,
      body: moveCandidateBody,
      erasableSubject: ABOUT_THE_CANDIDATE,
      schema: candidateResponseSchema,
      returns: 'The candidate in its new stage.',
      problems: [PROBLEMS.CANDIDATE_STAGE_PASSED, PROBLEMS.CANDIDATE_HIRED, PROBLEMS.CANDIDATE_REJECTED, PROBLEMS.CANDIDATE_WITHDRAWN, PROBLEMS.CANDIDATE_ERASED],
    }),
    hireCandidate: actionRoute({
      path: '/recruitment/candidates/{candidateId}/hire',
      scopes: ['recruitment:write', 'employees:write'],
      summary: 'Hire a candidate: create and link the employee',
      description: `Hires a candidate in stage \`OFFER\` (else 409 \`CANDIDATE_NOT_OFFERED\`): creates the employee (active; names and work e-mail from the candidate; \`userName\` the one given or the e-mail) and moves the candidate to HIRED with its \`employeeId\`, in ONE transaction. The employee is then in GET /employees and SCIM /Users. A \`userName\` or \`externalId\` another employee holds is 409 \`UNIQUENESS_CONFLICT\` (\`attribute\`), as on POST /employees; of two concurrent hires exactly one creates an employee. ${FINAL}`,
      body: hireCandidateBody,
      bodyOptional: true,
      erasableSubject: ABOUT_THE_CANDIDATE,
      schema: candidateResponseSchema,
      returns: 'The hired candidate; `employeeId` names the new employee.',
      problems: [PROBLEMS.CANDIDATE_NOT_OFFERED, 'UNIQUENESS_CONFLICT', PROBLEMS.CANDIDATE_HIRED, PROBLEMS.CANDIDATE_REJECTED, PROBLEMS.CANDIDATE_WITHDRAWN, PROBLEMS.CANDIDATE_ERASED],
    }),
    eraseCandidate: actionRoute({
      path: '/recruitment/candidates/{candidateId}/erase',
      scopes: ['recruitment:write'],
      summary: "Erase a candidate's personal data",
      description:
        "Erases on request, in ONE transaction: names, e-mail, phone and source of the candidate, subject and body of every message, and the candidate's search words. The record (position, stage, dates, employee link), the messages' direction, channel and time, and the audit trail stay. Then the stored responses of earlier writes about the candidate (its create, changes, moves, hire and messages, kept 24 h for Idempotency-Key replays) are replaced: a replay answers 409 `CANDIDATE_ERASED` (with `Idempotency-Replayed: true`) and runs nothing again. Erasing again changes nothing but completes that replacement, should it have failed; so does a retry with the same `Idempotency-Key` (it completes the replacement, then replays the 200). An employee created by a hire is another record and is not changed. The body may be absent or `{}`.",
      body: emptyBody,
      bodyOptional: true,
      schema: candidateResponseSchema,
      returns: 'The erased candidate.',
    }),
    listCandidateMessages: listRoute({
      path: '/recruitment/candidates/{candidateId}/messages',
      scopes: ['recruitment:read'],
      summary: 'The conversation with a candidate',
      description: 'Messages to and from the candidate, oldest first (recordedAt, then id). Erased messages have `subject` and `body` null.',
      query: messageListQuery,
      schema: pageSchema(candidateMessageResponseSchema),
      returns: 'A page of messages.',
    }),
    getCandidateMessage: readRoute({
      path: '/recruitment/candidates/{candidateId}/messages/{messageId}',
      scopes: ['recruitment:read'],
      summary: 'One message of the conversation with a candidate',
      description: 'One recorded message (the `Location` of its POST), with its ETag; messages are immutable. An erased message has `subject` and `body` null.',
      schema: candidateMessageResponseSchema,
      returns: 'The message.',
    }),
    postCandidateMessage: createRoute({
      path: '/recruitment/candidates/{candidateId}/messages',
      scopes: ['recruitment:write'],
      summary: 'Record a message to or from a candidate',
      description: `Records one message of the conversation; messages are immutable. A candidate holds at most 60 (409 \`CANDIDATE_MESSAGE_LIMIT\`: its erasure stays one atomic change). Recording a message moves the candidate's ETag. 409 \`CANDIDATE_ERASED\` after erasure.`,
      body: postMessageBody,
      erasableSubject: ABOUT_THE_CANDIDATE,
      schema: candidateMessageResponseSchema,
      returns: 'The recorded message.',
      problems: [PROBLEMS.CANDIDATE_MESSAGE_LIMIT, PROBLEMS.CANDIDATE_ERASED],
    }),
  },
});
