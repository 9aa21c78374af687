/**
 * The request fingerprint (guardrail layer 2): `sha256:` + hex SHA-256 of the body's canonical form,
 * identical to core/fingerprint's `fingerprintRequest` (the proxy's and the server's), hashed here with
 * WebCrypto so it runs in every runtime.
 *
 * The canonical form is core's: `{"flavor":…,"model":…,<the flavor's prompt members>}` with sorted
 * keys and no whitespace, the members chosen by core's `FLAVOR_SPECS` (imported). Core builds it with a
 * fast streaming scanner (~8 KB minified); the SDK, which must stay under 20 KB, uses the equivalent
 * `JSON.parse` + sorted serialization (core documents the two as the same function, and
 * `sdk/test/fingerprint.test.ts` checks equality with core on random bodies).
 */
import { FLAVOR_SPECS, normalizeOptionModel, type RequestFlavor } from '../../core/fingerprint/flavors';
import { sha256Hex } from './runtime';

/** Containers nested deeper than this make a body unusable (core's MAX_JSON_DEPTH). */
const MAX_DEPTH = 1000;

let strictUtf8: InstanceType<typeof TextDecoder> | undefined;

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
  try {
    const spec = FLAVOR_SPECS[flavor];
    const text =
      typeof body === 'string'
        ? body
        : (strictUtf8 ??= new TextDecoder('utf-8', { fatal: true })).decode(body);
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
    const members = value as Record<string, unknown>;
    const present = (v: unknown): boolean => v !== undefined && v !== null;
    const has = (key: string): boolean =>
      Object.prototype.hasOwnProperty.call(members, key) && present(members[key]);
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
    return `{${out.map(([k, v]) => `"${k}":${v}`).join(',')}}`;
  } catch {
    return null; // not JSON, invalid UTF-8, too deep
  }
}

/** Canonical JSON of a parsed value: sorted keys (UTF-16 order), JSON.stringify's strings and numbers. */
function canonical(value: unknown, depth: number): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (depth + 1 > MAX_DEPTH) throw new RangeError('too deep');
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(obj[k], depth + 1)}`)
    .join(',')}}`;
}

/** `sha256:<hex>` of a request body, or undefined (not fingerprintable, or no WebCrypto). */
export async function fingerprintBody(
  flavor: RequestFlavor,
  body: string | Uint8Array,
  model?: string,
): Promise<string | undefined> {
  const text = canonicalRequestText(flavor, body, model);
  if (text === null) return undefined;
  const hex = await sha256Hex(text);
  return hex === null ? undefined : `sha256:${hex}`;
}
