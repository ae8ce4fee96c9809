import { newArchivable, revised } from '../shared/domain/lifecycle';
import type { UseCasePorts } from '../shared/domain/ports';
import { auditEntry, type AuditEntry, type AuditInput } from '../audit/model';
import type { Actor } from '../shared/domain/actor';
import { assertEtag, assertSentEtag, entityEtag, versionedEtag } from '../shared/domain/etag';
import { AppError, NotFoundError, ValidationError, type FieldError } from '../shared/errors';
import { objectKeys, type Document, type LocationDocument, type OwnerType, type RejectionReason, type UploadSession } from './model';
import { PROBLEMS } from './problems';

export type { Document, LocationDocument, UploadSession } from './model';

/**
 * Documents: metadata in the table, bytes in the documents bucket, never through the API.
 * An upload session signs one PUT of exactly the declared size, type and SHA-256; completing
 * it reads the bytes back and decides AVAILABLE or REJECTED (the completion check is the
 * defence on any backend: a local server, or a client that got a URL some other way).
 */

/** A presigned request as handed to the client (a secret until `expiresAt`). */
export interface PresignedRequest {
  readonly method: 'PUT' | 'GET';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly expiresAt: string;
}

/** What the completion check reads back of an upload. */
export interface MeasuredUpload {
  readonly size: number;
  readonly contentType: string | undefined;
  /** SHA-256 of the stored bytes, base64. */
  readonly sha256: string;
}

/** The bucket port (store-objects.ts): presigning, reading uploads back, promoting verified bytes. */
export interface DocumentObjects {
  presignUpload(key: string, input: { contentType: string; size: number; sha256Base64: string; expiresIn: number; signedAt: Date }): Promise<PresignedRequest>;
  measure(key: string, maxBytes: number): Promise<MeasuredUpload | undefined>;
  /** Copies verified bytes to their permanent key (idempotent). */
  promote(fromKey: string, toKey: string): Promise<void>;
  presignDownload(key: string, input: { filename: string; contentType: string; expiresIn: number; signedAt: Date }): Promise<PresignedRequest>;
}

export interface UploadChange {
  readonly session: UploadSession;
  readonly document: Document;
  readonly audit: AuditEntry;
}

export interface CompletionChange {
  readonly before: { readonly session: UploadSession; readonly document: Document };
  readonly after: { readonly session: UploadSession; readonly document: Document };
  readonly audit: AuditEntry;
}

export type LinkChange = { readonly kind: 'link' | 'unlink'; readonly link: LocationDocument; readonly audit: AuditEntry };

/** The documents store port (store.ts): reads, and `save*` that stage a change in the unit of work. */
export interface DocumentsStore {
  getDocument(organizationId: string, id: string): Promise<Document | undefined>;
  getSession(organizationId: string, id: string): Promise<UploadSession | undefined>;
  /** The location of this organization (`archived` as stored), or undefined. */
  getLocation(organizationId: string, id: string): Promise<{ readonly archived: boolean } | undefined>;
  employeeExists(organizationId: string, id: string): Promise<boolean>;
  getLink(organizationId: string, locationId: string, documentId: string): Promise<LocationDocument | undefined>;
  /** The new session and PENDING document, with an existence check of the owner. */
  saveUpload(change: UploadChange): void;
  saveCompletion(change: CompletionChange): void;
  saveDocument(change: { readonly before: Document; readonly after: Document; readonly audit: AuditEntry }): void;
  /** Audit only (a download session changes no stored state). */
  recordAudit(audit: AuditEntry): void;
  saveLink(change: LinkChange): void;
}

/** What an organization's uploads may be: configurable per deployment (DOCUMENT_CONTENT_TYPES). */
export interface DocumentPolicy {
  readonly allowedContentTypes: readonly string[];
  readonly maxBytes: number;
  /** Seconds an upload session (and its URL) is valid. */
  readonly uploadSeconds: number;
  /** Seconds a download URL is valid. */
  readonly downloadSeconds: number;
}

export interface DocumentPorts extends UseCasePorts<DocumentsStore> {
  readonly objects: DocumentObjects;
  readonly policy: DocumentPolicy;
}

export const documentEtag = versionedEtag<Document>('document');
/** A link's ETag names the link by its pair and when it was made: a link made again after an unlink is another resource, never matched by the old one's tag. */
export const linkEtag = (l: LocationDocument): string => entityEtag('location-document', `${l.locationId}:${l.documentId}:${Date.parse(l.linkedAt)}`, 1);

