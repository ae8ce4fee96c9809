import { auditEntry, type AuditEntry, type AuditInput } from '../audit/model';
import type { Actor } from '../shared/domain/actor';
import { assertEtag, assertSentEtag, versionedEtag } from '../shared/domain/etag';
import { newRecord, revised } from '../shared/domain/lifecycle';
import { AppError, NotFoundError, ValidationError, type Problem } from '../shared/errors';
import { recipientCounts, type Attachment, type Audience, type Message, type Recipient } from './model';
import { PROBLEMS } from './problems';

export type { Attachment, Audience, Message, MessageState, Recipient } from './model';

/**
 * Messages from the organization to its employees: a DRAFT (subject, body, audience,
 * attachments) that may change until it is sent; sending resolves the audience to concrete
 * employees (one recipient item each, visible only once the SENT message commits); a sent
 * message is immutable; retracting keeps it as RETRACTED. Subject and body are message content:
 * they never reach the audit trail or the logs (only their attribute names do).
 */

/**
 * The most employees one send reaches. A send of more than MAX_TRANSACTION_RECIPIENTS writes its
 * recipient items ahead of the commit, and all of them share the message's partition, which
 * DynamoDB writes at most 1,000 WCU a second (one WCU per item < 1 KB): 1,000 recipients are
 * about one second of that partition's capacity, plus about 0.5 s of audience reads, claim and
 * commit, which leaves the 10 s function timeout room for throttling backoff and a rerun.
 */
export const MAX_RECIPIENTS = 1_000;
/**
 * Sends up to this many recipients stay ONE transaction (the message, one item per recipient,
 * the audit entry and the idempotency record; a transaction holds at most 100 items, five stay
 * spare): no claim and no batch writes. test/unit/messages-rules.test.ts checks the arithmetic.
 */
export const MAX_TRANSACTION_RECIPIENTS = 95;
/**
 * The most employees an EMPLOYEES audience lists: 500 ids are about 20 KB of JSON, which with
 * a 10,000-character body (at most 30 KB of UTF-8) stays within the 64 KB request body.
 */
export const MAX_LISTED_EMPLOYEES = 500;
/**
 * How long a large send's claim keeps other sends of the draft from writing its recipient
 * keys: longer than the function's 10 s timeout, so that a claim is only taken over from a
 * send that can no longer write. A send that died leaves the draft claimed this long (503).
 */
export const SEND_CLAIM_MS = 30_000;
/** The most documents one message carries. */
export const MAX_ATTACHMENTS = 10;
/**
 * A location's team: the active employees with a PUBLISHED shift at the location that starts
 * at most TEAM_DAYS days before or after the send.
 */
export const TEAM_DAYS = 14;
/** A reported read may lie this far in the future (clock skew of the reporting system). */
export const READ_SKEW_MS = 5 * 60_000;

/** What a document is to an attachment: its state and whether it is archived, when it exists in this organization. */
export interface AttachableDocument {
  readonly id: string;
  readonly state: string;
  readonly archived: boolean;
}

export interface MessageChange {
  readonly before?: Message;
  readonly after: Message;
  readonly audit: AuditEntry;
  /** A document attached by this change: the transaction checks it is still AVAILABLE and not archived. */
  readonly attachedDocumentId?: string;
}

/** A send attempt's hold on a draft: by whom (the request), when, until when. */
export interface SendClaim {
  readonly owner: string;
  readonly at: string;
  readonly until: string;
}

export interface SendChange {
  readonly before: Message;
  readonly after: Message;
  readonly recipients: readonly Recipient[];
  /**
   * True: the recipients were written ahead under `claim` (writeRecipients), and the SENT
   * message commits only while the claim holds. False: they go into the transaction, which
   * commits only while no other send holds a claim.
   */
  readonly written: boolean;
  readonly claim: SendClaim;
  readonly audit: AuditEntry;
}

