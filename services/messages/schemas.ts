import * as z from 'zod';
import { documentResponse, documentResponseSchema, type Document } from '../documents/public';
import { limitParameter } from '../shared/http/query';
import { cursorParameter, freeTextCharacters, requiredName, utc } from '../shared/schemas/fields';
import { instant, uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import { MAX_LISTED_EMPLOYEES, MAX_RECIPIENTS } from './domain';
import { AUDIENCE_TYPES, MESSAGE_STATES, type Attachment, type Message, type Recipient } from './model';

/** Request and response shapes of messages, their recipients and attachments. */

export const MAX_SUBJECT = 200;
export const MAX_BODY = 10_000;

const audience = z
  .discriminatedUnion(
    'type',
    [
      z
        .object({
          type: z.literal('EMPLOYEES'),
          employeeIds: z
            .array(uuid(), { error: 'employeeIds must be an array of employee ids.' })
            .min(1, { message: 'employeeIds needs at least one employee.' })
            .max(MAX_LISTED_EMPLOYEES, { message: `employeeIds holds at most ${MAX_LISTED_EMPLOYEES} employees.` }),
        })
        .strict(),
      z.object({ type: z.literal('LOCATION'), locationId: uuid() }).strict(),
      z.object({ type: z.literal('EVERYONE') }).strict(),
    ],
    { error: 'audience.type must be EMPLOYEES (with employeeIds), LOCATION (with locationId) or EVERYONE.' },
  )
  .meta({
    description: `Who receives the message, resolved to concrete active employees when it is sent: explicit employees (1..${MAX_LISTED_EMPLOYEES}), a location's team (active employees with a PUBLISHED shift at the location starting within 14 days before or after the send), or EVERYONE (the organization's active employees). One send reaches at most ${MAX_RECIPIENTS} employees.`,
  });

const subject = requiredName('subject', MAX_SUBJECT).meta({ description: 'The subject line (message content: never audited or logged).', examples: ['Holiday opening hours'] });
const body = z
  .string({ error: 'body is required: a non-empty string.' })
  .trim()
  .min(1, { message: 'body must not be empty.' })
  .max(MAX_BODY, { message: `body is at most ${MAX_BODY} characters.` })
  .check(freeTextCharacters('body'))
  .meta({ description: 'The text of the message, plain text (message content: never audited or logged).', examples: ['The depot is closed on 24 December.'] });

export const createMessageBody = z.object({ subject, body, audience }).strict();

export const updateMessageBody = z
  .object({ subject: subject.optional(), body: body.optional(), audience: audience.optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'Send at least one of subject, body, audience.' });

export const messageListQuery = z
  .object({
    state: z.enum(MESSAGE_STATES, { error: `state must be one of ${MESSAGE_STATES.join(', ')}.` }).meta({ description: 'Only messages in this state.' }).optional(),
    employeeId: uuid().meta({ description: "Only messages sent to this employee, in send order (drafts have no recipients). With `state`, a page may hold fewer than `limit` items; follow nextCursor." }).optional(),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict();

export const pageQuery = z.object({ limit: limitParameter(), cursor: cursorParameter() }).strict();

/** Commands without input accept an absent body or `{}`. */
export const emptyBody = z.object({}).strict();

export const attachBody = z.object({ documentId: uuid().meta({ description: 'An AVAILABLE document of this organization that is not archived.' }) }).strict();

export const markReadBody = z
  .object({ readAt: instant().meta({ description: 'When the employee read the message, as the reporting system saw it; default: now. Not before the send, not in the future.' }).optional() })
  .strict();

const audienceResponse = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('EMPLOYEES'), employeeIds: z.array(z.uuid()) }),
    z.object({ type: z.literal('LOCATION'), locationId: z.uuid() }),
    z.object({ type: z.literal('EVERYONE') }),
  ])
  .meta({ description: `EMPLOYEES, LOCATION or EVERYONE (${AUDIENCE_TYPES.join(', ')}).` });

export const messageResponseSchema = z
  .object({
    id: z.uuid(),
    subject: z.string(),
    body: z.string(),
    audience: audienceResponse,
    state: z.enum(MESSAGE_STATES).meta({ description: 'DRAFT (changeable) -> SENT (immutable) -> RETRACTED (kept; a draft can be retracted too).' }),
    attachments: z.array(z.object({ documentId: z.uuid(), attachedAt: utc() })),
    recipientCount: z.number().int().nullable().meta({ description: 'The employees the audience resolved to at send; null for a message never sent.' }),
    sentAt: utc().nullable(),
    retractedAt: utc().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Message' });

export const recipientResponseSchema = z
  .object({
    messageId: z.uuid(),
    employeeId: z.uuid(),
    sentAt: utc(),
    read: z.boolean(),
    readAt: utc().nullable(),
  })
  .meta({ id: 'MessageRecipient', description: 'One employee a sent message went to, and whether (when) the employee read it.' });

/** What every route answering an attachment says of it: appended to those routes' descriptions (area.ts). */
export const DOCUMENT_VALUES_NOTE = 'The document itself (`document`: name, size, checksum, owner, tags, state) is present only when the key holds documents:read; `documentId` and `attachedAt` always are.';

export const attachmentResponseSchema = z
  .object({
    messageId: z.uuid(),
    documentId: z.uuid(),
    attachedAt: utc(),
    document: documentResponseSchema
      .nullable()
      .optional()
      .meta({ description: 'The document, as GET /documents/{documentId} answers it. Present only when the key holds documents:read; absent otherwise. null only if it cannot be read.' }),
  })
  .meta({ id: 'MessageAttachment', description: 'A document attached to a message: a reference, not a copy.' });

export function messageResponse(m: Message): z.infer<typeof messageResponseSchema> {
  return responseOf(messageResponseSchema, m, {
    audience: m.audience.type === 'EMPLOYEES' ? { type: 'EMPLOYEES', employeeIds: [...m.audience.employeeIds] } : m.audience.type === 'LOCATION' ? { type: 'LOCATION', locationId: m.audience.locationId } : { type: 'EVERYONE' },
    attachments: m.attachments.map((a) => ({ documentId: a.documentId, attachedAt: a.attachedAt })),
  });
}

export const recipientResponse = (r: Recipient): z.infer<typeof recipientResponseSchema> => responseOf(recipientResponseSchema, r, { read: r.readAt !== null });

/**
 * The response body of an attachment. `documents`: the attached documents by id when the key
 * may read documents (documents:read), and then `document` is the document (null if it cannot
 * be read); undefined otherwise, and the member is absent.
 */
export const attachmentResponse = (messageId: string, a: Attachment, documents: ReadonlyMap<string, Document> | undefined): z.infer<typeof attachmentResponseSchema> => ({
  messageId,
  documentId: a.documentId,
  attachedAt: a.attachedAt,
  ...(documents ? { document: documents.has(a.documentId) ? documentResponse(documents.get(a.documentId)!) : null } : {}),
});
