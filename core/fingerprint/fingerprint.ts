/**
 * Request fingerprints: `sha256:<64 hex>` of a body's canonical form (guardrail layer 2).
 *
 * Node.js only (node:crypto). Browser code calls `canonicalRequest` and hashes the UTF-8 bytes of
 * the result with WebCrypto; the fingerprints are identical.
 * @module
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { FINGERPRINT_BOUNDS } from './bounds';
import { isOverBound, type Pieces } from './canonical-json';
import {
  asBytes,
  canonicalPiecesFromByteString,
  canonicalPiecesFromText,
  canonicalRequest,
  type FingerprintOptions,
} from './canonical-request';
import { FLAVOR_SPECS, type RequestFlavor } from './flavors';

/** The form of every fingerprint: `sha256:` and 64 lowercase hex digits. */
export const FINGERPRINT_PATTERN = /^sha256:[0-9a-f]{64}$/;

/**
 * The fingerprint of a canonical form: `sha256:` + hex SHA-256 of its UTF-8 bytes.
 *
 * @example fingerprintOf('{}') // 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a'
 */
export function fingerprintOf(canonical: string): string {
  return 'sha256:' + createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** How a body fingerprint was made: from the canonical form, or (over a bound) from the raw bytes. */
export type FingerprintKind = 'canonical' | 'raw';

/** A body fingerprint and how it was made. */
export interface BodyFingerprint {
  /** `sha256:<64 hex>`. */
  readonly fingerprint: string;
  /**
   * `canonical`: hash of the canonical form. `raw`: the body is over a bound of
   * `FINGERPRINT_BOUNDS` (bytes, values or depth), so this is the SHA-256 of its raw bytes (UTF-8
   * bytes for a string body): only byte-identical bodies share it.
   */
  readonly kind: FingerprintKind;
}

/**
 * The fingerprint of a request body: `fingerprintOf(canonicalRequest(flavor, body, opts))`, or, for
 * a body over `FINGERPRINT_BOUNDS`, the fallback hash of its raw bytes; null when the body is
 * unusable (see `canonicalRequest`). Never throws; never examines more than the bounds allow.
 *
 * Faster than hashing `canonicalRequest`'s string: the canonical form is hashed piece by piece
 * (long pieces are slices of the input), and bytes are checked to be UTF-8 and read as Latin-1
 * (one character per byte) so they are never decoded; the result is the same.
 */
export function fingerprintRequest(
  flavor: RequestFlavor,
  body: string | Uint8Array | unknown,
  opts?: FingerprintOptions,
): string | null {
  return fingerprintRequestBounded(flavor, body, opts)?.fingerprint ?? null;
}

/** {@link fingerprintRequest} with the kind of fingerprint made (`raw`: the body was over a bound). */
export function fingerprintRequestBounded(
  flavor: RequestFlavor,
  body: string | Uint8Array | unknown,
  opts?: FingerprintOptions,
): BodyFingerprint | null {
  if (!Object.prototype.hasOwnProperty.call(FLAVOR_SPECS, flavor)) return null;
  try {
    if (typeof body === 'string') {
      if (body.length > FINGERPRINT_BOUNDS.maxBytes) return rawFingerprint(body);
      return canonical(hashPieces(canonicalPiecesFromText(flavor, body, opts), 'utf8'));
    }
    const bytes = asBytes(body);
    if (bytes === null) {
      const text = canonicalRequest(flavor, body, opts);
      return text === null ? null : { fingerprint: fingerprintOf(text), kind: 'canonical' };
    }
    if (bytes.byteLength > FINGERPRINT_BOUNDS.maxBytes) return rawFingerprint(bytes);
    if (!isUtf8(bytes)) return null;
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset + bom, bytes.byteLength - bom).toString(
      'latin1',
    );
    return canonical(hashPieces(canonicalPiecesFromByteString(flavor, latin1, opts), 'latin1'));
  } catch (err) {
    if (isOverBound(err) && (typeof body === 'string' || asBytes(body) !== null)) {
      return rawFingerprint(body as string | Uint8Array);
    }
    return null;
  }
}

function canonical(fingerprint: string | null): BodyFingerprint | null {
  return fingerprint === null ? null : { fingerprint, kind: 'canonical' };
}

/** The fallback: SHA-256 of the body's bytes as sent (a string body: its UTF-8 bytes). */
function rawFingerprint(body: string | Uint8Array): BodyFingerprint {
  const h = createHash('sha256');
  if (typeof body === 'string') h.update(body, 'utf8');
  else h.update(body);
  return { fingerprint: 'sha256:' + h.digest('hex'), kind: 'raw' };
}

/** Hashes canonical pieces in order, without joining them (`latin1`: byte-string pieces). */
function hashPieces(pieces: Pieces | null, encoding: 'utf8' | 'latin1'): string | null {
  if (pieces === null) return null;
  const h = createHash('sha256');
  for (const p of pieces.finish()) h.update(p, encoding);
  return 'sha256:' + h.digest('hex');
}

/**
 * The stand-in fingerprint for an event that carries no body fingerprint (ingest API events):
 * `sha256:` + hex SHA-256 of `model`, a NUL character, and `promptTokens` in decimal.
 * Two calls with the same model and the same prompt size look identical to layer 2 — weaker than
 * a body fingerprint, but the best that token counts allow.
 *
 * @example fallbackFingerprint('gpt-4o', 1200) // sha256 of 'gpt-4o\u00001200'
 */
export function fallbackFingerprint(model: string, promptTokens: number): string {
  return fingerprintOf(`${model}\u0000${promptTokens}`);
}