const audit = (ports: DocumentPorts, actor: Actor, occurredAt: string, input: Omit<AuditInput, 'id' | 'actor' | 'occurredAt'>): AuditEntry =>
  auditEntry({ id: ports.newId(), actor, occurredAt, ...input });

/** `2026-01-01T10:00:00.400Z` -> `2026-01-01T10:00:00Z`: signing times and URL expiries are whole seconds (as X-Amz-Date is). */
const seconds = (d: Date): string => new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

const hexToBase64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');

export interface UploadInput {
  readonly name: string;
  readonly contentType: string;
  readonly size: number;
  readonly sha256: string;
  readonly owner?: { readonly type: 'ORGANIZATION' } | { readonly type: 'LOCATION'; readonly locationId: string } | { readonly type: 'EMPLOYEE'; readonly employeeId: string };
  readonly tags?: readonly string[];
}

export interface OpenedUpload {
  readonly session: UploadSession;
  readonly document: Document;
  readonly upload: PresignedRequest;
}

/**
 * Opens an upload session (POST /documents/upload-sessions).
 * 1. The content type must be allowed and the size within the limit (422 at the field).
 * 2. A location or employee owner must exist in this organization, a location not archived
 *    (422 at /owner: nothing new points at an archived record).
 * 3. Stage the PENDING document and the OPEN session (valid `uploadSeconds`) with an owner
 *    check, and sign one PUT of exactly that size, type and SHA-256, expiring with the session.
 */
export async function openUpload(ports: DocumentPorts, actor: Actor, input: UploadInput): Promise<OpenedUpload> {
  const org = actor.principal.organizationId;
  const { policy } = ports;
  if (!policy.allowedContentTypes.includes(input.contentType)) {
    throw new ValidationError([{ pointer: '/contentType', detail: `contentType ${input.contentType} is not allowed; allowed: ${policy.allowedContentTypes.join(', ')}.` }]);
  }
  if (input.size > policy.maxBytes) throw new ValidationError([{ pointer: '/size', detail: `size is at most ${policy.maxBytes} bytes.` }]);
  const owner = input.owner ?? { type: 'ORGANIZATION' as const };
  const ownerType: OwnerType = owner.type;
  const ownerId = owner.type === 'LOCATION' ? owner.locationId : owner.type === 'EMPLOYEE' ? owner.employeeId : null;
  if (owner.type === 'LOCATION') {
    const location = await ports.store.getLocation(org, owner.locationId);
    if (!location) throw new ValidationError([{ pointer: '/owner/locationId', detail: `Location ${owner.locationId} does not exist in this organization.` }]);
    if (location.archived) {
      throw new ValidationError([{ pointer: '/owner/locationId', detail: `Location ${owner.locationId} is archived: a document cannot be owned by an archived location; restore it first (PATCH archived: false).` }]);
    }
  }
  if (owner.type === 'EMPLOYEE' && !(await ports.store.employeeExists(org, owner.employeeId))) {
    throw new ValidationError([{ pointer: '/owner/employeeId', detail: `Employee ${owner.employeeId} does not exist in this organization.` }]);
  }
  const at = ports.now();
  const now = at.toISOString();
  const signedAt = new Date(Date.parse(seconds(at)));
  const validUntil = seconds(new Date(signedAt.getTime() + policy.uploadSeconds * 1000));
  const sessionId = ports.newId();
  const document: Document = {
    ...newArchivable(ports.newId(), org, now),
    name: input.name,
    contentType: input.contentType,
    size: input.size,
    sha256: input.sha256,
    ownerType,
    ownerId,
    tags: [...new Set(input.tags ?? [])],
    state: 'PENDING',
    rejectionReason: null,
    uploadSessionId: sessionId,
  };
  const session: UploadSession = {
    id: sessionId,
    organizationId: org,
    documentId: document.id,
    state: 'OPEN',
    validUntil,
    expiresAt: Math.floor(Date.parse(validUntil) / 1000) + 86_400,
    version: 1,
    createdAt: now,
    completedAt: null,
  };
  const upload = await ports.objects.presignUpload(objectKeys.upload(org, sessionId), {
    contentType: input.contentType,
    size: input.size,
    sha256Base64: hexToBase64(input.sha256),
    expiresIn: policy.uploadSeconds,
    signedAt,
  });
  ports.store.saveUpload({
    session,
    document,
    // Ids, type and size only: never the file name (it may name a person) nor the URL.
    audit: audit(ports, actor, now, {
      action: 'document.upload_session_opened',
      entity: { type: 'document', id: document.id },
      references: { uploadSessionId: sessionId, ...(owner.type === 'LOCATION' ? { locationId: owner.locationId } : {}), ...(owner.type === 'EMPLOYEE' ? { employeeId: owner.employeeId } : {}) },
      after: { state: 'PENDING', contentType: document.contentType, size: document.size, ownerType },
    }),
  });
  return { session, document, upload };
}

