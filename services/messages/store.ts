import { DOCUMENT_LABEL, getDocument, linkableDocumentCheck } from '../documents/public';
import { getEmployees, listEmployeesPage } from '../employees/public';
import { locationState } from '../locations/public';
import { employeesWithPublishedShifts } from '../planning/public';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { conditionFailed, conditionalUpdate, type Db } from '../shared/ddb/client';
import { movedOn, versionedPut } from '../shared/ddb/entity';
import { getByIds, indexPage, type Page, type PagePosition } from '../shared/ddb/paging';
import { collect, getOne } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import { BATCH_WRITE_ITEMS, batchPut } from '../shared/ddb/write';
import { ConcurrentChangeError } from '../shared/domain/conflict';
import { eachLimited } from '../shared/domain/limited';
import type { MessageChange, MessagesStore, ReadChange, SendChange, SendClaim } from './domain';
import { messageFromItem, messageKeys, messageToItem, recipientCounts, recipientFromItem, recipientToItem, type Message, type MessageState, type Recipient } from './model';

/**
 * The DynamoDB adapter of messages and their recipients (keys and item shapes: model.ts).
 * Every write is one versioned put of the message (attachments live on it), plus, at send,
 * one put per recipient (in the transaction, or ahead of it in batches for a large send under
 * the draft's claim); an attached document is checked AVAILABLE and not archived in the same transaction.
 * Recipient reads return only the items that count (model.ts recipientCounts).
 */

/** Transaction item labels: roles, never values (they reach the logs). */
const MESSAGE_LABEL = 'message';
const RECIPIENT_LABEL = 'message_recipient';

export const getMessage = (db: Db, org: string, id: string): Promise<Message | undefined> => getOne(db, messageKeys.message(org, id), messageFromItem);

export const getRecipient = (db: Db, org: string, messageId: string, employeeId: string): Promise<Recipient | undefined> => getOne(db, messageKeys.recipient(org, messageId, employeeId), recipientFromItem);

export const getMessages = (db: Db, org: string, ids: readonly string[]): Promise<Map<string, Message>> => getByIds(db, ids, (id) => messageKeys.message(org, id), messageFromItem);

/** One page of messages, oldest first: all of them (GSI1) or those in one state (GSI2). */
export async function listMessages(db: Db, org: string, q: { state?: MessageState; limit: number; after?: PagePosition }): Promise<Page<Message>> {
  const page = q.state ? await indexPage(db, 'GSI2', messageKeys.inState(org, q.state), q.limit, q.after) : await indexPage(db, 'GSI1', messageKeys.all(org), q.limit, q.after);
  return { items: page.items.map(messageFromItem), ...(page.next ? { next: page.next } : {}) };
}

export interface Received {
  readonly recipient: Recipient;
  readonly message: Message;
}

/**
 * One page of an employee's recipient items, in send order (GSI1), with their messages (one
 * BatchGetItem): items that do not count (a send that never committed) are dropped, so a page
 * may hold fewer than `limit`; `next` follows the items read, so no item is skipped.
 */
export async function listReceived(db: Db, org: string, employeeId: string, limit: number, after?: PagePosition): Promise<Page<Received>> {
  const page = await indexPage(db, 'GSI1', messageKeys.ofEmployee(org, employeeId), limit, after);
  const recipients = page.items.map(recipientFromItem);
  const messages = await getMessages(db, org, recipients.map((r) => r.messageId));
  const items = recipients.flatMap((recipient) => {
    const message = messages.get(recipient.messageId);
    return message && recipientCounts(message, recipient) ? [{ recipient, message }] : [];
  });
  return { items, ...(page.next ? { next: page.next } : {}) };
}

/**
 * One page of a sent message's recipients by employee id (consistent Query of the message's
 * partition, filtered to the items of the send that committed; the Query reads on past items
 * that do not count until the page is full). A draft has none.
 */
