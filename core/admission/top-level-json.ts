/**
 * The top-level members of a JSON object body, found without building the object (issue 19.2): each key
 * as a JSON parser decodes it (`"mod\u0065l"` is `model`) with the byte span of its value, in order.
 * Providers' parsers keep the LAST of two equal keys; a relay that read the first would bound one call and
 * forward another, so duplicates are reported and the caller refuses the body.
 *
 * Linear in the body: strings are skipped with the typed array's `indexOf` (native), so a 30 MB base64 image costs
 * one pass; nested values are skipped by bracket depth. Scalars and nesting are not validated here
 * (`JSON.parse` does that for bodies it parses); the structure of the top level is.
 */

/** One top-level member: its decoded key and the byte span `[start, end)` of its value. */
export interface TopLevelMember {
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

/** The scan of a body: its members, or where its top level stops being a JSON object. */
export type TopLevelScan =
  | { readonly ok: true; readonly members: readonly TopLevelMember[]; readonly duplicates: readonly string[] }
  | { readonly ok: false; readonly reason: string; readonly at: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
// Keeps a byte order mark as Buffer#toString does (a value that starts with one is not JSON). No Buffer:
// the SDK reads its calls' shapes with these modules too (issue 18.5).
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The text of UTF-8 bytes as `Buffer#toString` reads them (a byte order mark kept, invalid bytes U+FFFD). */
export function utf8Text(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The index of the first byte at or after `i` that is not JSON whitespace (`buf.length` when none is). */
export function skipSpace(buf: Uint8Array, i: number): number {
  while (i < buf.length && isSpace(buf[i])) i++;
  return i;
}

/** Index just past the string whose opening quote is at `i`, or -1 when it never closes. */
function skipString(buf: Uint8Array, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = buf.indexOf(QUOTE, from);
    if (q === -1) return -1;
    let slashes = 0;
    for (let k = q - 1; k > i && buf[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Index just past the value starting at `i` (any JSON value), or -1 when it is cut off. */
function skipValue(buf: Uint8Array, i: number): number {
  const c = buf[i];
  if (c === QUOTE) return skipString(buf, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    while (i < buf.length) {
      const b = buf[i] as number;
      if (b === QUOTE) {
        i = skipString(buf, i);
        if (i === -1) return -1;
        continue;
      }
      if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return -1;
  }
  // A scalar: up to the next delimiter of the object.
  const start = i;
  while (i < buf.length) {
    const b = buf[i];
    if (b === COMMA || b === CLOSE_BRACE || isSpace(b)) break;
    i++;
  }
  return i === start ? -1 : i;
}

/**
 * Scans the top level of `buf` as a JSON object.
 *
 * @example
 * scanTopLevel(Buffer.from('{"model":"a","n":1,"model":"b"}'))
 * // { ok: true, members: [{ key: 'model', … }, { key: 'n', … }, { key: 'model', … }], duplicates: ['model'] }
 */
export function scanTopLevel(buf: Uint8Array): TopLevelScan {
  const members: TopLevelMember[] = [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const fail = (reason: string, at: number): TopLevelScan => ({ ok: false, reason, at });
  let i = skipSpace(buf, 0);
  if (buf[i] !== OPEN_BRACE) return fail('the body is not a JSON object', i);
  i = skipSpace(buf, i + 1);
  if (buf[i] === CLOSE_BRACE) {
    i = skipSpace(buf, i + 1);
    return i === buf.length ? { ok: true, members, duplicates } : fail('data after the JSON object', i);
  }
  for (;;) {
    if (buf[i] !== QUOTE) return fail('expected a member name', i);
    const keyEnd = skipString(buf, i);
    if (keyEnd === -1) return fail('unterminated member name', i);
    let key: string;
    // Most names carry no escape: read them as they are; an escaped one is decoded as a JSON parser would.
    if (buf.subarray(i + 1, keyEnd - 1).indexOf(BACKSLASH) === -1) {
      key = utf8Text(buf.subarray(i + 1, keyEnd - 1));
    } else {
      try {
        key = JSON.parse(utf8Text(buf.subarray(i, keyEnd))) as string;
      } catch {
        return fail('invalid member name', i);
      }
    }
    i = skipSpace(buf, keyEnd);
    if (buf[i] !== COLON) return fail(`expected ':' after "${key.slice(0, 64)}"`, i);
    i = skipSpace(buf, i + 1);
    const start = i;
    const end = skipValue(buf, i);
    if (end === -1) return fail(`the value of "${key.slice(0, 64)}" is cut off or missing`, i);
    members.push({ key, start, end });
    if (seen.has(key)) {
      if (!duplicates.includes(key)) duplicates.push(key);
    } else seen.add(key);
    i = skipSpace(buf, end);
    if (buf[i] === COMMA) {
      i = skipSpace(buf, i + 1);
      continue;
    }
    if (buf[i] !== CLOSE_BRACE) return fail(`expected ',' or '}' after "${key.slice(0, 64)}"`, i);
    i = skipSpace(buf, i + 1);
    return i === buf.length ? { ok: true, members, duplicates } : fail('data after the JSON object', i);
  }
}
