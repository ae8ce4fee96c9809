import { BUCKET_ENV, bucketFromEnv, copyObject, measureObject, presignGet, presignPut } from '../shared/aws/s3';
import type { DocumentObjects, DocumentPolicy } from './domain';
import { MAX_DOCUMENT_BYTES } from './schemas';

/** The documents bucket port on the shared S3 adapter (DOCUMENTS_BUCKET; locally the embedded s3rver). */
export function documentObjects(): DocumentObjects {
  const bucket = () => bucketFromEnv(BUCKET_ENV.documents);
  return {
    presignUpload: (key, i) => presignPut(bucket(), key, { contentType: i.contentType, contentLength: i.size, checksumSha256: i.sha256Base64, expiresIn: i.expiresIn, signedAt: i.signedAt }),
    measure: (key, maxBytes) => measureObject(bucket(), key, maxBytes),
    promote: (from, to) => copyObject(bucket(), from, to),
    presignDownload: (key, i) => presignGet(bucket(), key, { filename: i.filename, contentType: i.contentType, expiresIn: i.expiresIn, signedAt: i.signedAt }),
  };
}

/** The allowed upload types unless DOCUMENT_CONTENT_TYPES (comma-separated) says otherwise. */
export const DEFAULT_CONTENT_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'text/plain',
  'text/csv',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
] as const;

/** Upload sessions live 15 minutes, download URLs 5. */
export function documentPolicy(): DocumentPolicy {
  const configured = process.env.DOCUMENT_CONTENT_TYPES?.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
  return { allowedContentTypes: configured && configured.length > 0 ? configured : [...DEFAULT_CONTENT_TYPES], maxBytes: MAX_DOCUMENT_BYTES, uploadSeconds: 900, downloadSeconds: 300 };
}
