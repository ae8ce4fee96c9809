import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/**
 * The embedded S3-compatible server (`s3rver`, in this process) of `npm start` and of the
 * tests: the same adapter (services/shared/aws/s3.ts) signs URLs for it as for S3, and
 * `curl --upload-file` to a presigned URL works. It is NO access control: a request without
 * any signature is served (listing, reading and overwriting any object, AVAILABLE documents'
 * bytes included), and of a presigned URL it checks only the access key id and the expiry,
 * never the signature (so not the signed size, type or checksum either). AWS S3 enforces all
 * of that; docs/areas/documents.md says what this means for the local runtime.
 */
/** The documents bucket of `npm start` and the tests. */
export const LOCAL_DOCUMENTS_BUCKET = 'wfm-local-documents';
/** The export files bucket of `npm start` and the tests. */
export const LOCAL_REPORTS_BUCKET = 'wfm-local-reports';

export interface S3Local {
  /** `http://<host>:<port>`: S3_ENDPOINT for the adapter. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

export interface S3LocalOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** @default 127.0.0.1 */
  readonly host?: string;
  /** Where objects live; omitted: a temporary folder, removed on stop. */
  readonly dataDir?: string;
  /** Buckets to create if missing (names of 3+ characters). */
  readonly buckets: readonly string[];
}

export async function startS3Local(options: S3LocalOptions): Promise<S3Local> {
  const temporary = options.dataDir === undefined;
  const directory = options.dataDir ?? mkdtempSync(join(tmpdir(), 'wfm-s3-'));
  mkdirSync(directory, { recursive: true });
  const host = options.host ?? '127.0.0.1';
  const server = new S3rver({ address: host, port: options.port, silent: true, directory, configureBuckets: options.buckets.map((name) => ({ name })) });
  const address = await server.run();
  return {
    endpoint: `http://${host}:${address.port}`,
    async stop() {
      // Clients keep connections alive; close them so that close() returns now.
      server.httpServer?.closeAllConnections();
      await server.close().catch(() => undefined);
      if (temporary) rmSync(directory, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