export interface ReadChange {
  /** The message read as SENT: the transaction checks it still is. */
  readonly message: Message;
  readonly before: Recipient;
  readonly after: Recipient;
  readonly audit: AuditEntry;
}

/** The messages store port (store.ts): reads, and `save*` that stage a change in the unit of work. */
export interface MessagesStore {
  getMessage(organizationId: string, id: string): Promise<Message | undefined>;
  getRecipient(organizationId: string, messageId: string, employeeId: string): Promise<Recipient | undefined>;
  /** The ids among these that name no employee of the organization. */
  missingEmployees(organizationId: string, ids: readonly string[]): Promise<string[]>;
  /** The location of this organization, or undefined; `archived` as stored. */
  getLocation(organizationId: string, id: string): Promise<{ readonly archived: boolean } | undefined>;
  getDocument(organizationId: string, id: string): Promise<AttachableDocument | undefined>;
  /** Those of these employees that exist in the organization and are active (not deactivated, not SCIM-deleted). */
  activeEmployees(organizationId: string, ids: readonly string[]): Promise<string[]>;
  /** Up to `max` active employees of the organization, creation order. */
  everyActiveEmployee(organizationId: string, max: number): Promise<string[]>;
  /** Employees of PUBLISHED shifts at the location that start in [from, to). */
  scheduledAt(organizationId: string, locationId: string, from: string, to: string): Promise<string[]>;
  /**
   * Claims the draft for this send attempt (not a new version): holds while the message is the
   * DRAFT read and no other send holds an unexpired claim; otherwise ConcurrentChangeError.
   */
  claimSend(message: Message, claim: SendClaim): Promise<void>;
  /** Writes recipient items now, outside the unit of work (batches); they count once the send commits. */
  writeRecipients(recipients: readonly Recipient[]): Promise<void>;
  saveMessage(change: MessageChange): void;
  saveSend(change: SendChange): void;
  saveRead(change: ReadChange): void;
}

export interface MessagePorts {
  readonly store: MessagesStore;
  readonly now: () => Date;
  readonly newId: () => string;
}

export const messageEtag = versionedEtag<Message>('message');

const audit = (ports: MessagePorts, actor: Actor, occurredAt: string, input: Omit<AuditInput, 'id' | 'actor' | 'occurredAt'>): AuditEntry =>
  auditEntry({ id: ports.newId(), actor, occurredAt, ...input });

export interface MessageInput {
  readonly subject: string;
  readonly body: string;
  readonly audience: Audience;
}

export type MessagePatch = Partial<MessageInput>;

/** 409 MESSAGE_SENT / MESSAGE_RETRACTED unless the message is a DRAFT. */
export function assertDraft(m: Message, doing: string): void {
  if (m.state === 'SENT') throw new AppError(PROBLEMS.MESSAGE_SENT, `Message ${m.id} was sent at ${m.sentAt}: a sent message cannot be ${doing}.`);
  if (m.state === 'RETRACTED') throw new AppError(PROBLEMS.MESSAGE_RETRACTED, `Message ${m.id} was retracted at ${m.retractedAt}: it cannot be ${doing}.`);
}

const uniqueIds = (ids: readonly string[]): string[] => [...new Set(ids)];

/** The audience as stored: explicit employee ids without repeats. */
export const normalizeAudience = (a: Audience): Audience => (a.type === 'EMPLOYEES' ? { type: 'EMPLOYEES', employeeIds: uniqueIds(a.employeeIds) } : a);

