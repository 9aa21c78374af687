/**
 * The canonical form of an AI request body: the pure, portable half of the fingerprint.
 *
 * The SDK (bundled for browsers) hashes this string itself with WebCrypto; Node.js code uses
 * `fingerprintRequest`, which gives the same result (`fingerprintOf(canonicalRequest(...))`).
 * This module imports nothing from Node.js.
 * @module
 */
import { FINGERPRINT_BOUNDS } from './bounds';
import {
  CanonicalScanner,
  Pieces,
  canonicalizeValue,
  isInvalidJson,
  isOverBound,
  textToByteString,
} from './canonical-json';
import { FLAVOR_SPECS, normalizeOptionModel, type FlavorSpec, type RequestFlavor } from './flavors';

/** Options of {@link canonicalRequest} and `fingerprintRequest`. */
export interface FingerprintOptions {
  /**
   * The model, when the body does not name one. Gemini bodies never do (the model is in the URL
   * path; see `geminiModelFromPath`), so for `'gemini'` this is the only source; for other flavors
   * it is used only when the body has no `model` (for example an Azure OpenAI deployment URL).
   * A leading `models/` is dropped.
   */
  readonly model?: string;
}

/** Body members to read for each flavor: every alias, plus `model` when it comes from the body. */
const WANTED: Readonly<Record<RequestFlavor, ReadonlySet<string>>> = Object.fromEntries(
  Object.values(FLAVOR_SPECS).map((spec) => [
    spec.flavor,
    new Set([...spec.fields.flatMap((f) => f.from), ...(spec.model === 'body' ? ['model'] : [])]),
  ]),
) as unknown as Record<RequestFlavor, ReadonlySet<string>>;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The spec of a flavor; undefined for anything else (callers in plain JavaScript may pass anything). */
function specOf(flavor: RequestFlavor): FlavorSpec | undefined {
  return Object.prototype.hasOwnProperty.call(FLAVOR_SPECS, flavor) ? FLAVOR_SPECS[flavor] : undefined;
}

/**
 * The canonical form of a request body: a canonical JSON object (sorted keys, no whitespace; see
 * `canonical-json.ts`) holding `flavor`, `model` and the flavor's prompt members, e.g.
 * `{"flavor":"openai","messages":[{"content":"hi","role":"user"}],"model":"gpt-4o"}`.
 *
 * - `body` may be a JSON string, UTF-8 bytes (`Uint8Array`, any `ArrayBufferView`, `ArrayBuffer`;
 *   a leading byte-order mark is ignored, invalid UTF-8 gives null) or an already parsed value
 *   (treated exactly as `JSON.stringify(body)` would serialize it).
 * - Returns null when the body is not JSON, is not a JSON object, is over a bound of
 *   `FINGERPRINT_BOUNDS` (bytes, values, 1,000 levels of nesting; see `bounds.ts`), or has none of the
 *   flavor's content members (`messages`, `input`, `prompt`, `contents`).
 * - A member whose value is `null` counts as absent. Never throws.
 *
 * @example
 * canonicalRequest('openai', '{"model":"gpt-4o","temperature":0.2,"messages":[{"role":"user","content":"hi"}]}')
 * // '{"flavor":"openai","messages":[{"content":"hi","role":"user"}],"model":"gpt-4o"}'
 */
export function canonicalRequest(
  flavor: RequestFlavor,
  body: string | Uint8Array | unknown,
  opts?: FingerprintOptions,
): string | null {
  try {
    const spec = specOf(flavor);
    if (spec === undefined) return null;
    let pieces: Pieces | null;
    if (typeof body === 'string') {
      if (body.length > FINGERPRINT_BOUNDS.maxBytes) return null;
      pieces = fromText(spec, body, opts);
    } else {
      const bytes = asBytes(body);
      if (bytes !== null && bytes.byteLength > FINGERPRINT_BOUNDS.maxBytes) return null;
      pieces = bytes !== null ? fromText(spec, strictUtf8.decode(bytes), opts) : fromValue(spec, body, opts);
    }
    return pieces === null ? null : pieces.text();
  } catch {
    return null; // invalid UTF-8, hostile getters, anything else: not fingerprintable
  }
}

/**
 * Same as {@link canonicalRequest} for a byte string (valid UTF-8 bytes decoded as Latin-1, BOM
 * already removed); returns the canonical form as byte-string pieces. Used by the Node.js hashing
 * path, which hashes them one by one, never decoding the bytes nor building one large string.
 * The caller guarantees valid UTF-8.
 */
