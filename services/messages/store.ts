import { DOCUMENT_LABEL, documentAvailableCheck, getDocument } from '../documents/public';
import { getEmployees, listEmployeesPage } from '../employees/public';
import { getLocation } from '../locations/public';
import { employeesWithPublishedShifts } from '../planning/public';
import type { Db } from '../shared/ddb/client';
import { movedOn, versionedPut } from '../shared/ddb/entity';
import { getByIds, indexPage, prefixPage, type Page, type PagePosition } from '../shared/ddb/paging';
import { getOne } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import type { MessageChange, MessagesStore, ReadChange, SendChange } from './domain';
import { messageFromItem, messageKeys, messageToItem, recipientFromItem, recipientToItem, type Message, type MessageState, type Recipient } from './model';

/**
 * The DynamoDB adapter of messages and their recipients (keys and item shapes: model.ts).
 * Every write is one versioned put of the message (attachments live on it), plus, at send,
 * one put per recipient; an attached document is checked AVAILABLE in the same transaction.
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

/** One page of an employee's recipient items, in send order (GSI1). */
export async function listReceived(db: Db, org: string, employeeId: string, limit: number, after?: PagePosition): Promise<Page<Recipient>> {
  const page = await indexPage(db, 'GSI1', messageKeys.ofEmployee(org, employeeId), limit, after);
  return { items: page.items.map(recipientFromItem), ...(page.next ? { next: page.next } : {}) };
}

/** One page of a message's recipients by employee id (consistent Query of the message's partition). */
export async function listRecipients(db: Db, org: string, messageId: string, limit: number, afterEmployeeId?: string): Promise<{ items: Recipient[]; after?: string }> {
  const page = await prefixPage(db, messageKeys.messagePartition(org, messageId), 'RCPT#', limit, afterEmployeeId ? messageKeys.recipient(org, messageId, afterEmployeeId) : undefined);
  const items = page.items.map(recipientFromItem);
  return { items, ...(page.more ? { after: items.at(-1)!.employeeId } : {}) };
}

/** A message change; an attached document must still be AVAILABLE in this organization when it commits. */
export function saveMessage(unit: UnitOfWork, change: MessageChange): void {
  const { after } = change;
  const checks: TxItem[] = change.attachedDocumentId ? [documentAvailableCheck(after.organizationId, change.attachedDocumentId)] : [];
  unit.stage({ items: [versionedPut(MESSAGE_LABEL, messageToItem(after), change.before), ...checks], audit: change.audit, explain: movedOn(MESSAGE_LABEL, DOCUMENT_LABEL) });
}

/** The SENT message at the version read and one new recipient item per employee: one transaction. */
export function saveSend(unit: UnitOfWork, change: SendChange): void {
  unit.stage({
    items: [versionedPut(MESSAGE_LABEL, messageToItem(change.after), change.before), ...change.recipients.map((r) => versionedPut(RECIPIENT_LABEL, recipientToItem(r)))],
    audit: change.audit,
    explain: movedOn(MESSAGE_LABEL, RECIPIENT_LABEL),
  });
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
  locationExists: async (org, id) => (await getLocation(db, org, id)) !== undefined,
  getDocument: async (org, id) => {
    const d = await getDocument(db, org, id);
    return d ? { id: d.id, state: d.state } : undefined;
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
  saveMessage: (change) => saveMessage(unit, change),
  saveSend: (change) => saveSend(unit, change),
  saveRead: (change) => saveRead(unit, change),
});
