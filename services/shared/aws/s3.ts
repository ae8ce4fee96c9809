import { createHash } from 'node:crypto';
import { traceClient } from '../observability';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { requiredEnv } from '../config';
import { translateSdkError } from '../ddb/client';

/**
 * The shared S3 adapter: presigned uploads and downloads, and the reads a completion check
 * needs. Bytes never pass through a Lambda response: callers hand out the URLs this module
 * signs. In AWS the client is the function's role; locally (S3_ENDPOINT set) it is the
 * embedded s3rver of `npm start` and the tests, path-style, with its fixed local key pair.
 *
 * The URLs are secrets while they live: never log them, never put them in an audit entry.
 */
export const S3_ENDPOINT_ENV = 'S3_ENDPOINT';

/** The environment variables that name the buckets (the stack sets them on the functions granted them). */
export const BUCKET_ENV = { documents: 'DOCUMENTS_BUCKET', reports: 'REPORTS_BUCKET' } as const;

/** s3rver's built-in key pair: it knows only this access key id (it does not verify v4 signatures). */
const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * The S3 client and the presigner, loaded on first use: only some routes of an area touch S3
 * (documents: the upload and download sessions; reports: a file's download), and the stack
 * bundles with code splitting (lib/constructs/area-function.ts), so these ~150 KB are a chunk
 * of their own that a cold start of the other routes never reads.
 */
let sdk: Promise<readonly [typeof import('@aws-sdk/client-s3'), typeof import('@aws-sdk/s3-request-presigner')]> | undefined;
const s3Sdk = () => (sdk ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')]));

let client: S3Client | undefined;
let clientEndpoint: string | undefined;
const decorators: ((client: S3Client) => void)[] = [];

/**
 * Applies `decorate` to the process's S3 client, and to every one created after it (the local
 * runtime's IAM guard, services/local/permissions.ts). Never used in a Lambda function.
 */
export function decorateS3Clients(decorate: (client: S3Client) => void): void {
  if (decorators.includes(decorate)) return;
  decorators.push(decorate);
  if (client) decorate(client);
}

/** The process's S3 client, from S3_ENDPOINT (local) or the Lambda role (AWS); created once per endpoint. */
export async function s3Client(): Promise<S3Client> {
  const [{ S3Client }] = await s3Sdk();
  const endpoint = process.env[S3_ENDPOINT_ENV] || undefined;
  if (client && clientEndpoint === endpoint) return client;
  client?.destroy();
  clientEndpoint = endpoint;
  client = traceClient(new S3Client({
    ...(endpoint ? { endpoint, forcePathStyle: true, region: process.env.AWS_REGION ?? 'eu-central-1', credentials: LOCAL_CREDENTIALS } : {}),
    // Checksums only where S3 requires them: otherwise the SDK would sign a CRC32 of the empty
    // presign-time body into upload URLs, and no real upload could match it.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
  }));
  for (const decorate of decorators) decorate(client);
  return client;
}

/** A bucket name from the environment variable the stack sets (e.g. DOCUMENTS_BUCKET). */
export const bucketFromEnv = (variable: string): string => requiredEnv(variable);

export interface PresignPutOptions {
  /** Seconds the URL is valid (1..604800). */
  readonly expiresIn: number;
  /** The exact Content-Type the upload must send (signed). */
  readonly contentType: string;
  /** The exact Content-Length the upload must send (signed). */
  readonly contentLength: number;
  /** SHA-256 of the bytes, base64 (signed as `x-amz-checksum-sha256`; S3 rejects other bytes). */
  readonly checksumSha256: string;
  /** @default now - the signing time; the URL expires `expiresIn` seconds after it */
  readonly signedAt?: Date;
}

export interface PresignedRequest {
  readonly method: 'PUT' | 'GET';
  readonly url: string;
  /** Headers the request must send exactly as given (they are signed). */
  readonly headers: Readonly<Record<string, string>>;
  /** ISO-8601 UTC, second precision: when S3 stops accepting the URL. */
  readonly expiresAt: string;
}

const expiry = (signedAt: Date, expiresIn: number): string => new Date(Math.floor(signedAt.getTime() / 1000) * 1000 + expiresIn * 1000).toISOString().replace('.000Z', 'Z');

/**
 * A presigned PUT of one object with its size, content type and SHA-256 in the signature:
 * the headers are signed (`X-Amz-SignedHeaders` lists them), so a request with any other
 * value fails the signature in S3, and S3 itself rejects bytes whose SHA-256 differs.
 * (A local server may check neither: a completion check must still verify the bytes.)
 */
export async function presignPut(bucket: string, key: string, options: PresignPutOptions): Promise<PresignedRequest> {
  const signedAt = options.signedAt ?? new Date();
  const [{ PutObjectCommand }, { getSignedUrl }] = await s3Sdk();
  const url = await getSignedUrl(
    await s3Client(),
    new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: options.contentType, ContentLength: options.contentLength, ChecksumSHA256: options.checksumSha256 }),
    {
      expiresIn: options.expiresIn,
      signingDate: signedAt,
      // Sent as headers, not hoisted into the query: the client must send exactly these.
      unhoistableHeaders: new Set(['x-amz-checksum-sha256']),
      signableHeaders: new Set(['content-type', 'content-length']),
    },
  );
  return {
    method: 'PUT',
    url,
    headers: { 'Content-Type': options.contentType, 'Content-Length': String(options.contentLength), 'x-amz-checksum-sha256': options.checksumSha256 },
    expiresAt: expiry(signedAt, options.expiresIn),
  };
}

