import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

import type { FileStore } from './domain-files';

/**
 * Where export files live: the S3 bucket REPORTS_BUCKET in AWS, a folder locally
 * (LOCAL_FILE_STORE_DIR, default .local/files). Keys are `reports/<org>/<manifestId>.<ext>`.
 */
export type { FileStore };

let s3: S3Client | undefined;

export function fileStore(): FileStore {
  const bucket = process.env.REPORTS_BUCKET;
  if (bucket) {
    s3 ??= new S3Client({});
    const client = s3;
    return {
      async put(key, body, contentType) {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
      },
      async get(key) {
        try {
          const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
          return out.Body ? Buffer.from(await out.Body.transformToByteArray()) : undefined;
        } catch (error) {
          if (error instanceof NoSuchKey) return undefined;
          throw error;
        }
      },
    };
  }
  const root = resolve(process.env.LOCAL_FILE_STORE_DIR ?? join('.local', 'files'));
  const pathOf = (key: string) => {
    const path = resolve(root, key);
    if (!path.startsWith(`${root}/`)) throw new Error('File key escapes the file store.');
    return path;
  };
  return {
    async put(key, body) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, body);
    },
    async get(key) {
      try {
        return await readFile(pathOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  };
}
