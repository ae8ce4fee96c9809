import { createHash, randomUUID } from 'node:crypto';
import type { Principal } from '../shared/auth/principal';
import { BUCKET_ENV, bucketFromEnv, putObject } from '../shared/aws/s3';
import type { Db } from '../shared/ddb/client';
import { inUnitOfWork } from '../shared/ddb/unit-of-work';
import type { Actor } from '../shared/domain/actor';
import type { DemoSeed } from '../shared/seed';
import { completeUpload, openUpload, type DocumentPorts } from './domain';
import { objectKeys } from './model';
import { documentsStore, getDocument } from './store';
import { documentObjects, documentPolicy } from './store-objects';

/**
 * The documents part of the demo seed: one AVAILABLE PDF per demo organization (the other
 * organization's for the isolation drills), made through the real path: an upload session,
 * the bytes written to the session's upload key in the documents bucket (the embedded S3
 * server locally; what the presigned PUT would write), and the completion check that
 * measures them and promotes them to documents/. Idempotent: fixed ids, an existing document
 * is left alone.
 */
export const DOCUMENT_IDS = {
  /** "Welcome pack.pdf" of the demo organization: AVAILABLE, for the README and message attachments. */
  welcome: 'd0c00001-0000-4000-8000-000000000001',
  welcomeSession: 'd0c00001-0000-4000-8000-0000000000a1',
  /** The other organization's document. */
  other: 'd0c00002-0000-4000-8000-000000000001',
  otherSession: 'd0c00002-0000-4000-8000-0000000000a1',
} as const;

const seedActor = (organizationId: string): Actor => {
  const principal: Principal = { organizationId, keyId: 'demo-seed', keyLabel: 'Demo seed', environment: 'TEST', scopes: new Set() };
  return { principal, requestId: `seed-documents-${organizationId}` };
};

/** newId that answers the fixed ids in order, then fresh ids (audit entries). */
const fixedIds = (...ids: string[]) => {
  const queue = [...ids];
  return () => queue.shift() ?? randomUUID();
};

const pdf = (title: string): Buffer => Buffer.from(`%PDF-1.4\n% ${title}\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`);

async function ensureDocument(db: Db, now: Date, organizationId: string, ids: { document: string; session: string }, name: string, bytes: Buffer): Promise<void> {
  if (await getDocument(db, organizationId, ids.document)) return;
  const actor = seedActor(organizationId);
  const ports = (unit: Parameters<typeof documentsStore>[1], newId: () => string): DocumentPorts => ({ store: documentsStore(db, unit), objects: documentObjects(), policy: documentPolicy(), now: () => now, newId });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // openUpload takes the session's id first, then the document's.
  await inUnitOfWork(db, (unit) => openUpload(ports(unit, fixedIds(ids.session, ids.document)), actor, { name, contentType: 'application/pdf', size: bytes.length, sha256, tags: ['demo'] }));
  await putObject(bucketFromEnv(BUCKET_ENV.documents), objectKeys.upload(organizationId, ids.session), bytes, 'application/pdf');
  await inUnitOfWork(db, (unit) => completeUpload(ports(unit, randomUUID), actor, ids.session));
}

export const seed: DemoSeed = async (c) => {
  await ensureDocument(c.db, c.now, c.organizationId, { document: DOCUMENT_IDS.welcome, session: DOCUMENT_IDS.welcomeSession }, 'Welcome pack.pdf', pdf('Acme welcome pack'));
  await ensureDocument(c.db, c.now, c.otherOrganizationId, { document: DOCUMENT_IDS.other, session: DOCUMENT_IDS.otherSession }, 'Globex handbook.pdf', pdf('Globex handbook'));
};
