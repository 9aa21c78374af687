/**
 * How much of a request body the fingerprint examines (issue 15.1). Every bound is checked before or
 * during the single scan, so the work per body is at most linear in `maxBytes` plus `maxValues log
 * maxValues` for the key sort, whatever the body holds: one body cannot stall the process for others.
 *
 * A body over a bound is not canonicalized. `fingerprintRequest` then returns the fallback
 * fingerprint: `sha256:` + hex SHA-256 of the body's raw bytes, flagged `kind: 'raw'` by
 * `fingerprintRequestBounded`. Byte-identical resends still match each other (an agent loop usually
 * resends the same bytes), but a change of sampling fields or whitespace makes a new fingerprint.
 * `canonicalRequest` (the pure form) returns null over a bound.
 *
 * Measured (bench/fingerprint.bench.ts): a realistic 1 MB chat body holds about 5,000 values, so
 * the bounds leave room for conversations of about 4 MB; an adversarial body at the value bound
 * (one object of 25,000 reverse-ordered keys) takes a few milliseconds.
 * @module
 */
import { MAX_JSON_DEPTH } from './canonical-json';

/** The bounds of one fingerprint scan. */
export interface FingerprintBounds {
  /** Largest body canonicalized, in bytes (UTF-16 code units for a string body). */
  readonly maxBytes: number;
  /** Most object members plus array elements scanned, at every depth (the body's own object not counted). */
  readonly maxValues: number;
  /** Deepest nesting of objects and arrays scanned. */
  readonly maxDepth: number;
}

/** The bounds in force for every fingerprint (relay, local proxy, and `canonicalRequest`). */
export const FINGERPRINT_BOUNDS: FingerprintBounds = Object.freeze({
  maxBytes: 4 * 1024 * 1024,
  maxValues: 25_000,
  maxDepth: MAX_JSON_DEPTH,
});
