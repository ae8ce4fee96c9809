import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { ConfigurationError, ENV } from '../config';

/**
 * Envelope encryption of restricted evidence (precise coordinates). A data key encrypts the
 * value with AES-256-GCM; the data key itself is stored encrypted: by KMS in AWS
 * (RESTRICTED_DATA_KEY_ID), by a local master key locally (RESTRICTED_DATA_LOCAL_KEY). The
 * API never decrypts it: restricted evidence is written for investigations, never echoed.
 */
export interface SealedValue {
  readonly alg: 'AES-256-GCM';
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
  /** The data key, encrypted (KMS ciphertext blob or local wrap), base64. */
  readonly encryptedKey: string;
  readonly keyProvider: 'kms' | 'local';
}

interface DataKey {
  readonly plaintext: Buffer;
  readonly encrypted: string;
  readonly provider: 'kms' | 'local';
  readonly expires: number;
}

const DATA_KEY_REUSE_MS = 5 * 60 * 1000;
let cached: DataKey | undefined;
let kms: KMSClient | undefined;

export async function sealRestricted(value: unknown): Promise<SealedValue> {
  const key = await dataKey();
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
  };
}

const unwrapped = new Map<string, Buffer>();
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
    kms ??= new KMSClient({});
    const out = await kms.send(new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.encryptedKey, 'base64') }));
    if (!out.Plaintext) throw new Error('KMS returned no plaintext data key.');
    key = Buffer.from(out.Plaintext);
  } else {
    const wrapped = Buffer.from(sealed.encryptedKey, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', localMasterKey(), wrapped.subarray(0, 12));
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

/** One data key per container for a few minutes: bounded KMS calls, bounded key reuse. */
async function dataKey(): Promise<DataKey> {
  if (cached && cached.expires > Date.now()) return cached;
  const kmsKeyId = process.env[ENV.RESTRICTED_DATA_KEY_ID];
  if (kmsKeyId) {
    kms ??= new KMSClient({});
    const out = await kms.send(new GenerateDataKeyCommand({ KeyId: kmsKeyId, KeySpec: 'AES_256' }));
    if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS returned no data key.');
    cached = { plaintext: Buffer.from(out.Plaintext), encrypted: Buffer.from(out.CiphertextBlob).toString('base64'), provider: 'kms', expires: Date.now() + DATA_KEY_REUSE_MS };
    return cached;
  }
  const masterKey = localMasterKey();
  const plaintext = randomBytes(32);
  const iv = randomBytes(12);
  const wrap = createCipheriv('aes-256-gcm', masterKey, iv);
  const wrapped = Buffer.concat([iv, wrap.update(plaintext), wrap.final(), wrap.getAuthTag()]);
  cached = { plaintext, encrypted: wrapped.toString('base64'), provider: 'local', expires: Date.now() + DATA_KEY_REUSE_MS };
  return cached;
}
