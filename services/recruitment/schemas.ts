import * as z from 'zod';
import { limitParameter } from '../shared/http/query';
import { cursorParameter, freeTextCharacters, nothingToChange, nullableName, nullablePhone, requiredName, searchParameter, sendsAField, utc } from '../shared/schemas/fields';
import { responseOf } from '../shared/schemas/response';
import { MESSAGE_CHANNELS, MESSAGE_DIRECTIONS, STAGES, type Candidate, type CandidateMessage } from './model';

/**
 * Request and response shapes of candidates and their messages (docs/areas/recruitment.md).
 * Personal values (names, e-mail, phone, source, message subject and body) are served to
 * recruitment:read only and are null once erased (`erased: true`).
 */

const email = (field: string) =>
  z
    .string({ error: `${field} is required: an e-mail address.` })
    .trim()
    .max(254, { message: `${field} is at most 254 characters.` })
    .pipe(z.email({ message: `${field} must be an e-mail address such as name@example.com.` }));

const candidateFields = {
  givenName: requiredName('givenName'),
  familyName: requiredName('familyName'),
  email: email('email').meta({ description: "The candidate's e-mail address; the hire makes it the employee's work address (and default userName).", examples: ['jonas.berg@example.com'] }),
  phone: nullablePhone('phone'),
  position: requiredName('position').meta({ description: 'The position applied for.' }),
  source: nullableName('source', 200).meta({ description: 'Where the application came from (job board, referral...).' }),
};

export const createCandidateBody = z.object(candidateFields).strict();

export const updateCandidateBody = z
  .object({
    givenName: candidateFields.givenName.optional(),
    familyName: candidateFields.familyName.optional(),
    email: candidateFields.email.optional(),
    phone: candidateFields.phone,
    position: candidateFields.position.optional(),
    source: candidateFields.source,
  })
  .strict()
  .refine(sendsAField, nothingToChange());

const MOVE_TARGETS = ['SCREENING', 'INTERVIEW', 'OFFER', 'REJECTED', 'WITHDRAWN'] as const;

export const moveCandidateBody = z
  .object({
    stage: z.enum(MOVE_TARGETS, { error: `stage must be one of ${MOVE_TARGETS.join(', ')} (HIRED: POST .../hire).` }).meta({ description: 'The stage to move to; the current stage changes nothing.' }),
  })
  .strict();

const employeeText = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string.` })
    .trim()
    .min(1, { message: `${field} must not be empty.` })
    .max(max, { message: `${field} is at most ${max} characters.` })
    .optional();

export const hireCandidateBody = z
  .object({
    userName: employeeText('userName', 256).meta({ description: "The employee's login name, unique in the organization (case-insensitive); default: the candidate's e-mail address." }),
    externalId: employeeText('externalId', 256).meta({ description: "The employee's id in the client's system; unique in the organization (case-exact)." }),
    employeeNumber: employeeText('employeeNumber', 100),
    department: employeeText('department', 200),
    title: employeeText('title', 200),
  })
  .strict();

export const postMessageBody = z
  .object({
    direction: z.enum(MESSAGE_DIRECTIONS, { error: 'direction must be INBOUND (from the candidate) or OUTBOUND (to the candidate).' }),
    channel: z.enum(MESSAGE_CHANNELS, { error: `channel must be one of ${MESSAGE_CHANNELS.join(', ')}.` }),
    subject: nullableName('subject', 300),
    body: z
      .string({ error: 'body is required: the text of the message.' })
      .trim()
      .min(1, { message: 'body must not be empty.' })
      .max(10_000, { message: 'body is at most 10000 characters.' })
      .check(freeTextCharacters('body')),
  })
  .strict();

export const candidateListQuery = z
  .object({
    stage: z.enum(STAGES, { error: `stage must be one of ${STAGES.join(', ')}.` }).optional().meta({ description: 'Only candidates in this stage.' }),
    q: searchParameter(),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict()
  .superRefine((query, ctx) => {
    if (query.q !== undefined && query.stage !== undefined) ctx.addIssue({ code: 'custom', path: ['stage'], message: 'stage cannot be combined with q: search, or list one stage.' });
  });

export const messageListQuery = z.object({ limit: limitParameter(), cursor: cursorParameter() }).strict();

/** POST .../erase takes no input; `{}` is accepted for clients that always send a body. */
export const emptyBody = z.object({}).strict();

// ---- responses -----------------------------------------------------------------------------

const personal = (what: string) => z.string().nullable().meta({ description: `${what}; null once erased. Always present.` });

export const candidateResponseSchema = z
  .object({
    id: z.uuid(),
    givenName: personal('Given name'),
    familyName: personal('Family name'),
    email: personal('E-mail address'),
    phone: personal('Phone number; null when empty'),
    position: z.string(),
    source: personal('Source of the application; null when empty'),
    stage: z.enum(STAGES),
    stageChangedAt: utc(),
    employeeId: z.uuid().nullable().meta({ description: 'The employee the hire created; null before.' }),
    hiredAt: utc().nullable(),
    erased: z.boolean().meta({ description: 'true: the personal data was erased on request; the record and its audit trail stay.' }),
    erasedAt: utc().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Candidate' });

export const candidateMessageResponseSchema = z
  .object({
    id: z.uuid(),
    candidateId: z.uuid(),
    direction: z.enum(MESSAGE_DIRECTIONS).meta({ description: 'INBOUND: from the candidate; OUTBOUND: to the candidate.' }),
    channel: z.enum(MESSAGE_CHANNELS),
    subject: personal('Subject; null when empty'),
    body: personal('Text'),
    erased: z.boolean(),
    recordedAt: utc(),
  })
  .meta({ id: 'CandidateMessage' });

export const candidateResponse = (c: Candidate): z.infer<typeof candidateResponseSchema> => responseOf(candidateResponseSchema, c);

export const candidateMessageResponse = (m: CandidateMessage): z.infer<typeof candidateMessageResponseSchema> => responseOf(candidateMessageResponseSchema, m);
