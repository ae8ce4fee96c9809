import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { traceClient } from '../observability';
import type { KMSClient } from '@aws-sdk/client-kms';
import { ConfigurationError, ENV } from '../config';
import type { RestrictedPurpose } from './purposes';

export type { RestrictedPurpose } from './purposes';

/**
 * Envelope encryption of restricted evidence (precise coordinates). A data key encrypts the
 * value with AES-256-GCM; the data key itself is stored encrypted: by KMS in AWS
 * (RESTRICTED_DATA_KEY_ID), by a local master key locally (RESTRICTED_DATA_LOCAL_KEY). The
 * API never decrypts it: restricted evidence is written for investigations, never echoed.
 *
 * Every value is sealed for one purpose, bound as the KMS encryption context
 * `{ purpose }` (and as authenticated data of the local wrap): IAM lets a function decrypt only
 * the purposes it serves (lib/constructs/area-function.ts), so the bank-account reader cannot
 * open coordinates even though both use one key.
 */
export interface SealedValue {
  readonly alg: 'AES-256-GCM';
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
  /** The data key, encrypted (KMS ciphertext blob or local wrap), base64. */
  readonly encryptedKey: string;
  readonly keyProvider: 'kms' | 'local';
  /** The encryption context's purpose; absent only on values sealed before purposes existed (none in production). */
  readonly purpose?: RestrictedPurpose;
}

interface DataKey {
  readonly plaintext: Buffer;
  readonly encrypted: string;
  readonly provider: 'kms' | 'local';
  readonly expires: number;
}

const DATA_KEY_REUSE_MS = 5 * 60 * 1000;
const cached = new Map<RestrictedPurpose, DataKey>();
let kms: KMSClient | undefined;
/** KMS, loaded on first use: only routes that seal or open restricted data need it (a chunk of its own, lib/constructs/bundling.ts). */
const kmsSdk = () => import('@aws-sdk/client-kms');
const kmsClient = async (): Promise<KMSClient> => (kms ??= traceClient(new (await kmsSdk()).KMSClient({})));

export async function sealRestricted(value: unknown, purpose: RestrictedPurpose = 'evidence'): Promise<SealedValue> {
  const key = await dataKey(purpose);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.plaintext, iv);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return {
    alg: 'AES-256-GCM',
    iv: iv.toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    encryptedKey: key.encrypted,
    keyProvider: key.provider,
    purpose,
  };
}

const unwrapped = new Map<string, Buffer>();
const contextOf = (purpose: RestrictedPurpose | undefined) => (purpose ? { purpose } : undefined);
const MAX_UNWRAPPED = 100;

/**
 * Opens a sealed value. Only the bank-account resource does this (its function alone holds
 * kms:Decrypt); restricted evidence is never read back by the API.
 */
export async function unsealRestricted(sealed: SealedValue): Promise<unknown> {
  const key = await unwrapDataKey(sealed);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  const plain = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as unknown;
}

async function unwrapDataKey(sealed: SealedValue): Promise<Buffer> {
  const known = unwrapped.get(sealed.encryptedKey);
  if (known) return known;
  let key: Buffer;
  if (sealed.keyProvider === 'kms') {
    const { DecryptCommand } = await kmsSdk();
    const out = await (await kmsClient()).send(new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.encryptedKey, 'base64'), EncryptionContext: contextOf(sealed.purpose) }));
    if (!out.Plaintext) throw new Error('KMS returned no plaintext data key.');
    key = Buffer.from(out.Plaintext);
  } else {
    const wrapped = Buffer.from(sealed.encryptedKey, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', localMasterKey(), wrapped.subarray(0, 12));
    if (sealed.purpose) decipher.setAAD(Buffer.from(sealed.purpose));
    decipher.setAuthTag(wrapped.subarray(wrapped.length - 16));
    key = Buffer.concat([decipher.update(wrapped.subarray(12, wrapped.length - 16)), decipher.final()]);
  }
  if (unwrapped.size >= MAX_UNWRAPPED) unwrapped.clear();
  unwrapped.set(sealed.encryptedKey, key);
  return key;
}

function localMasterKey(): Buffer {
  const master = process.env[ENV.RESTRICTED_DATA_LOCAL_KEY];
  if (!master) throw new ConfigurationError(`Set ${ENV.RESTRICTED_DATA_KEY_ID} (KMS) or ${ENV.RESTRICTED_DATA_LOCAL_KEY} (local).`);
  const key = Buffer.from(master, 'base64');
  if (key.length !== 32) throw new ConfigurationError(`${ENV.RESTRICTED_DATA_LOCAL_KEY} must be 32 bytes in base64.`);
  return key;
}

/** One data key per purpose per container for a few minutes: bounded KMS calls, bounded key reuse. */
async function dataKey(purpose: RestrictedPurpose): Promise<DataKey> {
  const known = cached.get(purpose);
  if (known && known.expires > Date.now()) return known;
  const kmsKeyId = process.env[ENV.RESTRICTED_DATA_KEY_ID];
  let key: DataKey;
  if (kmsKeyId) {
    const { GenerateDataKeyCommand } = await kmsSdk();
    const out = await (await kmsClient()).send(new GenerateDataKeyCommand({ KeyId: kmsKeyId, KeySpec: 'AES_256', EncryptionContext: { purpose } }));
    if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS returned no data key.');
    key = { plaintext: Buffer.from(out.Plaintext), encrypted: Buffer.from(out.CiphertextBlob).toString('base64'), provider: 'kms', expires: Date.now() + DATA_KEY_REUSE_MS };
  } else {
    const masterKey = localMasterKey();
    const plaintext = randomBytes(32);
    const iv = randomBytes(12);
    const wrap = createCipheriv('aes-256-gcm', masterKey, iv);
    wrap.setAAD(Buffer.from(purpose));
    const wrapped = Buffer.concat([iv, wrap.update(plaintext), wrap.final(), wrap.getAuthTag()]);
    key = { plaintext, encrypted: wrapped.toString('base64'), provider: 'local', expires: Date.now() + DATA_KEY_REUSE_MS };
  }
  cached.set(purpose, key);
  return key;
}
