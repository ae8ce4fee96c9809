import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentKeys, documentToItem, type Document } from '../../services/documents/model';
import { PROBLEMS as DOCUMENT_PROBLEMS } from '../../services/documents/problems';
import { putEmployee } from '../../services/employees/store';
import { attachDocument, createMessage, markRead, MAX_RECIPIENTS, MAX_TRANSACTION_RECIPIENTS, messageEtag, sendMessage, updateMessage, type MessagePorts } from '../../services/messages/domain';
import { messageKeys, type Message } from '../../services/messages/model';
import { getMessage, listReceived, listRecipients, messagesStore } from '../../services/messages/store';
import { shiftToItem, type Shift } from '../../services/planning/model';
import type { Principal } from '../../services/shared/auth/principal';
import type { Db } from '../../services/shared/ddb/client';
import { ConcurrentChangeError } from '../../services/shared/domain/conflict';
import { inUnitOfWork, TransactionUnit, type UnitOfWork } from '../../services/shared/ddb/unit-of-work';
import { AppError } from '../../services/shared/errors';
import { scanTable } from '../support/api';
import { createTestTable } from '../support/table';

/**
 * The messages store on DynamoDB Local: an attachment commits only while its document is
 * AVAILABLE (the documents port's condition check, in the same transaction); a send and an
 * attach of one draft never both commit; a send of MAX_TRANSACTION_RECIPIENTS fits one
 * transaction, a larger one writes its recipients ahead under a claim and they count only once
 * the SENT message commits, MAX_RECIPIENTS + 1 is refused; a location's team is read from
 * published shifts near the send.
 */
let db: Db;

const actorOf = (organizationId: string) => {
  const principal: Principal = { organizationId, keyId: 'messages', keyLabel: 'Messages test', environment: 'TEST', scopes: new Set(['messages:write']) };
  return { principal, requestId: `req-${randomUUID()}` };
};

const portsOn = (unit: UnitOfWork, now = () => new Date()): MessagePorts => ({ store: messagesStore(db, unit), now, newId: randomUUID });
const run = <T>(work: (ports: MessagePorts) => Promise<T>) => inUnitOfWork(db, (unit) => work(portsOn(unit)));
const notAvailable = DOCUMENT_PROBLEMS.DOCUMENT_NOT_AVAILABLE;

async function employees(org: string, count: number, active = true): Promise<string[]> {
  const at = new Date().toISOString();
  const ids = Array.from({ length: count }, () => randomUUID());
  for (let i = 0; i < ids.length; i += 50) {
    await Promise.all(ids.slice(i, i + 50).map((id) => putEmployee(db, { id, organizationId: org, userName: `${id}@msg.example`, emails: [], active, createdAt: at, updatedAt: at, version: 1 })));
  }
  return ids;
}

async function availableDocument(org: string): Promise<string> {
  const at = new Date().toISOString();
  const document: Document = {
    id: randomUUID(),
    organizationId: org,
    name: 'Plan.pdf',
    contentType: 'application/pdf',
    size: 10,
    sha256: '0'.repeat(64),
    ownerType: 'ORGANIZATION',
    ownerId: null,
    tags: [],
    state: 'AVAILABLE',
    rejectionReason: null,
    uploadSessionId: randomUUID(),
    archived: false,
    archivedAt: null,
    version: 2,
    createdAt: at,
    updatedAt: at,
  };
  await db.doc.send(new PutCommand({ TableName: db.tableName, Item: documentToItem(document) }));
  return document.id;
}

const itemsOf = async (org: string, itemType: string) => (await scanTable(db)).filter((i) => i.itemType === itemType && i.organizationId === org);

beforeAll(async () => {
  db = await createTestTable();
});

