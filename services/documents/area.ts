import { defineArea } from '../shared/area';
import { createRoute, listRoute, readRoute } from '../shared/route-shapes';
import { READ_WRITE } from '../shared/permissions';
import { pageSchema } from '../shared/schemas/fields';
import { completedUploadResponseSchema, createUploadSessionBody, documentListQuery, documentResponseSchema, downloadSessionResponseSchema, emptyBody, linkListQuery, locationDocumentResponseSchema, uploadSessionResponseSchema } from './schemas';
import { PROBLEMS } from './problems';

/** Documents: metadata here, bytes in S3 through presigned upload and download sessions; location links. */
export const documentsArea = defineArea({
  name: 'documents',
  api: 'public',
  description: 'Documents: presigned upload sessions with size and checksum verification, presigned download sessions, location document links.',
  // The table, and objects of the documents bucket by prefix: presigned PUTs land in uploads/
  // (PutObject signs them; GetObject reads them back for the check), verified bytes are copied
  // to documents/ (GetObject for the copy source and presigned GETs, PutObject for the copy).
  permissions: {
    table: READ_WRITE,
    cursorSecret: true,
    restrictedDataKey: false,
    documentsBucket: [
      { prefix: 'uploads/', actions: ['s3:PutObject', 's3:GetObject'] },
      { prefix: 'documents/', actions: ['s3:PutObject', 's3:GetObject'] },
    ],
  },
  problems: PROBLEMS,
  demoSeed: true,
  auditEntityTypes: ['document'],
  schemas: {
    Document: documentResponseSchema,
    DocumentList: pageSchema(documentResponseSchema),
    UploadSession: uploadSessionResponseSchema,
    CompletedUploadSession: completedUploadResponseSchema,
    DownloadSession: downloadSessionResponseSchema,
    LocationDocument: locationDocumentResponseSchema,
    LocationDocumentList: pageSchema(locationDocumentResponseSchema),
  },
  routes: {
    listDocuments: listRoute({
      path: '/documents',
      scopes: ['documents:read'],
      summary: 'List documents',
      description: 'Active documents (or archived ones with `archived=true`), oldest first (createdAt, then id), in every state.',
      query: documentListQuery,
      schema: pageSchema(documentResponseSchema),
      returns: 'A page of documents.',
    }),
    createUploadSession: createRoute({
      path: '/documents/upload-sessions',
      scopes: ['documents:write'],
      summary: 'Open an upload session',
      description:
        'Creates a PENDING document and an upload session valid 15 minutes, with a presigned PUT that accepts exactly the declared size, content type and SHA-256 (all three signed). Send the file with one PUT to `upload.url` with exactly `upload.headers`, then complete the session. Bytes never pass through this API. The content type must be one of the allowed types (422); a location or employee owner must exist in this organization, and a location owner must not be archived (422).',
      body: createUploadSessionBody,
      schema: uploadSessionResponseSchema,
      returns: 'The session, its presigned upload and the PENDING document.',
      noStore: true,
    }),
    completeUploadSession: {
      method: 'POST',
      path: '/documents/upload-sessions/{sessionId}/complete',
      scopes: ['documents:write'],
      summary: 'Complete an upload session',
      description:
        'Reads the uploaded bytes back and checks size, SHA-256 and content type against the session. Matching bytes make the document AVAILABLE; anything else makes it REJECTED with `rejectionReason` (never AVAILABLE), and the session is completed either way. Nothing uploaded yet is 409 UPLOAD_NOT_RECEIVED (the session stays open); an expired session is 409 UPLOAD_SESSION_EXPIRED, a completed one 409 UPLOAD_SESSION_COMPLETED.',
      body: emptyBody,
      bodyOptional: true,
      idempotencyKey: 'required',
      success: { status: 200, description: 'The completed session and its document (AVAILABLE or REJECTED).', schema: completedUploadResponseSchema, headers: ['ETag'] },
      problems: [PROBLEMS.UPLOAD_SESSION_COMPLETED, PROBLEMS.UPLOAD_SESSION_EXPIRED, PROBLEMS.UPLOAD_NOT_RECEIVED],
    },
    getDocument: readRoute({
      path: '/documents/{documentId}',
      scopes: ['documents:read'],
      summary: 'Get one document',
      description: 'The metadata of one document, archived or not. The bytes are only reachable through a download session.',
      schema: documentResponseSchema,
      returns: 'The document.',
    }),
    archiveDocument: {
      method: 'POST',
      path: '/documents/{documentId}/archive',
      scopes: ['documents:write'],
      summary: 'Archive a document',
      description: 'Archives the document: it leaves the default list and stays readable and downloadable; its existing location links and message attachments stay, but it cannot be linked or attached anew (422). Archiving an archived document changes nothing.',
      body: emptyBody,
      bodyOptional: true,
      ifMatch: 'required',
      idempotencyKey: 'optional',
      success: { status: 200, description: 'The archived document.', schema: documentResponseSchema, headers: ['ETag'] },
      problems: [],
    },
    createDownloadSession: {
      method: 'POST',
      path: '/documents/{documentId}/download-sessions',
      scopes: ['documents:download'],
      summary: 'Open a download session',
      description:
        'A presigned GET of an AVAILABLE document, valid 5 minutes, answering with the document\'s name (Content-Disposition: attachment) and content type. Each call signs a new URL and is audited; a PENDING or REJECTED document is 409 DOCUMENT_NOT_AVAILABLE. Needs documents:download (documents:read alone does not reach the bytes).',
      body: emptyBody,
      bodyOptional: true,
      success: { status: 200, description: 'The presigned download.', schema: downloadSessionResponseSchema },
      noStore: true,
      problems: [PROBLEMS.DOCUMENT_NOT_AVAILABLE],
    },
    listLocationDocuments: listRoute({
      path: '/locations/{locationId}/documents',
      scopes: ['documents:read'],
      summary: 'Documents linked to a location',
      description: 'The links of a location, by document id, each with the document. Links, not copies: a document may be linked to many locations.',
      query: linkListQuery,
      schema: pageSchema(locationDocumentResponseSchema),
      returns: 'A page of location documents.',
    }),
    linkLocationDocument: {
      method: 'PUT',
      path: '/locations/{locationId}/documents/{documentId}',
      scopes: ['documents:write'],
      summary: 'Link a document to a location',
      description: 'Links an AVAILABLE document to a location (409 DOCUMENT_NOT_AVAILABLE otherwise); an archived document is 422 (parameter documentId), an archived location 422 (parameter locationId; restore it with PATCH `archived: false`). Linking a linked document changes nothing, also once the document or the location is archived. Both must belong to this organization (404). If-Match (the link\'s ETag, as this route answers it) is optional and honoured when sent: a stale one, or any If-Match when the document is not linked yet, is 412 ETAG_MISMATCH. The body may be absent or `{}`.',
      body: emptyBody,
      bodyOptional: true,
      idempotencyKey: 'optional',
      ifMatch: 'optional',
      success: { status: 200, description: 'The link.', schema: locationDocumentResponseSchema, headers: ['ETag'] },
      problems: [PROBLEMS.DOCUMENT_NOT_AVAILABLE],
    },
    unlinkLocationDocument: {
      method: 'DELETE',
      path: '/locations/{locationId}/documents/{documentId}',
      scopes: ['documents:write'],
      summary: 'Unlink a document from a location',
      description: "Removes the link; the document itself stays. If-Match (the link's ETag, as PUT answers it) is optional and honoured when sent (412 ETAG_MISMATCH). A link that is not there is 404, with or without If-Match.",
      idempotencyKey: 'optional',
      ifMatch: 'optional',
      success: { status: 204, description: 'Unlinked.' },
      problems: [],
    },
  },
});
