import { createCipheriv, createDecipheriv, createHash, randomFillSync } from 'node:crypto';
import { ValidationError } from '../errors';

/**
 * Opaque, tamper-evident list cursors: the continuation position is sealed with AES-256-GCM;
 * the organization and the query that made the cursor are the additional authenticated data,
 * so a cursor of another organization or another query, or an altered one, does not open.
 */
export interface CursorBinding {
  readonly organizationId: string;
  /** What made the list: route and every filter; `cursor` and nothing secret excluded. */
  readonly query: Readonly<Record<string, unknown>>;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sealCursor(key: Buffer, binding: CursorBinding, position: unknown): string {
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aadOf(binding));
  const plain = Buffer.from(JSON.stringify(position), 'utf8');
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

export function openCursor(key: Buffer, binding: CursorBinding, cursor: string): unknown {
  const raw = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url') : Buffer.alloc(0);
  // base64url decoding ignores the spare bits of the last character: only the exact text we
  // returned opens, not another spelling of the same bytes.
  if (raw.toString('base64url') !== cursor) throw invalidCursor();
  if (raw.length < 1 + IV_BYTES + TAG_BYTES + 1 || raw[0] !== VERSION) throw invalidCursor();
  const iv = raw.subarray(1, 1 + IV_BYTES);
  const tag = raw.subarray(raw.length - TAG_BYTES);
  const body = raw.subarray(1 + IV_BYTES, raw.length - TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(aadOf(binding));
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([decipher.update(body), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as unknown;
  } catch {
    throw invalidCursor();
  }
}

const invalidCursor = () =>
  new ValidationError([
    {
      parameter: 'cursor',
      detail: 'The cursor is not valid for this list: pass a nextCursor exactly as returned, with the same filters.',
    },
  ]);

/**
 * Fresh random IVs, cut from one CSPRNG fill per 1,024 cursors: every page of every list seals
 * a cursor, and a call into the CSPRNG per cursor cost more than the cut. Each IV is used once.
 */
const IV_POOL_SIZE = 1024;
let ivPool = Buffer.alloc(0);
let ivAt = 0;
function nextIv(): Buffer {
  if (ivAt + IV_BYTES > ivPool.length) {
    ivPool = randomFillSync(Buffer.allocUnsafe(IV_BYTES * IV_POOL_SIZE));
    ivAt = 0;
  }
  const iv = ivPool.subarray(ivAt, ivAt + IV_BYTES);
  ivAt += IV_BYTES;
  return iv;
}

/**
 * The digest of a binding, kept for the bindings seen last: a client paging through a list
 * repeats its binding on every page, and the digest depends on nothing else.
 */
const AAD_CACHE_SIZE = 256;
const aadCache = new Map<string, Buffer>();
function aadOf({ organizationId, query }: CursorBinding): Buffer {
  const text = JSON.stringify([organizationId, canonical(query)]);
  let aad = aadCache.get(text);
  if (!aad) {
    if (aadCache.size >= AAD_CACHE_SIZE) aadCache.clear();
    aad = createHash('sha256').update(text).digest();
    aadCache.set(text, aad);
  }
  return aad;
}

/** JSON with sorted object keys, so that equal queries give equal bytes. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}