describe('attachments and the document state check', () => {
  it('commits nothing when the document stops being AVAILABLE between the read and the commit; the rerun answers 409', async () => {
    const org = randomUUID();
    const actor = actorOf(org);
    const documentId = await availableDocument(org);
    const draft = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'EVERYONE' } }));
    const unit = new TransactionUnit(db);
    await attachDocument(portsOn(unit), actor, draft.id, documentId, notAvailable);
    await db.doc.send(new UpdateCommand({ TableName: db.tableName, Key: documentKeys.document(org, documentId), UpdateExpression: 'SET #s = :p', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':p': 'REJECTED' } }));
    await expect(unit.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    expect(await getMessage(db, org, draft.id)).toMatchObject({ version: 1, attachments: [] });
    expect((await itemsOf(org, 'AuditEntry')).map((a) => a.action)).toEqual(['message.created']);
    // Run again from the reads (as the kit does): the refusal is the contract's.
    await expect(run((p) => attachDocument(p, actor, draft.id, documentId, notAvailable))).rejects.toMatchObject({ code: 'DOCUMENT_NOT_AVAILABLE' });
  });

  it("never attaches another organization's document, even when the check is asked for it directly", async () => {
    const org = randomUUID();
    const actor = actorOf(org);
    const foreign = await availableDocument(randomUUID());
    const draft = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'EVERYONE' } }));
    await expect(run((p) => attachDocument(p, actor, draft.id, foreign, notAvailable))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    // A stale decision that named it anyway fails the condition check (the key holds the organization).
    const unit = new TransactionUnit(db);
    portsOn(unit).store.saveMessage({
      before: draft,
      after: { ...draft, attachments: [{ documentId: foreign, attachedAt: new Date().toISOString() }], version: 2 },
      attachedDocumentId: foreign,
      audit: (await import('../../services/audit/model')).auditEntry({ id: randomUUID(), actor, occurredAt: new Date().toISOString(), action: 'message.attachment_added', entity: { type: 'message', id: draft.id } }),
    });
    await expect(unit.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    expect((await getMessage(db, org, draft.id))?.attachments).toEqual([]);
  });
});

describe('send against attach', () => {
  it('lets exactly one of a send and an attach decided on the same draft commit; the loser reruns into a consistent answer', async () => {
    const org = randomUUID();
    const actor = actorOf(org);
    const [employee] = await employees(org, 1);
    const documentId = await availableDocument(org);
    const draft = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'EMPLOYEES', employeeIds: [employee] } }));
    const attachUnit = new TransactionUnit(db);
    const sendUnit = new TransactionUnit(db);
    await attachDocument(portsOn(attachUnit), actor, draft.id, documentId, notAvailable);
    await sendMessage(portsOn(sendUnit), actor, draft.id, messageEtag(draft));
    const [attached, sent] = await Promise.allSettled([attachUnit.commit(), sendUnit.commit()]);
    expect([attached.status, sent.status].filter((s) => s === 'fulfilled')).toHaveLength(1);
    const loser = attached.status === 'rejected' ? attached : (sent as PromiseRejectedResult);
    expect((loser as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrentChangeError);

    if (attached.status === 'rejected') {
      // The send won: the attach runs again and is refused; the message went out without it.
      await expect(run((p) => attachDocument(p, actor, draft.id, documentId, notAvailable))).rejects.toMatchObject({ code: 'MESSAGE_SENT' });
      expect(await getMessage(db, org, draft.id)).toMatchObject({ state: 'SENT', attachments: [] });
    } else {
      // The attach won: the send runs again with the client's (now stale) ETag: 412, nothing sent.
      await expect(run((p) => sendMessage(p, actor, draft.id, messageEtag(draft)))).rejects.toMatchObject({ code: 'ETAG_MISMATCH' });
      expect(await getMessage(db, org, draft.id)).toMatchObject({ state: 'DRAFT', attachments: [{ documentId }] });
      expect(await itemsOf(org, 'MessageRecipient')).toEqual([]);
    }
  });
});

