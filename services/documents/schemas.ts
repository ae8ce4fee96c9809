import * as z from 'zod';
import { booleanParameter, cursorParameter, presignedRequest, requiredName, utc } from '../shared/schemas/fields';
import { limitParameter } from '../shared/http/query';
import { uuid } from '../shared/time';
import { responseOf } from '../shared/schemas/response';
import { DOCUMENT_STATES, OWNER_TYPES, REJECTION_REASONS, type Document, type LocationDocument } from './model';

/** Request and response shapes of documents, upload and download sessions, and location links. */

/** The largest document an upload session accepts (25 MiB): the completion check reads it through once. */
export const MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;

/**
 * A media type and a SHA-256 in hex as the client may send them: either case (media types are
 * case-insensitive, and hex digits are hex in upper case too). The body lower-cases both before
 * the check, and the published patterns (OpenAPI, no regex flags there) admit what is accepted.
 */
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,62}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
const SHA256_HEX = /^[0-9A-Fa-f]{64}$/;
const TAG = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,49}$/u;
/** What a file name must not hold beyond what no name holds (requiredName: control and bidi formatting characters): slashes. */
const SLASH = /[/\\]/;

const owner = z
  .discriminatedUnion(
    'type',
    [
      z.object({ type: z.literal('ORGANIZATION') }).strict(),
      z.object({ type: z.literal('LOCATION'), locationId: uuid() }).strict(),
      z.object({ type: z.literal('EMPLOYEE'), employeeId: uuid() }).strict(),
    ],
    { error: 'owner.type must be ORGANIZATION, LOCATION (with locationId) or EMPLOYEE (with employeeId).' },
  )
  .meta({ description: 'Who the document belongs to: the organization, one location or one employee (of this organization).' });

export const createUploadSessionBody = z
  .object({
    name: requiredName('name', 255)
      .refine((n) => !SLASH.test(n), { message: 'name must not contain slashes (/ or \\).' })
      .meta({ description: 'The file name offered on download: no control characters (C0, DEL, C1), no bidirectional embedding, override or isolate characters (U+202A..U+202E, U+2066..U+2069) and no slashes.' }),
    contentType: z
      .string({ error: 'contentType is required: a media type such as application/pdf.' })
      .trim()
      .toLowerCase()
      .regex(MEDIA_TYPE, { message: 'contentType must be a media type such as application/pdf (no parameters).' })
      .meta({ description: 'The Content-Type of the file, one of the allowed types; case-insensitive. It is stored and signed into the URL lower-cased: the upload sends it exactly as `upload.headers` gives it.', examples: ['application/pdf'] }),
    size: z
      .number({ error: 'size must be a whole number of bytes.' })
      .int({ message: 'size must be a whole number of bytes.' })
      .min(1, { message: 'size must be at least 1 byte.' })
      .max(MAX_DOCUMENT_BYTES, { message: `size is at most ${MAX_DOCUMENT_BYTES} bytes (25 MiB).` })
      .meta({ description: `The exact size in bytes (signed into the URL), 1..${MAX_DOCUMENT_BYTES}.` }),
    sha256: z
      .string({ error: 'sha256 is required: the SHA-256 of the file, 64 hex digits.' })
      .trim()
      .toLowerCase()
      .regex(SHA256_HEX, { message: 'sha256 must be the SHA-256 of the file as 64 hex digits (e.g. the output of sha256sum).' })
      .meta({ description: 'The SHA-256 of the file as 64 hex digits, either case (stored lower-cased).', examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'] }),
    owner: owner.optional(),
    tags: z
      .array(z.string().trim().regex(TAG, { message: 'A tag is 1 to 50 letters, digits, spaces, dots, dashes or underscores.' }), { error: 'tags must be an array of strings.' })
      .max(20, { message: 'At most 20 tags.' })
      .optional(),
  })
  .strict();

export const documentListQuery = z
  .object({
    archived: booleanParameter('archived', '`true` lists archived documents instead of active ones; default `false`.'),
    limit: limitParameter(),
    cursor: cursorParameter(),
  })
  .strict();

export const linkListQuery = z.object({ limit: limitParameter(), cursor: cursorParameter() }).strict();

/** Commands without input accept an absent body or `{}`. */
export const emptyBody = z.object({}).strict();

export const documentResponseSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    contentType: z.string(),
    size: z.number().int(),
    sha256: z.string().meta({ description: 'SHA-256 of the bytes, lower-case hex.' }),
    owner: z.object({ type: z.enum(OWNER_TYPES), id: z.uuid().nullable().meta({ description: 'The location or employee; null for the organization.' }) }),
    tags: z.array(z.string()),
    state: z.enum(DOCUMENT_STATES).meta({ description: 'PENDING until the upload session completes; then AVAILABLE (bytes verified) or REJECTED (they did not match).' }),
    rejectionReason: z.enum(REJECTION_REASONS).nullable(),
    archived: z.boolean(),
    archivedAt: utc().nullable(),
    version: z.number().int(),
    createdAt: utc(),
    updatedAt: utc(),
  })
  .meta({ id: 'Document' });

export const uploadSessionResponseSchema = z
  .object({
    id: z.uuid(),
    documentId: z.uuid(),
    state: z.enum(['OPEN', 'COMPLETED']),
    expiresAt: utc(),
    upload: presignedRequest('PUT').meta({ description: 'Send the file with one PUT to `url` with exactly these headers before `expiresAt`.' }),
    document: documentResponseSchema,
  })
  .meta({ id: 'UploadSession' });

export const completedUploadResponseSchema = z
  .object({ id: z.uuid(), state: z.literal('COMPLETED'), completedAt: utc(), document: documentResponseSchema })
  .meta({ id: 'CompletedUploadSession' });

export const downloadSessionResponseSchema = z
  .object({ documentId: z.uuid(), download: presignedRequest('GET') })
  .meta({ id: 'DownloadSession', description: 'A presigned GET of the document, valid for a few minutes.' });

export const locationDocumentResponseSchema = z
  .object({ locationId: z.uuid(), documentId: z.uuid(), linkedAt: utc(), document: documentResponseSchema })
  .meta({ id: 'LocationDocument', description: 'A link from a location to a document: the document is not copied.' });

export function documentResponse(d: Document): z.infer<typeof documentResponseSchema> {
  return responseOf(documentResponseSchema, d, {
    owner: { type: d.ownerType, id: d.ownerId },
  });
}

export const locationDocumentResponse = (l: LocationDocument, d: Document): z.infer<typeof locationDocumentResponseSchema> => responseOf(locationDocumentResponseSchema, l, {
  document: documentResponse(d),
});