export function canonicalPiecesFromByteString(
  flavor: RequestFlavor,
  bytes: string,
  opts?: FingerprintOptions,
): Pieces | null {
  try {
    const spec = specOf(flavor);
    if (spec === undefined) return null;
    const members = boundedScanner(bytes, true).topLevelMembers(WANTED[flavor]);
    if (members === null) return null;
    const model = optionModelLiteral(opts);
    return assemble(spec, members, model === undefined ? undefined : textToByteString(model));
  } catch (err) {
    if (isOverBound(err)) throw err;
    return null;
  }
}

/** Bytes of a binary body, or null when `body` is not binary. */
export function asBytes(body: unknown): Uint8Array | null {
  if (body instanceof Uint8Array) return body;
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (Object.prototype.toString.call(body) === '[object ArrayBuffer]')
    return new Uint8Array(body as ArrayBuffer);
  return null;
}

/**
 * Canonical pieces of a UTF-16 text (used for string bodies by both the pure and the Node.js path).
 * Throws the over-bound signal like {@link canonicalPiecesFromByteString}.
 */
export function canonicalPiecesFromText(
  flavor: RequestFlavor,
  text: string,
  opts?: FingerprintOptions,
): Pieces | null {
  try {
    const spec = specOf(flavor);
    return spec === undefined ? null : fromText(spec, text, opts);
  } catch (err) {
    if (isOverBound(err)) throw err;
    return null;
  }
}

function fromText(spec: FlavorSpec, text: string, opts: FingerprintOptions | undefined): Pieces | null {
  try {
    const members = boundedScanner(text, false).topLevelMembers(WANTED[spec.flavor]);
    return members === null ? null : assemble(spec, members, optionModelLiteral(opts));
  } catch (err) {
    if (isInvalidJson(err)) return null;
    throw err;
  }
}

/** A scanner that stops at the value and depth bounds of FINGERPRINT_BOUNDS. */
function boundedScanner(text: string, byteString: boolean): CanonicalScanner {
  return new CanonicalScanner(text, byteString, 0, FINGERPRINT_BOUNDS.maxValues);
}

function fromValue(spec: FlavorSpec, body: unknown, opts: FingerprintOptions | undefined): Pieces | null {
  if (typeof body !== 'object' || body === null) return null;
  const proto: unknown = Object.getPrototypeOf(body);
  const plain =
    (proto === Object.prototype || proto === null) &&
    typeof (body as { toJSON?: unknown }).toJSON !== 'function';
  if (!plain) {
    // Class instances, arrays, objects with toJSON, Blob-like bodies: exactly what JSON.stringify makes of them.
    const text = JSON.stringify(body) as string | undefined;
    return text === undefined ? null : fromText(spec, text, opts);
  }
  const obj = body as Record<string, unknown>;
  const members = new Map<string, Pieces>();
  try {
    for (const key of WANTED[spec.flavor]) {
      if (!Object.prototype.propertyIsEnumerable.call(obj, key)) continue;
      const v = canonicalizeValue(obj[key], 1);
      if (v !== undefined) members.set(key, Pieces.of(v));
    }
  } catch (err) {
    if (isInvalidJson(err)) return null;
    throw err;
  }
  return assemble(spec, members, optionModelLiteral(opts));
}

function optionModelLiteral(opts: FingerprintOptions | undefined): string | undefined {
  const m = opts?.model;
  return typeof m === 'string' ? JSON.stringify(normalizeOptionModel(m)) : undefined;
}

/**
 * Builds `{"flavor":…,"model":…,<fields>}` in sorted key order from canonical member values.
 * Works on either representation (text or byte string): all names are ASCII.
 */
function assemble(
  spec: FlavorSpec,
  members: ReadonlyMap<string, Pieces>,
  optionModel: string | undefined,
): Pieces | null {
  const out: Array<[string, Pieces]> = [['flavor', Pieces.of(JSON.stringify(spec.flavor))]];
  const present = (v: Pieces | undefined): v is Pieces => v !== undefined && !v.is('null');
  const bodyModel = spec.model === 'body' ? members.get('model') : undefined;
  const model = present(bodyModel)
    ? bodyModel
    : optionModel === undefined
      ? undefined
      : Pieces.of(optionModel);
  if (model !== undefined) out.push(['model', model]);
  let hasContent = false;
  for (const f of spec.fields) {
    for (const alias of f.from) {
      const v = members.get(alias);
      if (present(v)) {
        out.push([f.name, v]);
        if (spec.content.includes(f.name)) hasContent = true;
        break;
      }
    }
  }
  if (!hasContent) return null;
  out.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const text = new Pieces();
  for (let i = 0; i < out.length; i++) {
    const [name, v] = out[i]!;
    text.add((i === 0 ? '{"' : ',"') + name + '":');
    text.addAll(v);
  }
  text.add('}');
  return text;
}
