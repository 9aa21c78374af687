/**
 * Identities the layers key their state by, reduced to 53-bit integers so that state size
 * does not depend on the length of caller-chosen strings (key ids, session ids, model names)
 * and lookups compare numbers, not strings.
 *
 * Sessions: an explicit `sessionId` (SDK option or proxy header `x-spendguard-session`) is
 * used when present. Otherwise the session is `keyId` + `model`: one API key usually serves
 * one agent, and a model switch usually marks a different role (a cheap classifier beside the
 * main model), so keying by model keeps a side-call from breaking the main loop's run of
 * identical requests or from zig-zagging its context sizes. The cost of the fallback: two
 * agents sharing a key and a model interleave into one stream, which can hide a loop (a false
 * negative, never a false positive for layer 2); layers 4 and 5 remain the safety net.
 */
import type { GuardrailEvent } from './types';

/**
 * 53-bit string hash (cyrb53 by bryc, public domain). Collisions among the few hundred
 * identities an organization's state holds are negligible (~n²/2^54).
 *
 * @example hash53('key_abc') === hash53('key_abc') // deterministic, 0 ≤ h < 2^53
 */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const SHA256_PREFIX = /^sha256:[0-9a-fA-F]{13}/;

/**
 * Identity of a request for layer 2. A body fingerprint (`sha256:<hex>`) is reduced to its
 * first 52 bits. Without one (SDK events carry no body hash) the fallback is model +
 * prompt-token count: an agent that resends the same request reports the same count from the
 * same tokenizer. Through a routing aggregator (OpenRouter) one prompt can be served by
 * different upstream tokenizers, so the count drifts and the fallback is best-effort there;
 * a fast loop still trips layer 4 (RPS burst).
 */
export function fingerprintHash(
  event: Pick<GuardrailEvent, 'fingerprint' | 'model'>,
  promptTokens: number,
): { hash: number; source: 'body' | 'fallback' } {
  const fp = event.fingerprint;
  if (typeof fp === 'string' && fp.length > 0) {
    if (SHA256_PREFIX.test(fp)) return { hash: parseInt(fp.slice(7, 20), 16), source: 'body' };
    return { hash: hash53(fp, 1), source: 'body' };
  }
  return { hash: hash53(`${event.model}\u0000${promptTokens}`, 2), source: 'fallback' };
}

/** Hash of the session identity: keyId + sessionId, or keyId + model when no session is named. */
export function streamHash(keyId: string, sessionId: string | undefined, model: string): number {
  return sessionId === undefined
    ? hash53(`${keyId}\u0000m\u0000${model}`, 3)
    : hash53(`${keyId}\u0000s\u0000${sessionId}`, 3);
}

/** Hash of an API key id. */
export function keyHash(keyId: string): number {
  return hash53(keyId, 4);
}
