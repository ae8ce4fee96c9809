import { createHash } from 'node:crypto';
import { LOCAL_DOCUMENTS_BUCKET } from '../../services/local/s3';
import { attachmentDisposition, measureObject, presignGet, presignPut } from '../../services/shared/aws/s3';

/** The shared S3 adapter on the run's embedded S3 server (no mock): real uploads and downloads. */
const bucket = LOCAL_DOCUMENTS_BUCKET;
const bytes = Buffer.from('%PDF-1.7 a small test document\n');
const sha256 = createHash('sha256').update(bytes).digest('base64');
const signedAt = new Date('2026-11-20T10:00:00.400Z');

describe('presignPut', () => {
  it('binds size, content type and checksum into the signature, with the expiry asked for', async () => {
    const put = await presignPut(bucket, 'adapter/a.pdf', { expiresIn: 600, contentType: 'application/pdf', contentLength: bytes.length, checksumSha256: sha256, signedAt });
    const url = new URL(put.url);
    expect(url.pathname).toBe(`/${bucket}/adapter/a.pdf`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261120T100000Z');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host;x-amz-checksum-sha256');
    // The checksum travels as a signed header, never in the query (so it cannot be dropped).
    expect(url.searchParams.has('x-amz-checksum-sha256')).toBe(false);
    expect(put).toMatchObject({ method: 'PUT', expiresAt: '2026-11-20T10:10:00Z', headers: { 'Content-Type': 'application/pdf', 'Content-Length': String(bytes.length), 'x-amz-checksum-sha256': sha256 } });

    // Each bound value is part of the signature: change one and the signature changes.
    const signature = url.searchParams.get('X-Amz-Signature');
    const variants = await Promise.all([
      presignPut(bucket, 'adapter/a.pdf', { expiresIn: 600, contentType: 'application/pdf', contentLength: bytes.length + 1, checksumSha256: sha256, signedAt }),
      presignPut(bucket, 'adapter/a.pdf', { expiresIn: 600, contentType: 'text/plain', contentLength: bytes.length, checksumSha256: sha256, signedAt }),
      presignPut(bucket, 'adapter/a.pdf', { expiresIn: 600, contentType: 'application/pdf', contentLength: bytes.length, checksumSha256: createHash('sha256').update('x').digest('base64'), signedAt }),
    ]);
    for (const v of variants) expect(new URL(v.url).searchParams.get('X-Amz-Signature')).not.toBe(signature);
  });

  it('accepts a real upload through the URL, and measureObject reads back size and SHA-256', async () => {
    const put = await presignPut(bucket, 'adapter/b.pdf', { expiresIn: 300, contentType: 'application/pdf', contentLength: bytes.length, checksumSha256: sha256 });
    const response = await fetch(put.url, { method: 'PUT', headers: { 'Content-Type': 'application/pdf', 'x-amz-checksum-sha256': sha256 }, body: bytes });
    expect(response.status).toBe(200);
    await expect(measureObject(bucket, 'adapter/b.pdf', 1024)).resolves.toEqual({ size: bytes.length, contentType: 'application/pdf', sha256 });
    await expect(measureObject(bucket, 'adapter/missing.pdf', 1024)).resolves.toBeUndefined();
    // Over the limit: reading stops and the size says so.
    expect((await measureObject(bucket, 'adapter/b.pdf', 4))!.size).toBeGreaterThan(4);
  });

  it('an expired URL is refused by the server', async () => {
    const put = await presignPut(bucket, 'adapter/c.pdf', { expiresIn: 1, contentType: 'application/pdf', contentLength: bytes.length, checksumSha256: sha256, signedAt: new Date(Date.now() - 60_000) });
    const response = await fetch(put.url, { method: 'PUT', headers: { 'Content-Type': 'application/pdf', 'x-amz-checksum-sha256': sha256 }, body: bytes });
    expect(response.status).toBe(403);
    await expect(measureObject(bucket, 'adapter/c.pdf', 1024)).resolves.toBeUndefined();
  });
});

describe('presignGet', () => {
  it('signs a GET that expires in the seconds asked for and answers with the file name and type', async () => {
    const put = await presignPut(bucket, 'adapter/d.pdf', { expiresIn: 300, contentType: 'application/pdf', contentLength: bytes.length, checksumSha256: sha256 });
    await fetch(put.url, { method: 'PUT', headers: { 'Content-Type': 'application/pdf', 'x-amz-checksum-sha256': sha256 }, body: bytes });
    const get = await presignGet(bucket, 'adapter/d.pdf', { expiresIn: 120, filename: 'Plan "Süd".pdf', contentType: 'application/pdf', signedAt });
    const url = new URL(get.url);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('120');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(get.expiresAt).toBe('2026-11-20T10:02:00Z');
    const fresh = await presignGet(bucket, 'adapter/d.pdf', { expiresIn: 120, filename: 'Plan "Süd".pdf', contentType: 'application/pdf' });
    const response = await fetch(fresh.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(attachmentDisposition('Plan "Süd".pdf'));
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
  });

  it('attachmentDisposition keeps quotes, controls and non-ASCII out of the plain filename', () => {
    expect(attachmentDisposition('a"b\\c\nä.pdf')).toBe(`attachment; filename="a_b_c__.pdf"; filename*=UTF-8''a%22b%5Cc%0A%C3%A4.pdf`);
  });
});
