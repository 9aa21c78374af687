/**
 * What the server keeps instead of keys, and constant-time comparisons.
 *
 * - Key hash: HMAC-SHA-256(pepper, "spendguard:api-key:v1" NUL apiKey), hex. Storage keeps only
 *   this; the pepper is a server secret (Secrets Manager), so a leaked table alone verifies nothing.
 * - Flag key: HMAC-SHA-256(pepper, "spendguard:flag-key:v1" NUL prefix), hex (spec 2.4): the kill
 *   flag's key, derived from the key prefix so the edge can compute it from the key a request
 *   presents, while raw keys and prefixes never appear in the flag table or edge logs. The two
 *   labels keep the two kinds of digest apart (domain separation): no flag key is ever a key hash.
 *
 * Node.js only (node:crypto).
 * @module
 */
import { Buffer } from 'node:buffer';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { API_KEY_PREFIX_PATTERN, parseApiKey } from './api-key';
import { ApiKeyError } from './errors';

/** A server-side secret mixed into every digest. At least 32 random bytes are recommended. */
export type Pepper = string | Uint8Array;

const KEY_HASH_LABEL = 'spendguard:api-key:v1\u0000';
const FLAG_KEY_LABEL = 'spendguard:flag-key:v1\u0000';
const HEX_DIGEST = /^[0-9a-f]{64}$/;

function hmac(pepper: Pepper, label: string, message: string): string {
  if (pepper.length === 0) throw new ApiKeyError('the pepper must not be empty');
  return createHmac('sha256', pepper).update(label, 'utf8').update(message, 'utf8').digest('hex');
}

/**
 * The stored form of a key: 64 hex characters.
 *
 * @throws ApiKeyError when `apiKey` is not a well-formed key or the pepper is empty.
 */
export function hashApiKey(apiKey: string, pepper: Pepper): string {
  if (!parseApiKey(apiKey).ok) throw new ApiKeyError('not a well-formed API key');
  return hmac(pepper, KEY_HASH_LABEL, apiKey);
}

/**
 * True when `apiKey` is the key whose hash is `storedHash`. The digests are compared in constant
 * time. Never throws: a malformed key, a malformed stored hash or an empty pepper verify nothing.
 */
export function verifyApiKey(apiKey: unknown, storedHash: unknown, pepper: Pepper): boolean {
  try {
    if (typeof apiKey !== 'string' || typeof storedHash !== 'string') return false;
    if (!HEX_DIGEST.test(storedHash) || !parseApiKey(apiKey).ok) return false;
    const actual = Buffer.from(hmac(pepper, KEY_HASH_LABEL, apiKey), 'hex');
    const expected = Buffer.from(storedHash, 'hex');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  } catch {
    return false;
  }
}

/**
 * The Flags-table key of a key prefix `abn_<publicId>` (spec 2.4): 64 hex characters.
 *
 * @throws ApiKeyError when `prefix` is not a key prefix (passing a whole key by mistake would
 *   silently produce a flag nobody reads) or the pepper is empty.
 */
export function flagKeyFor(prefix: string, pepper: Pepper): string {
  if (!API_KEY_PREFIX_PATTERN.test(prefix)) throw new ApiKeyError('not an API key prefix (abn_<publicId>)');
  return hmac(pepper, FLAG_KEY_LABEL, prefix);
}

/**
 * Compares two strings (a secret header and its expected value) in time that depends on neither
 * their contents nor their lengths: both are reduced to SHA-256 digests, which are compared with
 * `timingSafeEqual`.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}