export async function listRecipients(db: Db, message: Message, limit: number, afterEmployeeId?: string): Promise<{ items: Recipient[]; after?: string }> {
  if (message.state === 'DRAFT') return { items: [] };
  const first = afterEmployeeId ? `${messageKeys.recipient(message.organizationId, message.id, afterEmployeeId).SK}!` : 'RCPT#';
  const { items, exhausted } = await collect(
    db,
    {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
      ...(message.sendId !== null ? { FilterExpression: 'sendId = :sendId' } : {}),
      ExpressionAttributeValues: { ':pk': messageKeys.messagePartition(message.organizationId, message.id), ':first': first, ':last': 'RCPT$', ...(message.sendId !== null ? { ':sendId': message.sendId } : {}) },
      ConsistentRead: true,
    },
    limit,
  );
  const recipients = items.map(recipientFromItem).filter((r) => recipientCounts(message, r));
  return { items: recipients, ...(!exhausted && recipients.length > 0 ? { after: recipients.at(-1)!.employeeId } : {}) };
}

/** A message change; an attached document must still be AVAILABLE and not archived in this organization when it commits. */
export function saveMessage(unit: UnitOfWork, change: MessageChange): void {
  const { after } = change;
  const checks: TxItem[] = change.attachedDocumentId ? [linkableDocumentCheck(after.organizationId, change.attachedDocumentId)] : [];
  unit.stage({ items: [versionedPut(MESSAGE_LABEL, messageToItem(after), change.before), ...checks], audit: change.audit, explain: movedOn(MESSAGE_LABEL, DOCUMENT_LABEL) });
}

/** No other send holds an unexpired claim on the draft (this request may hold its own): `:owner`, `:at`. */
const NO_OTHER_CLAIM = '(attribute_not_exists(sendClaimBy) OR sendClaimBy = :owner OR sendClaimUntil < :at)';

/**
 * Claims a DRAFT for one send (an update that is not a new version): while it is the version
 * read and no other send holds an unexpired claim (this request may take its own again).
 * When the attempt does not commit, its claim ends at once (onAbort) instead of at its expiry.
 */
export async function claimSend(db: Db, unit: UnitOfWork, message: Message, claim: SendClaim): Promise<void> {
  unit.onAbort(() => releaseClaim(db, message, claim));
  const claimed = await conditionalUpdate(db, {
    Key: messageKeys.message(message.organizationId, message.id),
    UpdateExpression: 'SET sendClaimBy = :owner, sendClaimUntil = :until',
    ConditionExpression: `version = :expected AND #state = :draft AND ${NO_OTHER_CLAIM}`,
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':expected': message.version, ':draft': 'DRAFT', ':owner': claim.owner, ':until': claim.until, ':at': claim.at },
  });
  if (!claimed) throw new ConcurrentChangeError('The message (or another send of it)');
}

/**
 * Recipient items of a send attempt, ahead of its commit (plain puts: they overwrite a failed
 * attempt's items). When the attempt does not commit, they are removed again (onAbort); an
 * attempt that crashed before that leaves them invisible (recipientCounts) until a later send
 * overwrites them.
 */
export async function writeRecipients(db: Db, unit: UnitOfWork, recipients: readonly Recipient[]): Promise<void> {
  unit.onAbort(() => removeRecipients(db, recipients));
  await batchPut(db, recipients.map(recipientToItem));
}

/** Ends a send attempt's claim, if the message still holds exactly that one. */
async function releaseClaim(db: Db, message: Message, claim: SendClaim): Promise<void> {
  await conditionalUpdate(db, {
    Key: messageKeys.message(message.organizationId, message.id),
    UpdateExpression: 'REMOVE sendClaimBy, sendClaimUntil',
    ConditionExpression: 'sendClaimBy = :owner AND sendClaimUntil = :until',
    ExpressionAttributeValues: { ':owner': claim.owner, ':until': claim.until },
  });
}