/** What the stored bytes say against what the session promised; undefined when they match. */
export function rejectionOf(document: Pick<Document, 'size' | 'sha256' | 'contentType'>, measured: MeasuredUpload): RejectionReason | undefined {
  if (measured.size !== document.size) return 'SIZE_MISMATCH';
  if (measured.sha256 !== hexToBase64(document.sha256)) return 'CHECKSUM_MISMATCH';
  if ((measured.contentType ?? '').split(';')[0].trim().toLowerCase() !== document.contentType) return 'CONTENT_TYPE_MISMATCH';
  return undefined;
}

/**
 * Completes an upload session (POST /documents/upload-sessions/{id}/complete).
 * 1. The session must exist in this organization (404), be OPEN (409
 *    UPLOAD_SESSION_COMPLETED) and not past validUntil (409 UPLOAD_SESSION_EXPIRED).
 * 2. Read the uploaded bytes back: none yet is 409 UPLOAD_NOT_RECEIVED (the session stays open).
 * 3. Size, SHA-256 and content type must be what the session promised: otherwise the document
 *    becomes REJECTED (with the reason), never AVAILABLE; its bytes stay under uploads/ and expire.
 * 4. Matching bytes are copied to the document's permanent key, then the document becomes
 *    AVAILABLE. Session and document move together, at the versions read: of two concurrent
 *    completions one commits, the other runs again and answers 409.
 */
export async function completeUpload(ports: DocumentPorts, actor: Actor, sessionId: string): Promise<{ session: UploadSession; document: Document }> {
  const org = actor.principal.organizationId;
  const session = await ports.store.getSession(org, sessionId);
  if (!session) throw new NotFoundError(`Upload session ${sessionId}`);
  if (session.state === 'COMPLETED') throw new AppError(PROBLEMS.UPLOAD_SESSION_COMPLETED, `Upload session ${sessionId} was already completed; its document is ${session.documentId}.`);
  const at = ports.now();
  if (at.getTime() > Date.parse(session.validUntil)) throw new AppError(PROBLEMS.UPLOAD_SESSION_EXPIRED, `Upload session ${sessionId} expired at ${session.validUntil}; open a new one.`);
  const document = await ports.store.getDocument(org, session.documentId);
  if (!document) throw new NotFoundError(`Upload session ${sessionId}`);
  const uploadKey = objectKeys.upload(org, sessionId);
  const measured = await ports.objects.measure(uploadKey, ports.policy.maxBytes);
  if (!measured) throw new AppError(PROBLEMS.UPLOAD_NOT_RECEIVED, `Nothing was uploaded for session ${sessionId} yet: PUT the file to the session's URL first.`);
  const rejection = rejectionOf(document, measured);
  if (!rejection) await ports.objects.promote(uploadKey, objectKeys.document(org, document.id));
  const now = at.toISOString();
  const after = {
    session: { ...session, state: 'COMPLETED' as const, completedAt: now, version: session.version + 1 },
    document: revised(document, now, { state: rejection ? ('REJECTED' as const) : ('AVAILABLE' as const), rejectionReason: rejection ?? null }),
  };
  ports.store.saveCompletion({
    before: { session, document },
    after,
    audit: audit(ports, actor, now, {
      action: rejection ? 'document.upload_rejected' : 'document.upload_completed',
      entity: { type: 'document', id: document.id },
      references: { uploadSessionId: sessionId },
      before: { state: document.state },
      after: { state: after.document.state, rejectionReason: rejection ?? null },
    }),
  });
  return after;
}

/**
 * Opens a download session (POST /documents/{id}/download-sessions): a presigned GET valid
 * for `downloadSeconds`. The document must exist in this organization (404) and be AVAILABLE
 * (409 DOCUMENT_NOT_AVAILABLE). Nothing is stored but the audit entry of who downloaded what.
 */
export async function openDownload(ports: DocumentPorts, actor: Actor, documentId: string): Promise<{ document: Document; download: PresignedRequest }> {
  const org = actor.principal.organizationId;
  const document = await ports.store.getDocument(org, documentId);
  if (!document) throw new NotFoundError(`Document ${documentId}`);
  assertAvailable(document);
  const at = ports.now();
  const download = await ports.objects.presignDownload(objectKeys.document(org, documentId), {
    filename: document.name,
    contentType: document.contentType,
    expiresIn: ports.policy.downloadSeconds,
    signedAt: new Date(Date.parse(seconds(at))),
  });
  ports.store.recordAudit(audit(ports, actor, at.toISOString(), { action: 'document.download_session_opened', entity: { type: 'document', id: documentId }, after: { expiresAt: download.expiresAt } }));
  return { document, download };
}

