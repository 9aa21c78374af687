/**
 * Request fingerprints (guardrail layer 2): canonical form of a request body and its SHA-256.
 *
 * Browser bundles (the SDK) import `./canonical-request` and `./flavors` directly: they are pure.
 * `./fingerprint` needs node:crypto.
 * @module
 */
export { canonicalRequest, type FingerprintOptions } from './canonical-request';
export { canonicalizeJsonText, canonicalizeValue, MAX_JSON_DEPTH } from './canonical-json';
export {
  FLAVOR_SPECS,
  REQUEST_FLAVORS,
  geminiModelFromPath,
  type FingerprintField,
  type FlavorSpec,
  type RequestFlavor,
} from './flavors';
export { FINGERPRINT_BOUNDS, type FingerprintBounds } from './bounds';
export {
  FINGERPRINT_PATTERN,
  fallbackFingerprint,
  fingerprintOf,
  fingerprintRequest,
  fingerprintRequestBounded,
  type BodyFingerprint,
  type FingerprintKind,
} from './fingerprint';
