import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiEnvironment } from '../config';

/**
 * API keys (decisions.md, "API keys"): `<prefix><key-id>.<secret>`, prefix `wfm_test_` or
 * `wfm_live_`, key-id 20 lowercase base32 characters, secret 32 random bytes in base64url.
 * Only SHA-256 of the 256-bit secret is stored (no pepper needed at that entropy), and it is
 * compared in constant time.
 */
export const KEY_PREFIX: Readonly<Record<ApiEnvironment, string>> = { TEST: 'wfm_test_', LIVE: 'wfm_live_' };

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const KEY_PATTERN = /^wfm_(test|live)_([a-z2-7]{20})\.([A-Za-z0-9_-]{43})$/;

export interface ParsedApiKey {
  readonly environment: ApiEnvironment;
  readonly keyId: string;
  readonly secret: string;
}

/** Parses a bearer token; undefined for anything that is not exactly a key of our shape. */
export function parseApiKey(token: string): ParsedApiKey | undefined {
  const match = KEY_PATTERN.exec(token);
  if (!match) return undefined;
  return { environment: match[1] === 'live' ? 'LIVE' : 'TEST', keyId: match[2], secret: match[3] };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive). */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1] : undefined;
}

export interface IssuedApiKey {
  /** Shown once, to the operator who issued it; never stored. */
  readonly token: string;
  readonly keyId: string;
  readonly secretHash: string;
}

export function generateApiKey(environment: ApiEnvironment): IssuedApiKey {
  const keyId = Array.from(randomBytes(20), (b) => BASE32[b % 32]).join('');
  const secret = randomBytes(32).toString('base64url');
  return { token: `${KEY_PREFIX[environment]}${keyId}.${secret}`, keyId, secretHash: hashSecret(secret) };
}

export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('base64url');

export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret), 'base64url');
  const stored = Buffer.from(storedHash, 'base64url');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