function assertAvailable(document: Document): void {
  if (document.state !== 'AVAILABLE') {
    throw new AppError(PROBLEMS.DOCUMENT_NOT_AVAILABLE, `Document ${document.id} is ${document.state}: only AVAILABLE documents can be downloaded, linked or attached.`);
  }
}

/**
 * Archives a document (POST /documents/{id}/archive): it leaves the default list, stays
 * readable and downloadable by id; nothing is deleted. If-Match must be its ETag (412).
 */
export async function archiveDocument(ports: DocumentPorts, actor: Actor, id: string, ifMatch: string): Promise<Document> {
  const current = await ports.store.getDocument(actor.principal.organizationId, id);
  if (!current) throw new NotFoundError(`Document ${id}`);
  assertEtag(ifMatch, documentEtag(current));
  if (current.archived) return current;
  const now = ports.now().toISOString();
  const next: Document = revised(current, now, { archived: true, archivedAt: now });
  ports.store.saveDocument({ before: current, after: next, audit: audit(ports, actor, now, { action: 'document.archived', entity: { type: 'document', id }, changedAttributes: ['archived'] }) });
  return next;
}

/**
 * Links a document to a location (PUT /locations/{locationId}/documents/{documentId}): a link,
 * not a copy. Both must exist in this organization (404). Linking a linked document changes
 * nothing (also once the location or the document is archived: existing links stay). A new
 * link needs a location and a document that are not archived (422, parameter locationId /
 * documentId, each one that is: nothing new points at an archived record) and an AVAILABLE
 * document (409). The transaction checks them again: a location or document archived
 * meanwhile runs the use case again, which then answers 422.
 * If-Match, when sent, must be the link's ETag: a link that is not there has none, so it fails
 * (412) and nothing is linked (RFC 9110 13.1.1).
 */
export async function linkDocument(ports: DocumentPorts, actor: Actor, locationId: string, documentId: string, ifMatch?: string): Promise<{ link: LocationDocument; document: Document }> {
  const org = actor.principal.organizationId;
  const location = await ports.store.getLocation(org, locationId);
  if (!location) throw new NotFoundError(`Location ${locationId}`);
  const document = await ports.store.getDocument(org, documentId);
  if (!document) throw new NotFoundError(`Document ${documentId}`);
  const existing = await ports.store.getLink(org, locationId, documentId);
  assertSentEtag(ifMatch, existing && linkEtag(existing));
  if (existing) return { link: existing, document };
  const archived: FieldError[] = [
    ...(location.archived ? [{ parameter: 'locationId', detail: `Location ${locationId} is archived: a document cannot be linked to an archived location; restore it first (PATCH archived: false).` }] : []),
    ...(document.archived ? [{ parameter: 'documentId', detail: `Document ${documentId} is archived: an archived document cannot be linked.` }] : []),
  ];
  if (archived.length > 0) throw new ValidationError(archived);
  assertAvailable(document);
  const now = ports.now().toISOString();
  const link: LocationDocument = { organizationId: org, locationId, documentId, linkedAt: now };
  ports.store.saveLink({ kind: 'link', link, audit: audit(ports, actor, now, { action: 'document.linked_to_location', entity: { type: 'document', id: documentId }, references: { locationId } }) });
  return { link, document };
}

/**
 * Unlinks a document from a location (DELETE): the document itself stays. 404 when not linked,
 * with or without If-Match (RFC 9110 13.2.1: preconditions are evaluated only where the request
 * could otherwise succeed); If-Match, when sent, must be the link's ETag (412).
 */
export async function unlinkDocument(ports: DocumentPorts, actor: Actor, locationId: string, documentId: string, ifMatch?: string): Promise<void> {
  const org = actor.principal.organizationId;
  const link = await ports.store.getLink(org, locationId, documentId);
  if (!link) throw new NotFoundError(`Document ${documentId} at location ${locationId}`);
  assertSentEtag(ifMatch, linkEtag(link));
  const now = ports.now().toISOString();
  ports.store.saveLink({ kind: 'unlink', link, audit: audit(ports, actor, now, { action: 'document.unlinked_from_location', entity: { type: 'document', id: documentId }, references: { locationId } }) });
}
