/**
 * Value ranges the engine clamps its inputs to, so that every number in the state has a known
 * maximum width and the state's JSON size has a provable upper bound (see `maxStateBytes`).
 */

/** Largest event time accepted (ms; 13 digits, year 2286). Later or invalid times are clamped. */
export const MAX_TIMESTAMP_MS = 9_999_999_999_999;
/** Token counts above this are clamped (100 M; far beyond any context window). */
export const MAX_TOKENS = 100_000_000;
/** Counters (consecutive repeats, consecutive hits) saturate here. */
export const MAX_COUNT = 999_999;
/** Nano-USD amounts saturate at 2^53 − 1 (≈ $9.0 M per period), the largest exact integer. */
export const MAX_NANOS = Number.MAX_SAFE_INTEGER;
/**
 * Upper bound of an organization's serialized guardrail state, enforced on every policy
 * (`guardrailPolicySchema` rejects a policy whose worst case exceeds it). DynamoDB's item
 * limit is 400 KB; 64 KB keeps reads and conditional writes to 16 read/64 write units.
 */
export const STATE_BYTES_LIMIT = 65_536;

/** Width in JSON of the largest non-negative integer `max`. */
export function jsonDigits(max: number): number {
  return String(Math.floor(max)).length;
}

/** Widest 53-bit id. */
export const MAX_ID_DIGITS = jsonDigits(2 ** 53);

/** Upper bound of the JSON length of a `BoundedTable` with `capacity` entries of at most `entryBytes`. */
export function tableMaxBytes(capacity: number, entryBytes: number): number {
  return '{"ids":[],"entries":[]}'.length + capacity * (MAX_ID_DIGITS + 1) + capacity * (entryBytes + 1);
}
