/**
 * API key format: `abn_<publicId>_<secret>`.
 *
 * - `publicId`: 12 characters `[a-z0-9]` (≈ 62 bits). Not secret: it names the key in storage,
 *   in the dashboard and in logs, and it is what the key prefix `abn_<publicId>` is made of.
 * - `secret`: 43 characters of base62 `[0-9A-Za-z]`, ≈ 256 bits of entropy (43 × log2 62 = 256.03).
 *   Base62 rather than base64url so that `_` only ever separates the parts, and a double-click
 *   selects the whole key.
 *
 * Every character is drawn uniformly (rejection sampling, no modulo bias) from a caller-supplied
 * `randomBytes`, so this module stays pure.
 * @module
 */
import { ApiKeyError } from './errors';

/** Every key starts with this (spec 5). */
export const API_KEY_PREFIX = 'abn_';
/** Length of the public id. */
export const PUBLIC_ID_LENGTH = 12;
/** Length of the secret. */
export const SECRET_LENGTH = 43;
/** Length of a whole key: `abn_` + 12 + `_` + 43. */
export const API_KEY_LENGTH = API_KEY_PREFIX.length + PUBLIC_ID_LENGTH + 1 + SECRET_LENGTH;

const PUBLIC_ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const SECRET_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The exact shape of a key; the groups are the public id and the secret. */
export const API_KEY_PATTERN = /^abn_([a-z0-9]{12})_([0-9A-Za-z]{43})$/;
/** The exact shape of a key prefix `abn_<publicId>` (what the dashboard lists). */
export const API_KEY_PREFIX_PATTERN = /^abn_[a-z0-9]{12}$/;

/** A source of cryptographically secure random bytes, e.g. `(n) => crypto.randomBytes(n)`. */
export type RandomBytes = (n: number) => Uint8Array;

/** A freshly generated key. `apiKey` is shown to the user once and never stored. */
export interface GeneratedApiKey {
  /** The whole key, `abn_<publicId>_<secret>`. */
  readonly apiKey: string;
  /** The public id. */
  readonly publicId: string;
  /** `abn_<publicId>`: safe to store, list and log. */
  readonly prefix: string;
}

/** Why a string is not an API key. */
export type ApiKeyParseFailure =
  'not_a_string' | 'wrong_length' | 'wrong_prefix' | 'bad_public_id' | 'bad_secret';

/** The parts of a well-formed key, or why it is not one. */
export type ParsedApiKey =
  | { readonly ok: true; readonly publicId: string; readonly secret: string; readonly prefix: string }
  | { readonly ok: false; readonly reason: ApiKeyParseFailure };

/**
 * Generates a key from a secure random source.
 *
 * @example
 * import { randomBytes } from 'node:crypto';
 * const { apiKey, prefix } = generateApiKey((n) => randomBytes(n));
 * // apiKey: 'abn_k3v9x0q2m7za_6Jp…' (60 characters), prefix: 'abn_k3v9x0q2m7za'
 * @throws ApiKeyError when `randomBytes` does not return `n` bytes, or returns bytes that are
 *   visibly not random (rejection sampling makes no progress).
 */
export function generateApiKey(randomBytes: RandomBytes): GeneratedApiKey {
  const publicId = uniformString(randomBytes, PUBLIC_ID_ALPHABET, PUBLIC_ID_LENGTH);
  const secret = uniformString(randomBytes, SECRET_ALPHABET, SECRET_LENGTH);
  const prefix = API_KEY_PREFIX + publicId;
  return { apiKey: `${prefix}_${secret}`, publicId, prefix };
}

/**
 * Splits a key into its parts, checking the exact format. Never throws.
 *
 * @example parseApiKey('abn_k3v9x0q2m7za_…') // { ok: true, publicId: 'k3v9x0q2m7za', secret: '…', prefix: 'abn_k3v9x0q2m7za' }
 */
export function parseApiKey(s: unknown): ParsedApiKey {
  if (typeof s !== 'string') return { ok: false, reason: 'not_a_string' };
  if (s.length !== API_KEY_LENGTH) return { ok: false, reason: 'wrong_length' };
  if (!s.startsWith(API_KEY_PREFIX)) return { ok: false, reason: 'wrong_prefix' };
  const m = API_KEY_PATTERN.exec(s);
  if (m === null) {
    const idPart = s.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + PUBLIC_ID_LENGTH + 1);
    return { ok: false, reason: /^[a-z0-9]{12}_$/.test(idPart) ? 'bad_secret' : 'bad_public_id' };
  }
  const publicId = m[1]!;
  return { ok: true, publicId, secret: m[2]!, prefix: API_KEY_PREFIX + publicId };
}

/** True when `s` is a key prefix `abn_<publicId>`. */
export function isApiKeyPrefix(s: unknown): s is string {
  return typeof s === 'string' && API_KEY_PREFIX_PATTERN.test(s);
}

const KEY_IN_TEXT = /abn_([a-z0-9]{12})_[0-9A-Za-z]+/g;

/**
 * A key made safe for logs: `abn_<publicId>_****`. Anything that is not recognizably a key becomes
 * `****` (whatever it is, it might be a secret). The result never contains the secret.
 *
 * @example redactApiKey('abn_k3v9x0q2m7za_6JpQ…') // 'abn_k3v9x0q2m7za_****'
 */
export function redactApiKey(s: string): string {
  const parsed = parseApiKey(s);
  if (parsed.ok) return `${parsed.prefix}_****`;
  if (isApiKeyPrefix(s)) return s;
  return '****';
}

/** Replaces every key-shaped substring of free text (a log line, an error message) by its redaction. */
export function redactApiKeysIn(text: string): string {
  return text.replace(KEY_IN_TEXT, (_m, publicId: string) => `${API_KEY_PREFIX}${publicId}_****`);
}

/**
 * `length` characters drawn uniformly from `alphabet`: a random byte b is used only when
 * b < 256 - (256 mod |alphabet|), as b mod |alphabet|; other bytes are discarded.
 */
function uniformString(randomBytes: RandomBytes, alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  for (let attempt = 0; out.length < length; attempt++) {
    if (attempt >= 16) throw new ApiKeyError('the random source keeps returning unusable bytes');
    const want = length - out.length + 8;
    let bytes: Uint8Array;
    try {
      bytes = randomBytes(want);
    } catch (err) {
      throw new ApiKeyError('the random source failed', { cause: err });
    }
    if (!(bytes instanceof Uint8Array) || bytes.length !== want) {
      throw new ApiKeyError(`the random source must return a Uint8Array of ${want} bytes`);
    }
    for (let i = 0; i < bytes.length && out.length < length; i++) {
      const b = bytes[i]!;
      if (b < limit) out += alphabet[b % alphabet.length]!;
    }
  }
  return out;
}