describe('recipients', () => {
  it(`writes ${MAX_TRANSACTION_RECIPIENTS} recipients with the SENT message in one transaction, and refuses ${MAX_RECIPIENTS} + 1 (nothing written)`, async () => {
    const org = randomUUID();
    const actor = actorOf(org);
    const ids = await employees(org, MAX_TRANSACTION_RECIPIENTS);
    await employees(org, 3, false); // inactive: never recipients
    const draft = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'EVERYONE' } }));
    const unit = new TransactionUnit(db);
    const sent = await sendMessage(portsOn(unit), actor, draft.id, messageEtag(draft));
    expect(await itemsOf(org, 'MessageRecipient')).toEqual([]); // nothing before the commit: one transaction
    await unit.commit();
    expect(sent).toMatchObject({ state: 'SENT', recipientCount: MAX_TRANSACTION_RECIPIENTS });
    const items = await itemsOf(org, 'MessageRecipient');
    expect(items.map((r) => r.employeeId).sort()).toEqual([...ids].sort());
    expect(new Set(items.map((r) => r.sendId))).toEqual(new Set([sent.sendId]));

    await employees(org, MAX_RECIPIENTS + 1 - MAX_TRANSACTION_RECIPIENTS);
    const second = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'EVERYONE' } }));
    const error = await run((p) => sendMessage(p, actor, second.id, messageEtag(second))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'MESSAGE_TOO_MANY_RECIPIENTS' });
    expect(error).toMatchObject({ extensions: { maxRecipients: MAX_RECIPIENTS } });
    expect(await getMessage(db, org, second.id)).toMatchObject({ state: 'DRAFT', version: 1 });
    expect((await itemsOf(org, 'MessageRecipient')).filter((r) => r.messageId === second.id)).toEqual([]);
  }, 60_000);

  it("resolves a location's team from PUBLISHED shifts starting within 14 days of the send, active employees only", async () => {
    const org = randomUUID();
    const actor = actorOf(org);
    const locationId = randomUUID();
    const { putLocation } = await import('../../services/locations/public');
    const at = new Date().toISOString();
    await putLocation(db, { id: locationId, organizationId: org, name: 'Site', address: 'x', createdAt: at, updatedAt: at });
    const [near, farPast, drafted, elsewhere] = await employees(org, 4);
    const [inactive] = await employees(org, 1, false);
    const now = Date.now();
    const shift = async (employeeId: string, offsetDays: number, state: Shift['state'] = 'PUBLISHED', location = locationId) => {
      const startsAt = new Date(now + offsetDays * 86_400_000).toISOString();
      const s: Shift = { id: randomUUID(), organizationId: org, employeeId, locationId: location, startsAt, endsAt: new Date(Date.parse(startsAt) + 8 * 3_600_000).toISOString(), breakMinutes: 0, taskIds: [], notes: null, state, publishedAt: state === 'PUBLISHED' ? at : null, cancelledAt: null, cancelReason: null, version: 1, createdAt: at, updatedAt: at };
      await db.doc.send(new PutCommand({ TableName: db.tableName, Item: shiftToItem(s) }));
    };
    await shift(near, 3);
    await shift(near, -2);
    await shift(farPast, -20);
    await shift(drafted, 1, 'DRAFT');
    await shift(elsewhere, 1, 'PUBLISHED', randomUUID());
    await shift(inactive, 1);
    const draft = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'LOCATION', locationId } }));
    await run((p) => sendMessage(p, actor, draft.id, messageEtag(draft)));
    expect((await itemsOf(org, 'MessageRecipient')).map((r) => r.employeeId)).toEqual([near]);
  });

  const visible = async (message: Message) => (await listRecipients(db, message, 1_000)).items.map((r) => r.employeeId).sort();
  const received = async (org: string, employeeId: string) => (await listReceived(db, org, employeeId, 50)).items.map((r) => r.message.id);

  it('writes a large send in batches that count only once the SENT message commits; a commit that loses leaves them invisible and the next send overwrites them', async () => {
    const org = randomUUID();
    const actor = actorOf(org);
    const ids = (await employees(org, 130)).sort();
    const draft = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'EVERYONE' } }));

    // The attempt writes its 130 recipient items, then the draft changes before its commit.
    const unit = new TransactionUnit(db);
    await sendMessage(portsOn(unit), actor, draft.id, messageEtag(draft));
    expect(await itemsOf(org, 'MessageRecipient')).toHaveLength(130);
    const few = ids.slice(0, 3);
    const changed = await run((p) => updateMessage(p, actorOf(org), draft.id, messageEtag(draft), { audience: { type: 'EMPLOYEES', employeeIds: few } }));
    await expect(unit.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);

    const stillDraft = (await getMessage(db, org, draft.id))!;
    expect(stillDraft).toMatchObject({ state: 'DRAFT', version: 2, sendId: null, recipientCount: null });
    expect(await visible(stillDraft)).toEqual([]);
    expect(await received(org, ids[0]!)).toEqual([]);
    expect(await received(org, ids[100]!)).toEqual([]);
    await expect(run((p) => markRead(p, actor, draft.id, ids[0]!))).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    expect((await itemsOf(org, 'AuditEntry')).map((a) => a.action).sort()).toEqual(['message.created', 'message.updated']);

    // The next send reaches exactly the new audience; the lost attempt's other items stay invisible.
    const sent = await run((p) => sendMessage(p, actor, draft.id, messageEtag(changed)));
    expect(sent).toMatchObject({ state: 'SENT', recipientCount: 3 });
    expect(await visible(sent)).toEqual(few);
    expect(await received(org, few[0]!)).toEqual([draft.id]);
    expect(await received(org, ids[100]!)).toEqual([]);
    await expect(run((p) => markRead(p, actor, draft.id, ids[100]!))).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    expect(await run((p) => markRead(p, actor, draft.id, few[1]!))).toMatchObject({ readAt: expect.any(String) });
  }, 60_000);

  it('removes the recipient items of a large send that lost its commit once its unit is abandoned, and spares an item another attempt wrote over', async () => {
    const org = randomUUID();
    const actor = actorOf(org);
    const ids = (await employees(org, MAX_TRANSACTION_RECIPIENTS + 10)).sort();
    const draft = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'EVERYONE' } }));
    const unit = new TransactionUnit(db);
    await sendMessage(portsOn(unit), actor, draft.id, messageEtag(draft));
    expect(await itemsOf(org, 'MessageRecipient')).toHaveLength(ids.length);
    // One item is meanwhile another attempt's (its own send id): it is not this attempt's to remove.
    const other = randomUUID();
    await db.doc.send(new UpdateCommand({ TableName: db.tableName, Key: messageKeys.recipient(org, draft.id, ids[0]!), UpdateExpression: 'SET sendId = :other', ExpressionAttributeValues: { ':other': other } }));
    await run((p) => updateMessage(p, actorOf(org), draft.id, messageEtag(draft), { subject: 'changed' }));
    await expect(unit.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);

    await unit.abandon();
    const left = await itemsOf(org, 'MessageRecipient');
    expect(left.map((r) => [r.employeeId, r.sendId])).toEqual([[ids[0], other]]);
    expect((await getMessage(db, org, draft.id))!).toMatchObject({ state: 'DRAFT', version: 2 });
  }, 60_000);

  it('ends the claim of a large send that never reached its commit, so the next send need not wait for the claim to expire', async () => {
    const org = randomUUID();
    const actor = actorOf(org);
    const ids = (await employees(org, MAX_TRANSACTION_RECIPIENTS + 5)).sort();
    const draft = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'EVERYONE' } }));
    const failed = new TransactionUnit(db);
    await sendMessage(portsOn(failed), actor, draft.id, messageEtag(draft));
    expect((await scanTable(db)).find((i) => i.itemType === 'Message' && i.id === draft.id)).toHaveProperty('sendClaimBy');

    // The request fails after the use case (before the commit): the handler abandons its unit.
    await failed.abandon();
    expect((await scanTable(db)).find((i) => i.itemType === 'Message' && i.id === draft.id)).not.toHaveProperty('sendClaimBy');
    expect(await itemsOf(org, 'MessageRecipient')).toEqual([]);

    const sent = await run((p) => sendMessage(p, actorOf(org), draft.id, messageEtag(draft)));
    expect(sent).toMatchObject({ state: 'SENT', recipientCount: ids.length });
    expect(await visible(sent)).toEqual(ids);
  }, 60_000);

  it('lets a large send commit only while its claim holds: another send of the draft is refused as a conflict, and reruns after the commit see it sent', async () => {
    const org = randomUUID();
    const actor = actorOf(org);
    const ids = (await employees(org, MAX_TRANSACTION_RECIPIENTS + 5)).sort();
    const draft = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'EVERYONE' } }));
    const first = new TransactionUnit(db);
    await sendMessage(portsOn(first), actor, draft.id, messageEtag(draft));
    // A second request decided on the same draft version: its claim fails while the first holds one.
    await expect(sendMessage(portsOn(new TransactionUnit(db)), actorOf(org), draft.id, messageEtag(draft))).rejects.toBeInstanceOf(ConcurrentChangeError);
    await first.commit();
    const sent = (await getMessage(db, org, draft.id))!;
    expect(sent).toMatchObject({ state: 'SENT', recipientCount: ids.length });
    expect(await visible(sent)).toEqual(ids);
    // The claim ended with the commit: the stored item holds none.
    expect((await scanTable(db)).find((i) => i.itemType === 'Message' && i.id === draft.id)).not.toHaveProperty('sendClaimBy');
    await expect(run((p) => sendMessage(p, actorOf(org), draft.id, messageEtag(draft)))).rejects.toMatchObject({ code: 'ETAG_MISMATCH' });
  }, 60_000);

  it('pages through a sent message by employee id, skipping the items of a lost attempt', async () => {
    const org = randomUUID();
    const actor = actorOf(org);
    const ids = (await employees(org, 120)).sort();
    const draft = await run((p) => createMessage(p, actor, { subject: 's', body: 'b', audience: { type: 'EVERYONE' } }));
    const lost = new TransactionUnit(db);
    await sendMessage(portsOn(lost), actor, draft.id, messageEtag(draft));
    const half = ids.filter((_, i) => i % 2 === 0);
    const changed = await run((p) => updateMessage(p, actorOf(org), draft.id, messageEtag(draft), { audience: { type: 'EMPLOYEES', employeeIds: half } }));
    await expect(lost.commit()).rejects.toBeInstanceOf(ConcurrentChangeError);
    const sent = await run((p) => sendMessage(p, actor, draft.id, messageEtag(changed)));
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await listRecipients(db, sent, 7, after);
      expect(page.items.length).toBeLessThanOrEqual(7);
      seen.push(...page.items.map((r) => r.employeeId));
      after = page.after;
    } while (after);
    expect(seen).toEqual(half);
  }, 60_000);
});
