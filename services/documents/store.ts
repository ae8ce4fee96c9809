import { employeeExistsCheck, getEmployee } from '../employees/public';
import { activeLocationCheck, locationState } from '../locations/public';
import type { Db } from '../shared/ddb/client';
import { movedOn, versionedPut } from '../shared/ddb/entity';
import { indexPage, getByIds, prefixPage, type Page, type PagePosition } from '../shared/ddb/paging';
import { getOne } from '../shared/ddb/read';
import type { TxItem } from '../shared/ddb/transaction';
import type { UnitOfWork } from '../shared/ddb/unit-of-work';
import type { CompletionChange, DocumentsStore, LinkChange, UploadChange } from './domain';
import { documentFromItem, documentKeys, documentToItem, linkFromItem, linkToItem, sessionFromItem, sessionToItem, type Document, type LocationDocument, type UploadSession } from './model';

/** Transaction item labels: roles, never values (they reach the logs). */
export const DOCUMENT_LABEL = 'document';
const SESSION_LABEL = 'upload_session';
const LINK_LABEL = 'location_document';
const OWNER_LABEL = 'document_owner';

export const getDocument = (db: Db, org: string, id: string): Promise<Document | undefined> => getOne(db, documentKeys.document(org, id), documentFromItem);

export const getSession = (db: Db, org: string, id: string): Promise<UploadSession | undefined> => getOne(db, documentKeys.session(org, id), sessionFromItem);

export const getLink = (db: Db, org: string, locationId: string, documentId: string): Promise<LocationDocument | undefined> => getOne(db, documentKeys.link(org, locationId, documentId), linkFromItem);

/** Documents of these ids that exist in the organization, by id. */
export const getDocuments = (db: Db, org: string, ids: readonly string[]): Promise<Map<string, Document>> => getByIds(db, ids, (id) => documentKeys.document(org, id), documentFromItem);

/** One page of the organization's documents, oldest first (GSI1: createdAt, then id). */
export async function listDocuments(db: Db, org: string, archived: boolean, limit: number, after?: PagePosition): Promise<Page<Document>> {
  const page = await indexPage(db, 'GSI1', documentKeys.byOrganization(org, archived), limit, after);
  return { items: page.items.map(documentFromItem), ...(page.next ? { next: page.next } : {}) };
}

/** One page of a location's document links by document id (consistent Query of the location's link partition). */
export async function listLinks(db: Db, org: string, locationId: string, limit: number, afterDocumentId?: string): Promise<{ items: LocationDocument[]; after?: string }> {
  const page = await prefixPage(db, documentKeys.linkPartition(org, locationId), 'DOC#', limit, afterDocumentId ? documentKeys.link(org, locationId, afterDocumentId) : undefined);
  const items = page.items.map(linkFromItem);
  return { items, ...(page.more ? { after: items.at(-1)!.documentId } : {}) };
}

const ownerCheck = (d: Document): TxItem[] =>
  d.ownerType === 'LOCATION' && d.ownerId
    ? [{ ...activeLocationCheck(d.organizationId, d.ownerId), label: OWNER_LABEL }]
    : d.ownerType === 'EMPLOYEE' && d.ownerId
      ? [{ ...employeeExistsCheck(d.organizationId, d.ownerId), label: OWNER_LABEL }]
      : [];

/** The new session and PENDING document; the owner must still exist (a location: and not be archived) when they commit. */
export function saveUpload(unit: UnitOfWork, change: UploadChange): void {
  unit.stage({
    items: [versionedPut(DOCUMENT_LABEL, documentToItem(change.document)), versionedPut(SESSION_LABEL, sessionToItem(change.session)), ...ownerCheck(change.document)],
    audit: change.audit,
    explain: movedOn(DOCUMENT_LABEL, SESSION_LABEL, OWNER_LABEL),
  });
}

/** Session and document move together, each only at the version read. */
export function saveCompletion(unit: UnitOfWork, change: CompletionChange): void {
  unit.stage({
    items: [versionedPut(SESSION_LABEL, sessionToItem(change.after.session), change.before.session), versionedPut(DOCUMENT_LABEL, documentToItem(change.after.document), change.before.document)],
    audit: change.audit,
    explain: movedOn(SESSION_LABEL, DOCUMENT_LABEL),
  });
}

/**
 * Transaction item of a new reference to a document (a location link; messages' attachments):
 * the document exists in this organization, is AVAILABLE and not archived when the change
 * commits. Its key holds the organization, so another organization's document never satisfies it.
 */
export const linkableDocumentCheck = (org: string, documentId: string): TxItem => ({
  label: DOCUMENT_LABEL,
  op: {
    ConditionCheck: {
      Key: documentKeys.document(org, documentId),
      ConditionExpression: '#state = :available AND archived = :no',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':available': 'AVAILABLE', ':no': false },
    },
  },
});

/**
 * Stages a link change. Link: the new link (not there yet), the location existing and not
 * archived (`activeLocationCheck`) and the document linkable; either failing means it changed
 * since it was read, and the use case runs again (answering the link, 422 or 409). Unlink: the
 * link is deleted if it is still there.
 */
export function saveLink(unit: UnitOfWork, change: LinkChange): void {
  const { organizationId: org, locationId, documentId } = change.link;
  const items: TxItem[] =
    change.kind === 'link'
      ? [
          { label: LINK_LABEL, op: { Put: { Item: linkToItem(change.link), ConditionExpression: 'attribute_not_exists(PK)' } } },
          { ...activeLocationCheck(org, locationId), label: OWNER_LABEL },
          linkableDocumentCheck(org, documentId),
        ]
      : [{ label: LINK_LABEL, op: { Delete: { Key: documentKeys.link(org, locationId, documentId), ConditionExpression: 'attribute_exists(PK)' } } }];
  unit.stage({ items, audit: change.audit, explain: movedOn(LINK_LABEL, OWNER_LABEL, DOCUMENT_LABEL) });
}

/** The documents store port on DynamoDB, staging writes in `unit`. */
export const documentsStore = (db: Db, unit: UnitOfWork): DocumentsStore => ({
  getDocument: (org, id) => getDocument(db, org, id),
  getSession: (org, id) => getSession(db, org, id),
  getLocation: (org, id) => locationState(db, org, id),
  employeeExists: async (org, id) => (await getEmployee(db, org, id)) !== undefined,
  getLink: (org, locationId, documentId) => getLink(db, org, locationId, documentId),
  saveUpload: (change) => saveUpload(unit, change),
  saveCompletion: (change) => saveCompletion(unit, change),
  saveDocument: (change) => unit.stage({ items: [versionedPut(DOCUMENT_LABEL, documentToItem(change.after), change.before)], audit: change.audit, explain: movedOn(DOCUMENT_LABEL) }),
  recordAudit: (audit) => unit.stage({ items: [], audit }),
  saveLink: (change) => saveLink(unit, change),
});