/** The audience's references exist in this organization, a location is not archived (422 at the id sent). */
async function assertAudience(ports: MessagePorts, org: string, audience: Audience, sent: Audience): Promise<void> {
  if (audience.type === 'EMPLOYEES' && sent.type === 'EMPLOYEES') {
    const missing = await ports.store.missingEmployees(org, audience.employeeIds);
    if (missing.length > 0) {
      throw new ValidationError(missing.map((id) => ({ pointer: `/audience/employeeIds/${sent.employeeIds.indexOf(id)}`, detail: `Employee ${id} does not exist in this organization.` })));
    }
  }
  if (audience.type === 'LOCATION') {
    const location = await ports.store.getLocation(org, audience.locationId);
    if (!location) throw new ValidationError([{ pointer: '/audience/locationId', detail: `Location ${audience.locationId} does not exist in this organization.` }]);
    if (location.archived) {
      throw new ValidationError([{ pointer: '/audience/locationId', detail: `Location ${audience.locationId} is archived: a message cannot be addressed to an archived location's team; restore it first (PATCH archived: false).` }]);
    }
  }
}

/** Ids only: the audience's kind and its location, never who (the recipient list has that). */
const audienceFacts = (a: Audience) => ({ audienceType: a.type, ...(a.type === 'EMPLOYEES' ? { audienceSize: a.employeeIds.length } : {}) });
const audienceReferences = (a: Audience): Record<string, string> | undefined => (a.type === 'LOCATION' ? { locationId: a.locationId } : undefined);

/**
 * Creates a DRAFT (POST /messages).
 * 1. Explicit employees and a location audience must exist in this organization (422 at the id).
 * 2. Stage version 1; the audit entry names the attributes given, never the subject or body.
 */
export async function createMessage(ports: MessagePorts, actor: Actor, input: MessageInput): Promise<Message> {
  const org = actor.principal.organizationId;
  const audience = normalizeAudience(input.audience);
  await assertAudience(ports, org, audience, input.audience);
  const now = ports.now().toISOString();
  const message: Message = {
    ...newRecord(ports.newId(), org, now),
    subject: input.subject,
    body: input.body,
    audience,
    state: 'DRAFT',
    attachments: [],
    recipientCount: null,
    sendId: null,
    sentAt: null,
    retractedAt: null,
  };
  ports.store.saveMessage({
    after: message,
    audit: audit(ports, actor, now, {
      action: 'message.created',
      entity: { type: 'message', id: message.id },
      ...(audienceReferences(audience) ? { references: audienceReferences(audience) } : {}),
      changedAttributes: ['audience', 'body', 'subject'],
      after: { state: 'DRAFT', ...audienceFacts(audience) },
    }),
  });
  return message;
}

async function draftFor(ports: MessagePorts, org: string, id: string): Promise<Message> {
  const message = await ports.store.getMessage(org, id);
  if (!message) throw new NotFoundError(`Message ${id}`);
  return message;
}

const sameAudience = (a: Audience, b: Audience): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Changes a DRAFT (PATCH /messages/{id}): subject, body, audience.
 * 1. Read (404); If-Match (412); a sent or retracted message is 409.
 * 2. A new audience's references exist (422).  3. Nothing changed: as it is.
 * 4. Stage the next version (a send that read the old one runs again and sees this one).
 */
export async function updateMessage(ports: MessagePorts, actor: Actor, id: string, ifMatch: string, patch: MessagePatch): Promise<Message> {
  const org = actor.principal.organizationId;
  const current = await draftFor(ports, org, id);
  assertEtag(ifMatch, messageEtag(current));
  assertDraft(current, 'changed');
  const audience = patch.audience ? normalizeAudience(patch.audience) : current.audience;
  if (patch.audience && !sameAudience(audience, current.audience)) await assertAudience(ports, org, audience, patch.audience);
  const changed: string[] = [];
  if (patch.subject !== undefined && patch.subject !== current.subject) changed.push('subject');
  if (patch.body !== undefined && patch.body !== current.body) changed.push('body');
  if (!sameAudience(audience, current.audience)) changed.push('audience');
  if (changed.length === 0) return current;
  const now = ports.now().toISOString();
  const next: Message = revised(current, now, { subject: patch.subject ?? current.subject, body: patch.body ?? current.body, audience });
  ports.store.saveMessage({
    before: current,
    after: next,
    audit: audit(ports, actor, now, {
      action: 'message.updated',
      entity: { type: 'message', id },
      ...(audienceReferences(audience) ? { references: audienceReferences(audience) } : {}),
      changedAttributes: changed.sort(),
      ...(changed.includes('audience') ? { after: audienceFacts(audience) } : {}),
    }),
  });
  return next;
}

