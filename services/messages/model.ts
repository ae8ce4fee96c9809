import * as z from 'zod';
import { versionedFields } from '../shared/schemas/stored';

/**
 * Messages as stored (docs/areas/messages.md lists the access patterns). Items are parsed
 * with their schema on read, never cast. Keys:
 *   message     PK ORG#<org>#MSG#<id>                 SK MSG
 *   recipient   PK ORG#<org>#MSG#<id>                 SK RCPT#<employeeId>   (written at send, one per employee)
 *   GSI1 ORG#<org>#MESSAGES              / <createdAt>#<id>          every message, oldest first
 *   GSI2 ORG#<org>#MESSAGES#<state>      / <createdAt>#<id>          messages in one state
 *   GSI1 ORG#<org>#EMP#<employee>#MESSAGES / <sentAt>#<messageId>    (recipient items) one employee's messages
 * A recipient item counts only when its message is SENT or RETRACTED with the same `sendId`
 * (recipientCounts): a large send writes its recipients before the commit that makes the
 * message SENT, so the items of an attempt that never committed stay invisible and the next
 * attempt overwrites them (same keys). While a large send writes, the draft's item holds a
 * claim (`sendClaimBy`, `sendClaimUntil`; not part of the model, so any new version of the
 * message drops it) that keeps other sends of the draft from writing the same keys.
 * Attachments live on the message item (at most MAX_ATTACHMENTS document ids): attaching is a
 * new version of the draft, so an attach and a send of one draft can never both commit.
 */

export const MESSAGE_STATES = ['DRAFT', 'SENT', 'RETRACTED'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];
export const AUDIENCE_TYPES = ['EMPLOYEES', 'LOCATION', 'EVERYONE'] as const;
export type AudienceType = (typeof AUDIENCE_TYPES)[number];

export const audienceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('EMPLOYEES'), employeeIds: z.array(z.string()).readonly() }).readonly(),
  z.object({ type: z.literal('LOCATION'), locationId: z.string() }).readonly(),
  z.object({ type: z.literal('EVERYONE') }).readonly(),
]);
export type Audience = z.output<typeof audienceSchema>;

export const attachmentSchema = z.object({ documentId: z.string(), attachedAt: z.string() }).readonly();
export type Attachment = z.output<typeof attachmentSchema>;

export const messageSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    subject: z.string(),
    body: z.string(),
    audience: audienceSchema,
    state: z.enum(MESSAGE_STATES),
    attachments: z.array(attachmentSchema).readonly().default([]),
    /** The number of employees the audience resolved to at send; null while a draft never sent. */
    recipientCount: z.number().int().nullable().default(null),
    /** The send attempt that committed (its recipient items carry it); null before the send (and on messages sent before send ids). */
    sendId: z.string().nullable().default(null),
    sentAt: z.string().nullable().default(null),
    retractedAt: z.string().nullable().default(null),
    ...versionedFields,
  })
  .readonly();
export type Message = z.output<typeof messageSchema>;

/** One employee a sent message went to, and when (if) the employee read it. */
export const recipientSchema = z
  .object({
    organizationId: z.string(),
    messageId: z.string(),
    employeeId: z.string(),
    sentAt: z.string(),
    readAt: z.string().nullable().default(null),
    /** The send attempt that wrote the item; null on items written before send ids. */
    sendId: z.string().nullable().default(null),
    version: z.number().int(),
  })
  .readonly();
export type Recipient = z.output<typeof recipientSchema>;

const messagePartition = (org: string, id: string) => `ORG#${org}#MSG#${id}`;

export const messageKeys = {
  message: (org: string, id: string) => ({ PK: messagePartition(org, id), SK: 'MSG' }),
  recipient: (org: string, messageId: string, employeeId: string) => ({ PK: messagePartition(org, messageId), SK: `RCPT#${employeeId}` }),
  messagePartition,
  all: (org: string) => `ORG#${org}#MESSAGES`,
  inState: (org: string, state: MessageState) => `ORG#${org}#MESSAGES#${state}`,
  ofEmployee: (org: string, employeeId: string) => `ORG#${org}#EMP#${employeeId}#MESSAGES`,
};

export const messageToItem = (m: Message): Record<string, unknown> => ({
  ...messageKeys.message(m.organizationId, m.id),
  GSI1PK: messageKeys.all(m.organizationId),
  GSI1SK: `${m.createdAt}#${m.id}`,
  GSI2PK: messageKeys.inState(m.organizationId, m.state),
  GSI2SK: `${m.createdAt}#${m.id}`,
  itemType: 'Message',
  ...m,
});

export const recipientToItem = (r: Recipient): Record<string, unknown> => ({
  ...messageKeys.recipient(r.organizationId, r.messageId, r.employeeId),
  GSI1PK: messageKeys.ofEmployee(r.organizationId, r.employeeId),
  GSI1SK: `${r.sentAt}#${r.messageId}`,
  itemType: 'MessageRecipient',
  ...r,
});

export const messageFromItem = (item: Record<string, unknown>): Message => messageSchema.parse(item);
export const recipientFromItem = (item: Record<string, unknown>): Recipient => recipientSchema.parse(item);

/**
 * A recipient item counts only when its message was sent by the attempt that wrote it: the
 * message is SENT or RETRACTED with the item's `sendId` (both null on sends before send ids).
 * Items of an attempt that never committed, or of a draft, never count.
 */
export const recipientCounts = (message: Pick<Message, 'state' | 'sendId'>, recipient: Pick<Recipient, 'sendId'>): boolean =>
  (message.state === 'SENT' || message.state === 'RETRACTED') && recipient.sendId === message.sendId;