export interface PresignGetOptions {
  /** Seconds the URL is valid. */
  readonly expiresIn: number;
  /** Offered as the download's file name (Content-Disposition: attachment). */
  readonly filename?: string;
  /** The Content-Type the response carries. */
  readonly contentType?: string;
  /** @default now */
  readonly signedAt?: Date;
}

/** `attachment; filename="<ascii>"; filename*=UTF-8''<encoded>` (RFC 6266): quotes and controls never reach the header. */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** A presigned GET of one object; the response carries the given file name and content type. */
export async function presignGet(bucket: string, key: string, options: PresignGetOptions): Promise<PresignedRequest> {
  const signedAt = options.signedAt ?? new Date();
  const [{ GetObjectCommand }, { getSignedUrl }] = await s3Sdk();
  const url = await getSignedUrl(
    await s3Client(),
    new GetObjectCommand({
      Bucket: bucket,
      Key: key,
      ...(options.filename !== undefined ? { ResponseContentDisposition: attachmentDisposition(options.filename) } : {}),
      ...(options.contentType !== undefined ? { ResponseContentType: options.contentType } : {}),
    }),
    { expiresIn: options.expiresIn, signingDate: signedAt },
  );
  return { method: 'GET', url, headers: {}, expiresAt: expiry(signedAt, options.expiresIn) };
}

export interface StoredObject {
  readonly size: number;
  readonly contentType: string | undefined;
}

/** No such object: the SDK's NoSuchKey (GET) or NotFound (HEAD, no body to name it), or any 404. */
const isMissing = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/** Runs `call` with the lazily loaded SDK module and the process's client. */
async function withS3<T>(call: (s3: typeof import('@aws-sdk/client-s3'), client: S3Client) => Promise<T>): Promise<T> {
  const [s3] = await s3Sdk();
  return call(s3, await s3Client());
}

/** Size and content type of an object; undefined when there is none. */
export async function headObject(bucket: string, key: string): Promise<StoredObject | undefined> {
  try {
    const out = await withS3((s3, c) => c.send(new s3.HeadObjectCommand({ Bucket: bucket, Key: key })));
    return { size: out.ContentLength ?? 0, contentType: out.ContentType };
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw translateSdkError(error);
  }
}

export interface MeasuredObject extends StoredObject {
  /** SHA-256 of the stored bytes, base64. */
  readonly sha256: string;
}

/**
 * Reads an object through and measures it: its size and the SHA-256 of its bytes, computed
 * here (whatever the server claims). Reading stops once more than `maxBytes` arrived: the
 * size then says so and the hash is of the prefix. Undefined when there is no object.
 */
export async function measureObject(bucket: string, key: string, maxBytes: number): Promise<MeasuredObject | undefined> {
  try {
    const out = await withS3((s3, c) => c.send(new s3.GetObjectCommand({ Bucket: bucket, Key: key })));
    const hash = createHash('sha256');
    let size = 0;
    const body = out.Body as Readable | undefined;
    if (body) {
      for await (const chunk of body) {
        const bytes = chunk as Buffer;
        size += bytes.length;
        if (size > maxBytes) {
          body.destroy();
          break;
        }
        hash.update(bytes);
      }
    }
    return { size, contentType: out.ContentType, sha256: hash.digest('base64') };
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw translateSdkError(error);
  }
}

/** Copies an object within a bucket (server-side: the bytes never pass through here). */
export async function copyObject(bucket: string, fromKey: string, toKey: string): Promise<void> {
  try {
    await withS3((s3, c) => c.send(new s3.CopyObjectCommand({ Bucket: bucket, Key: toKey, CopySource: `${bucket}/${fromKey.split('/').map(encodeURIComponent).join('/')}` })));
  } catch (error) {
    throw translateSdkError(error);
  }
}

/** Deletes an object (no error when there is none). */
export async function deleteObject(bucket: string, key: string): Promise<void> {
  try {
    await withS3((s3, c) => c.send(new s3.DeleteObjectCommand({ Bucket: bucket, Key: key })));
  } catch (error) {
    throw translateSdkError(error);
  }
}

/** Writes an object (export files: written once by the worker, then only read through presigned GETs). */
export async function putObject(bucket: string, key: string, body: Buffer, contentType: string): Promise<void> {
  try {
    await withS3((s3, c) => c.send(new s3.PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType })));
  } catch (error) {
    throw translateSdkError(error);
  }
}

/** The bytes of an object, or undefined when there is none. */
export async function getObject(bucket: string, key: string): Promise<Buffer | undefined> {
  try {
    const out = await withS3((s3, c) => c.send(new s3.GetObjectCommand({ Bucket: bucket, Key: key })));
    return out.Body ? Buffer.from(await out.Body.transformToByteArray()) : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw translateSdkError(error);
  }
}