/** The window of shifts that makes a location's team at `at`: [at - TEAM_DAYS, at + TEAM_DAYS). */
export function teamWindow(at: Date): { from: string; to: string } {
  const day = 86_400_000;
  return { from: new Date(at.getTime() - TEAM_DAYS * day).toISOString(), to: new Date(at.getTime() + TEAM_DAYS * day).toISOString() };
}

/**
 * The employees an audience means at `at`, sorted: explicit employees that are still active;
 * a location's team (active employees with a PUBLISHED shift there starting within TEAM_DAYS
 * of `at`); everyone (the organization's active employees). Reads at most MAX_RECIPIENTS + 1
 * of everyone: one more than may be sent is enough to refuse.
 */
export async function resolveAudience(store: MessagesStore, org: string, audience: Audience, at: Date): Promise<string[]> {
  if (audience.type === 'EVERYONE') return [...(await store.everyActiveEmployee(org, MAX_RECIPIENTS + 1))].sort();
  const candidates =
    audience.type === 'EMPLOYEES' ? audience.employeeIds : await store.scheduledAt(org, audience.locationId, teamWindow(at).from, teamWindow(at).to);
  return [...(await store.activeEmployees(org, uniqueIds(candidates)))].sort();
}

/** 422 when a send would reach nobody or more than MAX_RECIPIENTS. */
export function assertRecipientCount(messageId: string, count: number): void {
  if (count === 0) throw new AppError(PROBLEMS.MESSAGE_NO_RECIPIENTS, `The audience of message ${messageId} resolves to no active employee now; change the audience.`);
  if (count > MAX_RECIPIENTS) {
    throw new AppError(PROBLEMS.MESSAGE_TOO_MANY_RECIPIENTS, `The audience of message ${messageId} resolves to more than ${MAX_RECIPIENTS} employees; one message reaches at most ${MAX_RECIPIENTS}.`, {
      extensions: { maxRecipients: MAX_RECIPIENTS },
    });
  }
}

/**
 * Sends a DRAFT (POST /messages/{id}/send).
 * 1. Read (404); If-Match (412); sent or retracted 409.
 * 2. Resolve the audience to concrete active employees now (422 for none or too many).
 * 3. A new send id for this attempt; every recipient item carries it, and an item counts only
 *    when the message is SENT (or later RETRACTED) with that id (recipientCounts).
 * 4. Up to MAX_TRANSACTION_RECIPIENTS: stage the SENT message at the version read and the
 *    recipient items in one transaction. More: claim the draft, write the recipient items in
 *    batches, then stage the SENT message at the version read, on condition that the claim
 *    still holds. Either way the message, its audit entry and the idempotency record commit
 *    in one transaction: an attach, a change or another send of the same draft that commits
 *    first makes this one run again (and answer 409 or 412 then); recipient items written
 *    by an attempt that lost are removed again and its claim ends (the store's abort
 *    effects), and after a crash they stay invisible until a later attempt overwrites them.
 */