/** Deletes a send attempt's recipient items that are still its own (another attempt's overwrite stays). */
async function removeRecipients(db: Db, recipients: readonly Recipient[]): Promise<void> {
  await eachLimited(recipients, BATCH_WRITE_ITEMS, async (r) => {
    try {
      await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: messageKeys.recipient(r.organizationId, r.messageId, r.employeeId), ConditionExpression: 'sendId = :sendId', ExpressionAttributeValues: { ':sendId': r.sendId } }));
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
  });
}

/**
 * The SENT message at the version read (a put without the claim's attributes, so the claim
 * ends with it): with its recipient items in the same transaction, while no other send holds
 * a claim; or, when they were written ahead, only while this send's claim still holds.
 * Recipient items are plain puts: on a draft, any item already there is a failed attempt's.
 */
export function saveSend(unit: UnitOfWork, change: SendChange): void {
  const { claim, written } = change;
  const claimCondition = written ? 'sendClaimBy = :owner' : NO_OTHER_CLAIM;
  const message: TxItem = {
    label: MESSAGE_LABEL,
    op: {
      Put: {
        Item: messageToItem(change.after),
        ConditionExpression: `version = :expected AND ${claimCondition}`,
        ExpressionAttributeValues: { ':expected': change.before.version, ':owner': claim.owner, ...(written ? {} : { ':at': claim.at }) },
      },
    },
  };
  const recipients: TxItem[] = written ? [] : change.recipients.map((r) => ({ label: RECIPIENT_LABEL, op: { Put: { Item: recipientToItem(r) } } }));
  unit.stage({ items: [message, ...recipients], audit: change.audit, explain: movedOn(MESSAGE_LABEL) });
}

/** The recipient's next version, while the message is still SENT. */
export function saveRead(unit: UnitOfWork, change: ReadChange): void {
  const { message } = change;
  unit.stage({
    items: [
      versionedPut(RECIPIENT_LABEL, recipientToItem(change.after), change.before),
      {
        label: MESSAGE_LABEL,
        op: { ConditionCheck: { Key: messageKeys.message(message.organizationId, message.id), ConditionExpression: '#state = :sent', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':sent': 'SENT' } } },
      },
    ],
    audit: change.audit,
    explain: movedOn(RECIPIENT_LABEL, MESSAGE_LABEL),
  });
}

const isActive = (e: { active: boolean; scimDeleted?: boolean }) => e.active && e.scimDeleted !== true;

/** The messages store port on DynamoDB, staging writes in `unit`. */
export const messagesStore = (db: Db, unit: UnitOfWork): MessagesStore => ({
  getMessage: (org, id) => getMessage(db, org, id),
  getRecipient: (org, messageId, employeeId) => getRecipient(db, org, messageId, employeeId),
  missingEmployees: async (org, ids) => {
    const found = new Set((await getEmployees(db, org, ids)).map((e) => e.id));
    return ids.filter((id) => !found.has(id));
  },
  getLocation: (org, id) => locationState(db, org, id),
  getDocument: async (org, id) => {
    const d = await getDocument(db, org, id);
    return d ? { id: d.id, state: d.state, archived: d.archived } : undefined;
  },
  activeEmployees: async (org, ids) => (await getEmployees(db, org, ids)).filter(isActive).map((e) => e.id),
  everyActiveEmployee: async (org, max) => {
    const found: string[] = [];
    let after: string | undefined;
    do {
      const page = await listEmployeesPage(db, org, { limit: Math.min(max, 200), active: true, ...(after ? { after } : {}) });
      found.push(...page.employees.filter(isActive).map((e) => e.id));
      after = page.after;
    } while (after && found.length < max);
    return found.slice(0, max);
  },
  scheduledAt: (org, locationId, from, to) => employeesWithPublishedShifts(db, org, locationId, from, to),
  claimSend: (message, claim) => claimSend(db, unit, message, claim),
  writeRecipients: (recipients) => writeRecipients(db, unit, recipients),
  saveMessage: (change) => saveMessage(unit, change),
  saveSend: (change) => saveSend(unit, change),
  saveRead: (change) => saveRead(unit, change),
});
