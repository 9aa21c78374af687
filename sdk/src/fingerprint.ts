/**
 * The request fingerprint (guardrail layer 2): `sha256:` + hex SHA-256 of the body's canonical form,
 * identical to core/fingerprint's `fingerprintRequest` (the proxy's and the server's), hashed with the
 * runtime's SHA-256 (`sha256.ts`: node:crypto, synchronous, where the runtime has it; else WebCrypto).
 *
 * The canonical form is core's: `{"flavor":…,"model":…,<the flavor's prompt members>}` with sorted
 * keys and no whitespace, the members chosen by core's `FLAVOR_SPECS` (imported). Core builds it with a
 * fast streaming scanner (~8 KB minified); the SDK, whose bundle must stay small, uses the equivalent
 * `JSON.parse` + sorted serialization (core documents the two as the same function, and
 * `sdk/test/fingerprint.test.ts` checks equality with core on random bodies).
 */
import { FLAVOR_SPECS, normalizeOptionModel, type RequestFlavor } from '../../core/fingerprint/flavors';
import { sha256Hex } from './sha256';

/** Containers nested deeper than this make a body unusable (core's MAX_JSON_DEPTH). */
const MAX_DEPTH = 1000;

/**
 * Bodies longer than this (bytes, or UTF-16 code units for a string: core's `FINGERPRINT_BOUNDS.maxBytes`)
 * are neither parsed nor fingerprinted here: the work per call stays bounded in the host's event loop
 * (JSON.parse and the canonical form of 4 MiB take tens of milliseconds). Such calls are still recorded,
 * without a fingerprint (layer 2 does not see them; the proxy hashes their raw bytes instead).
 */
export const MAX_FINGERPRINT_BODY = 4 * 1024 * 1024;

let strictUtf8: InstanceType<typeof TextDecoder> | undefined;

/**
 * A request body parsed as JSON (bytes must be valid UTF-8), or undefined (not JSON, or longer than
 * {@link MAX_FINGERPRINT_BODY}). Never throws.
 */
export function parseRequestBody(body: string | Uint8Array | undefined): unknown {
  if (body === undefined) return undefined;
  if ((typeof body === 'string' ? body.length : body.byteLength) > MAX_FINGERPRINT_BODY) return undefined;
  try {
    const text =
      typeof body === 'string'
        ? body
        : (strictUtf8 ??= new TextDecoder('utf-8', { fatal: true })).decode(body);
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The canonical form of a request body, or null when it is not a JSON object, nests too deep, or has
 * none of the flavor's content members. Never throws.
 *
 * @example
 * canonicalRequestText('openai', '{"model":"gpt-4o","temperature":0.2,"messages":[{"role":"user","content":"hi"}]}')
 * // '{"flavor":"openai","messages":[{"content":"hi","role":"user"}],"model":"gpt-4o"}'
 */
export function canonicalRequestText(
  flavor: RequestFlavor,
  body: string | Uint8Array,
  model?: string,
): string | null {
  return canonicalOfValue(flavor, parseRequestBody(body), model);
}

/** {@link canonicalRequestText} of an already parsed body (the SDK parses each request once). */
export function canonicalOfValue(flavor: RequestFlavor, value: unknown, model?: string): string | null {
  try {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const spec = FLAVOR_SPECS[flavor];
    const members = value as Record<string, unknown>;
    const has = (key: string): boolean =>
      Object.prototype.hasOwnProperty.call(members, key) &&
      members[key] !== undefined &&
      members[key] !== null;
    const out: Array<[string, string]> = [['flavor', JSON.stringify(flavor)]];
    if (spec.model === 'body' && has('model')) out.push(['model', canonical(members.model, 1)]);
    else if (model !== undefined) out.push(['model', JSON.stringify(normalizeOptionModel(model))]);
    let hasContent = false;
    for (const f of spec.fields) {
      const alias = f.from.find(has);
      if (alias === undefined) continue;
      out.push([f.name, canonical(members[alias], 1)]);
      if (spec.content.includes(f.name)) hasContent = true;
    }
    if (!hasContent) return null;
    out.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    let text = '{';
    for (let i = 0; i < out.length; i++) text += `${i === 0 ? '' : ','}"${out[i]![0]}":${out[i]![1]}`;
    return `${text}}`;
  } catch {
    return null; // too deep
  }
}

/** Canonical JSON of a parsed value: sorted keys (UTF-16 order), JSON.stringify's strings and numbers. */
function canonical(value: unknown, depth: number): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (depth + 1 > MAX_DEPTH) throw new RangeError('too deep');
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + canonical(value[i], depth + 1);
    return `${text}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length > 1) keys.sort();
  text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    text += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${canonical(obj[key], depth + 1)}`;
  }
  return `${text}}`;
}

/**
 * A request fingerprint, `sha256:<hex>`: a string where the runtime hashes synchronously (node:crypto),
 * a promise where it hashes with WebCrypto (resolved to undefined if the digest fails), undefined when
 * the body is not fingerprintable or the runtime cannot hash (see `sha256.ts`).
 */
export type Fingerprint = string | Promise<string | undefined> | undefined;

/** The {@link Fingerprint} of a parsed request body. */
export function fingerprintOfValue(flavor: RequestFlavor, value: unknown, model?: string): Fingerprint {
  const text = canonicalOfValue(flavor, value, model);
  if (text === null) return undefined;
  const digest = sha256Hex(text);
  if (typeof digest === 'string') return `sha256:${digest}`;
  return digest?.then(
    (hex) => `sha256:${hex}`,
    () => undefined,
  );
}

/** The {@link Fingerprint} of a request body. */
export function fingerprintBody(
  flavor: RequestFlavor,
  body: string | Uint8Array,
  model?: string,
): Fingerprint {
  return fingerprintOfValue(flavor, parseRequestBody(body), model);
}
