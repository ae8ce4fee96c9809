import { randomUUID } from 'node:crypto';
import { DOCUMENT_IDS } from '../documents/seed';
import type { Principal } from '../shared/auth/principal';
import type { Db } from '../shared/ddb/client';
import { inUnitOfWork, type UnitOfWork } from '../shared/ddb/unit-of-work';
import type { Actor } from '../shared/domain/actor';
import type { DemoSeed } from '../shared/seed';
import { DOCUMENT_PROBLEMS } from '../documents/public';
import { attachDocument, createMessage, messageEtag, sendMessage, type MessageInput, type MessagePorts } from './domain';
import { getMessage, messagesStore } from './store';

/**
 * The messages part of the demo seed (after documents and planning, in registry order): a
 * draft to everyone with the demo document attached, a message sent to the team of the first
 * location (employee 0's published shifts make the team), and a draft of the other
 * organization for the isolation drills. Written through the use cases (audit entries
 * included); idempotent: fixed ids, existing messages left alone.
 */
export const MESSAGE_IDS = {
  draft: 'a5500001-0000-4000-8000-000000000001',
  sent: 'a5500001-0000-4000-8000-000000000002',
  otherDraft: 'a5500002-0000-4000-8000-000000000001',
} as const;

const seedActor = (organizationId: string): Actor => {
  const principal: Principal = { organizationId, keyId: 'demo-seed', keyLabel: 'Demo seed', environment: 'TEST', scopes: new Set() };
  return { principal, requestId: `seed-messages-${organizationId}` };
};

/** newId that answers `first` once (the message's fixed id), then fresh ids (audit entries). */
const fixedFirst = (first: string) => {
  let used = false;
  return () => (used ? randomUUID() : ((used = true), first));
};

async function ensureMessage(db: Db, now: Date, organizationId: string, id: string, input: MessageInput, then: (ports: (unit: UnitOfWork) => MessagePorts, actor: Actor) => Promise<void>): Promise<void> {
  if (await getMessage(db, organizationId, id)) return;
  const actor = seedActor(organizationId);
  const ports = (newId: () => string) => (unit: UnitOfWork): MessagePorts => ({ store: messagesStore(db, unit), now: () => now, newId });
  await inUnitOfWork(db, (unit) => createMessage(ports(fixedFirst(id))(unit), actor, input));
  await then(ports(randomUUID), actor);
}

export const seed: DemoSeed = async (c) => {
  await ensureMessage(
    c.db,
    c.now,
    c.organizationId,
    MESSAGE_IDS.draft,
    { subject: 'Welcome pack for the new season', body: 'Please read the attached welcome pack before your next shift.', audience: { type: 'EVERYONE' } },
    async (ports, actor) => {
      await inUnitOfWork(c.db, (unit) => attachDocument(ports(unit), actor, MESSAGE_IDS.draft, DOCUMENT_IDS.welcome, DOCUMENT_PROBLEMS.DOCUMENT_NOT_AVAILABLE));
    },
  );
  await ensureMessage(
    c.db,
    c.now,
    c.organizationId,
    MESSAGE_IDS.sent,
    { subject: 'Harbour Office Tower: new key safe', body: 'The key safe moved to the loading bay; the code is unchanged.', audience: { type: 'LOCATION', locationId: c.locations[0] } },
    async (ports, actor) => {
      const draft = await getMessage(c.db, c.organizationId, MESSAGE_IDS.sent);
      await inUnitOfWork(c.db, (unit) => sendMessage(ports(unit), actor, MESSAGE_IDS.sent, messageEtag(draft!)));
    },
  );
  await ensureMessage(c.db, c.now, c.otherOrganizationId, MESSAGE_IDS.otherDraft, { subject: 'Globex notice', body: 'Globex only.', audience: { type: 'EVERYONE' } }, async () => undefined);
};