export async function sendMessage(ports: MessagePorts, actor: Actor, id: string, ifMatch: string): Promise<Message> {
  const org = actor.principal.organizationId;
  const current = await draftFor(ports, org, id);
  assertEtag(ifMatch, messageEtag(current));
  assertDraft(current, 'sent again');
  const at = ports.now();
  const employeeIds = await resolveAudience(ports.store, org, current.audience, at);
  assertRecipientCount(id, employeeIds.length);
  const now = at.toISOString();
  const sendId = ports.newId();
  const next: Message = revised(current, now, { state: 'SENT', sendId, recipientCount: employeeIds.length, sentAt: now });
  const recipients: Recipient[] = employeeIds.map((employeeId) => ({ organizationId: org, messageId: id, employeeId, sentAt: now, readAt: null, sendId, version: 1 }));
  const written = recipients.length > MAX_TRANSACTION_RECIPIENTS;
  const claim: SendClaim = { owner: actor.requestId, at: now, until: new Date(at.getTime() + SEND_CLAIM_MS).toISOString() };
  if (written) {
    await ports.store.claimSend(current, claim);
    await ports.store.writeRecipients(recipients);
  }
  ports.store.saveSend({
    before: current,
    after: next,
    recipients,
    written,
    claim,
    audit: audit(ports, actor, now, {
      action: 'message.sent',
      entity: { type: 'message', id },
      ...(audienceReferences(current.audience) ? { references: audienceReferences(current.audience) } : {}),
      before: { state: 'DRAFT' },
      after: { state: 'SENT', audienceType: current.audience.type, recipientCount: employeeIds.length, attachmentCount: current.attachments.length },
    }),
  });
  return next;
}

/**
 * Retracts a message (POST /messages/{id}/retract): a SENT message is withdrawn (kept, with
 * its recipients and their read state), a DRAFT is discarded without being sent. Both stay
 * readable as RETRACTED; retracting again is 409 MESSAGE_RETRACTED.
 */
export async function retractMessage(ports: MessagePorts, actor: Actor, id: string, ifMatch: string): Promise<Message> {
  const org = actor.principal.organizationId;
  const current = await draftFor(ports, org, id);
  assertEtag(ifMatch, messageEtag(current));
  if (current.state === 'RETRACTED') throw new AppError(PROBLEMS.MESSAGE_RETRACTED, `Message ${id} was already retracted at ${current.retractedAt}.`);
  const now = ports.now().toISOString();
  const next: Message = revised(current, now, { state: 'RETRACTED', retractedAt: now });
  ports.store.saveMessage({
    before: current,
    after: next,
    audit: audit(ports, actor, now, { action: 'message.retracted', entity: { type: 'message', id }, before: { state: current.state }, after: { state: 'RETRACTED' } }),
  });
  return next;
}

/**
 * Attaches an AVAILABLE document to a DRAFT (POST /messages/{id}/attachments).
 * 1. Read (404); If-Match, when sent, must be the message's ETag (412); sent or retracted 409.  2. The document must exist in this organization
 *    (422 at /documentId).  3. Already attached: as it is (`added: false`; also once the
 *    document is archived).  4. A new attachment needs a document that is not archived (422 at
 *    /documentId) and AVAILABLE (409 DOCUMENT_NOT_AVAILABLE, the documents area's code).
 * 5. At most MAX_ATTACHMENTS (422).
 * 6. Stage the next version of the draft with a check that the document is still AVAILABLE and
 *    not archived, in one transaction: a send that commits first makes this run again and answer 409.
 */
export async function attachDocument(
  ports: MessagePorts,
  actor: Actor,
  id: string,
  documentId: string,
  notAvailable: Problem,
  ifMatch?: string,
): Promise<{ message: Message; attachment: Attachment; added: boolean }> {
  const org = actor.principal.organizationId;
  const current = await draftFor(ports, org, id);
  assertSentEtag(ifMatch, messageEtag(current));
  assertDraft(current, 'given attachments');
  const document = await ports.store.getDocument(org, documentId);
  if (!document) throw new ValidationError([{ pointer: '/documentId', detail: `Document ${documentId} does not exist in this organization.` }]);
  const existing = current.attachments.find((a) => a.documentId === documentId);
  if (existing) return { message: current, attachment: existing, added: false };
  if (document.archived) throw new ValidationError([{ pointer: '/documentId', detail: `Document ${documentId} is archived: an archived document cannot be attached.` }]);
  if (document.state !== 'AVAILABLE') throw new AppError(notAvailable, `Document ${documentId} is ${document.state}: only AVAILABLE documents can be attached.`);
  if (current.attachments.length >= MAX_ATTACHMENTS) throw new ValidationError([{ pointer: '/documentId', detail: `A message carries at most ${MAX_ATTACHMENTS} attachments.` }]);
  const now = ports.now().toISOString();
  const attachment: Attachment = { documentId, attachedAt: now };
  const next: Message = revised(current, now, { attachments: [...current.attachments, attachment] });
  ports.store.saveMessage({
    before: current,
    after: next,
    attachedDocumentId: documentId,
    audit: audit(ports, actor, now, { action: 'message.attachment_added', entity: { type: 'message', id }, references: { documentId }, after: { attachmentCount: next.attachments.length } }),
  });
  return { message: next, attachment, added: true };
}

