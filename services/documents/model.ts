import * as z from 'zod';
import { archivableFields } from '../shared/schemas/stored';

/**
 * The entities of the documents area as stored (docs/areas/documents.md lists the access
 * patterns). Keys:
 *   document        PK ORG#<org>#DOC#<id>               SK DOC
 *   upload session  PK ORG#<org>#UPLOAD#<id>            SK UPLOAD     (TTL: expiresAt, a day after validUntil)
 *   location link   PK ORG#<org>#LOC#<loc>#DOCS         SK DOC#<documentId>
 *   GSI1 ORG#<org>#DOCS          / <createdAt>#<id>     active documents, oldest first
 *   GSI1 ORG#<org>#DOCS#ARCHIVED / <createdAt>#<id>     archived documents
 * Objects in the documents bucket: `uploads/<org>/<sessionId>` (presigned PUT target,
 * expires by lifecycle) and `documents/<org>/<documentId>` (verified bytes only).
 */

export const DOCUMENT_STATES = ['PENDING', 'AVAILABLE', 'REJECTED'] as const;
export type DocumentState = (typeof DOCUMENT_STATES)[number];
export const OWNER_TYPES = ['ORGANIZATION', 'LOCATION', 'EMPLOYEE'] as const;
export type OwnerType = (typeof OWNER_TYPES)[number];
export const REJECTION_REASONS = ['SIZE_MISMATCH', 'CHECKSUM_MISMATCH', 'CONTENT_TYPE_MISMATCH'] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

export const documentSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    name: z.string(),
    contentType: z.string(),
    size: z.number().int(),
    /** SHA-256 of the declared bytes, lower-case hex. */
    sha256: z.string(),
    ownerType: z.enum(OWNER_TYPES),
    ownerId: z.string().nullable(),
    tags: z.array(z.string()).readonly(),
    state: z.enum(DOCUMENT_STATES),
    rejectionReason: z.enum(REJECTION_REASONS).nullable().default(null),
    uploadSessionId: z.string(),
    ...archivableFields,
  })
  .readonly();
export type Document = z.output<typeof documentSchema>;

export const uploadSessionSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    documentId: z.string(),
    state: z.enum(['OPEN', 'COMPLETED']),
    /** ISO instant after which the upload URL and the completion are refused. */
    validUntil: z.string(),
    /** TTL (epoch seconds): the session item disappears a day after validUntil. */
    expiresAt: z.number().int(),
    version: z.number().int(),
    createdAt: z.string(),
    completedAt: z.string().nullable().default(null),
  })
  .readonly();
export type UploadSession = z.output<typeof uploadSessionSchema>;

export const locationDocumentSchema = z
  .object({
    organizationId: z.string(),
    locationId: z.string(),
    documentId: z.string(),
    linkedAt: z.string(),
  })
  .readonly();
export type LocationDocument = z.output<typeof locationDocumentSchema>;

const linkPartition = (org: string, locationId: string) => `ORG#${org}#LOC#${locationId}#DOCS`;

export const documentKeys = {
  document: (org: string, id: string) => ({ PK: `ORG#${org}#DOC#${id}`, SK: 'DOC' }),
  byOrganization: (org: string, archived: boolean) => (archived ? `ORG#${org}#DOCS#ARCHIVED` : `ORG#${org}#DOCS`),
  session: (org: string, id: string) => ({ PK: `ORG#${org}#UPLOAD#${id}`, SK: 'UPLOAD' }),
  linkPartition,
  link: (org: string, locationId: string, documentId: string) => ({ PK: linkPartition(org, locationId), SK: `DOC#${documentId}` }),
};

/** Object keys in the documents bucket: the organization is always part of the key. */
export const objectKeys = {
  upload: (org: string, sessionId: string) => `uploads/${org}/${sessionId}`,
  document: (org: string, documentId: string) => `documents/${org}/${documentId}`,
};

export const documentToItem = (d: Document): Record<string, unknown> => ({
  ...documentKeys.document(d.organizationId, d.id),
  GSI1PK: documentKeys.byOrganization(d.organizationId, d.archived),
  GSI1SK: `${d.createdAt}#${d.id}`,
  itemType: 'Document',
  ...d,
});
export const sessionToItem = (s: UploadSession): Record<string, unknown> => ({ ...documentKeys.session(s.organizationId, s.id), itemType: 'UploadSession', ...s });
export const linkToItem = (l: LocationDocument): Record<string, unknown> => ({ ...documentKeys.link(l.organizationId, l.locationId, l.documentId), itemType: 'LocationDocument', ...l });

export const documentFromItem = (item: Record<string, unknown>): Document => documentSchema.parse(item);
export const sessionFromItem = (item: Record<string, unknown>): UploadSession => uploadSessionSchema.parse(item);
export const linkFromItem = (item: Record<string, unknown>): LocationDocument => locationDocumentSchema.parse(item);
