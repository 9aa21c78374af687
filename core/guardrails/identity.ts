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

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { floor, imul } = Math;

// Streaming cyrb53 (bryc, public domain): two 32-bit lanes, kept in module variables so that
// hashing several parts allocates nothing (no concatenated strings). No state survives a call.
let lane1 = 0;
let lane2 = 0;

function begin(seed: number): void {
  lane1 = 0xdeadbeef ^ seed;
  lane2 = 0x41c6ce57 ^ seed;
}

function feedCode(ch: number): void {
  lane1 = imul(lane1 ^ ch, 2654435761);
  lane2 = imul(lane2 ^ ch, 1597334677);
}

function feedString(text: string): void {
  for (let i = 0; i < text.length; i++) feedCode(text.charCodeAt(i));
}

function finish(): number {
  let h1 = lane1;
  let h2 = lane2;
  h1 = imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * 53-bit string hash (cyrb53). Collisions among the few hundred identities an organization's
 * state holds are negligible (~n²/2^54).
 *
 * @example hash53('key_abc') === hash53('key_abc') // deterministic, 0 ≤ h < 2^53
 */
export function hash53(text: string, seed = 0): number {
  begin(seed);
  feedString(text);
  return finish();
}

/** Value of the 13 hex digits after `sha256:` (52 bits), or -1 when `fp` is not of that form. */
function sha256Prefix52(fp: string): number {
  if (fp.length < 20 || !fp.startsWith('sha256:')) return -1;
  let value = 0;
  for (let i = 7; i < 20; i++) {
    const c = fp.charCodeAt(i);
    const digit =
      c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * Identity of a request for layer 2. A body fingerprint (`sha256:<hex>`) is reduced to its
 * first 52 bits. Without one (SDK events carry no body hash) the fallback is model +
 * prompt-token count: an agent that resends the same request reports the same count from the
 * same tokenizer. Through a routing aggregator (OpenRouter) one prompt can be served by
 * different upstream tokenizers, so the count drifts and the fallback is best-effort there;
 * a fast loop still trips layer 4 (RPS burst). `hasBodyFingerprint` tells which one applies.
 */
export function fingerprintHash(
  fingerprint: string | undefined,
  model: string,
  promptTokens: number,
): number {
  if (hasBodyFingerprint(fingerprint)) {
    const prefix = sha256Prefix52(fingerprint);
    return prefix >= 0 ? prefix : hash53(fingerprint, 1);
  }
  begin(2);
  feedString(model);
  feedCode(0);
  feedCode(promptTokens & 0xffff);
  feedCode(floor(promptTokens / 65536));
  return finish();
}

/** Whether the event carries a body fingerprint (else layer 2 uses the model + prompt-tokens fallback). */
export function hasBodyFingerprint(fingerprint: unknown): fingerprint is string {
  return typeof fingerprint === 'string' && fingerprint.length > 0;
}

/** Hash of the session identity: keyId + sessionId, or keyId + model when no session is named. */
export function streamHash(keyId: string, sessionId: string | undefined, model: string): number {
  begin(3);
  feedString(keyId);
  feedCode(0);
  if (sessionId === undefined) {
    feedCode(1);
    feedString(model);
  } else {
    feedCode(2);
    feedString(sessionId);
  }
  return finish();
}

/** Hash of an API key id. */
export function keyHash(keyId: string): number {
  return hash53(keyId, 4);
}

/** Distinct owner tags: a session entry names its key in 20 bits, enough to share eviction fairly. */
export const OWNER_TAGS = 2 ** 20;

/**
 * A short tag of a key hash for the session tables' fair eviction (7 digits instead of 16 per entry). Two
 * keys sharing a tag (about one pair in a million) share a quota; nothing else depends on it.
 */
export function ownerTag(keyHash: number): number {
  return keyHash % OWNER_TAGS;
}