/**
 * Removes an attachment from a DRAFT (DELETE /messages/{id}/attachments/{documentId}); the
 * document stays. 404 when the message or the attachment is not there (with or without
 * If-Match: RFC 9110 13.2.1 evaluates preconditions only where the request could otherwise
 * succeed); If-Match, when sent, must be the message's ETag (412); sent or retracted 409.
 */
export async function detachDocument(ports: MessagePorts, actor: Actor, id: string, documentId: string, ifMatch?: string): Promise<Message> {
  const org = actor.principal.organizationId;
  const current = await draftFor(ports, org, id);
  if (!current.attachments.some((a) => a.documentId === documentId)) throw new NotFoundError(`Attachment ${documentId} of message ${id}`);
  assertSentEtag(ifMatch, messageEtag(current));
  assertDraft(current, 'changed');
  const now = ports.now().toISOString();
  const next: Message = revised(current, now, { attachments: current.attachments.filter((a) => a.documentId !== documentId) });
  ports.store.saveMessage({
    before: current,
    after: next,
    audit: audit(ports, actor, now, { action: 'message.attachment_removed', entity: { type: 'message', id }, references: { documentId }, after: { attachmentCount: next.attachments.length } }),
  });
  return next;
}

/** When a reported read happened: `readAt` if given (not before the send, not in the future), else now. */
export function readInstant(sentAt: string, now: Date, readAt?: string): string {
  if (readAt === undefined) return now.toISOString();
  if (Date.parse(readAt) > now.getTime() + READ_SKEW_MS) throw new ValidationError([{ pointer: '/readAt', detail: 'readAt must not lie in the future.' }]);
  if (Date.parse(readAt) < Date.parse(sentAt)) throw new ValidationError([{ pointer: '/readAt', detail: `readAt must not be before the message was sent (${sentAt}).` }]);
  return new Date(Date.parse(readAt)).toISOString();
}

/**
 * Records that a recipient read a SENT message (POST /messages/{id}/recipients/{employeeId}/read),
 * as an integration (the employee app's backend) reports it. Idempotent: the first report
 * wins, later ones answer the recipient as it is. 404 for a message or recipient that is not
 * there (a draft has no recipients); a retracted message takes no new reads (409).
 */
export async function markRead(ports: MessagePorts, actor: Actor, id: string, employeeId: string, readAt?: string): Promise<Recipient> {
  const org = actor.principal.organizationId;
  const message = await draftFor(ports, org, id);
  const recipient = await ports.store.getRecipient(org, id, employeeId);
  if (!recipient || !recipientCounts(message, recipient)) throw new NotFoundError(`Employee ${employeeId} among the recipients of message ${id}`);
  if (recipient.readAt !== null) return recipient;
  if (message.state === 'RETRACTED') throw new AppError(PROBLEMS.MESSAGE_RETRACTED, `Message ${id} was retracted at ${message.retractedAt}: it takes no new reads.`);
  const at = ports.now();
  const next: Recipient = { ...recipient, readAt: readInstant(recipient.sentAt, at, readAt), version: recipient.version + 1 };
  ports.store.saveRead({
    message,
    before: recipient,
    after: next,
    audit: audit(ports, actor, at.toISOString(), { action: 'message.read', entity: { type: 'message', id }, references: { employeeId } }),
  });
  return next;
}
