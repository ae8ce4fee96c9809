import { BUCKET_ENV, bucketFromEnv, getObject, presignGet, putObject, type PresignedRequest } from '../shared/aws/s3';
import type { FileStore } from './domain-files';

/**
 * Where export files live: the private bucket REPORTS_BUCKET, in AWS and locally (the embedded
 * S3 server of `npm start` and the tests). Keys are `reports/<org>/<manifestId>.<ext>`. The
 * API never returns the bytes itself: a download is a presigned GET of a few minutes.
 */
export type { FileStore };

/** How long a download URL works. */
export const DOWNLOAD_URL_SECONDS = 5 * 60;

export function fileStore(): FileStore {
  const bucket = () => bucketFromEnv(BUCKET_ENV.reports);
  return {
    put: (key, body, contentType) => putObject(bucket(), key, body, contentType),
    get: (key) => getObject(bucket(), key),
  };
}

/** A presigned GET of an export file, answering with its file name and content type. */
export const presignedDownload = (key: string, file: { readonly filename: string; readonly contentType: string }): Promise<PresignedRequest> =>
  presignGet(bucketFromEnv(BUCKET_ENV.reports), key, { expiresIn: DOWNLOAD_URL_SECONDS, filename: file.filename, contentType: file.contentType });
