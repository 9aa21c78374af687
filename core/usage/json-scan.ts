/**
 * Reading a few fields of a JSON text without parsing it: the stream hot path uses these on every frame
 * so that only frames that carry usage go through JSON.parse.
 *
 * Safe on valid JSON because a quote inside a string is always escaped: `usage"` followed by a colon and
 * preceded by an unescaped quote can only be the key `usage` (at some depth).
 *
 * Keys are searched by their name plus closing quote (`usage"`), not with the opening quote: quotes are
 * the most frequent character of JSON, so a pattern starting with one makes `indexOf` stop at every
 * string, while a pattern starting with a letter lets it skip ahead (about 3× faster on chat chunks).
 */
import type { TokenTally } from './estimate';

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/** An object key prepared for searching. Create once, at module level, with {@link jsonKey}. */
export interface JsonKey {
  readonly name: string;
  /** `name` followed by its closing quote: what `indexOf` looks for. */
  readonly anchor: string;
}

/** Prepares a key for the functions of this module. */
export function jsonKey(name: string): JsonKey {
  return { name, anchor: `${name}"` };
}

function skipSpace(s: string, i: number): number {
  let c = s.charCodeAt(i);
  while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++i);
  return i;
}

/** Index of the value of the first occurrence of `key` at or after `from` (past colon and whitespace), or -1. */
export function valueIndex(s: string, key: JsonKey, from = 0): number {
  const anchor = key.anchor;
  let i = s.indexOf(anchor, from + 1);
  while (i !== -1) {
    if (s.charCodeAt(i - 1) === QUOTE) {
      const colon = skipSpace(s, i + anchor.length);
      if (s.charCodeAt(colon) === COLON) return skipSpace(s, colon + 1);
    }
    i = s.indexOf(anchor, i + 1);
  }
  return -1;
}

/** True when some occurrence of `key` has an object value (`"usage":{…}`, not `"usage":null`). */
export function hasObjectValue(s: string, key: JsonKey): boolean {
  let v = valueIndex(s, key);
  while (v !== -1) {
    if (s.charCodeAt(v) === OPEN_BRACE) return true;
    v = valueIndex(s, key, v);
  }
  return false;
}

/** Index of the closing quote of the string whose body starts at `start`, or -1 if unterminated. */
function stringEnd(s: string, start: number): number {
  let i = start;
  for (;;) {
    const q = s.indexOf('"', i);
    if (q === -1) return -1;
    let b = q - 1;
    while (b >= start && s.charCodeAt(b) === BACKSLASH) b--;
    if (((q - 1 - b) & 1) === 0) return q;
    i = q + 1;
  }
}

/** UTF-16 length of the decoded string body `s[start, end)` (an escape sequence decodes to one unit). */
function decodedLength(s: string, start: number, end: number): number {
  const bs = s.indexOf('\\', start);
  if (bs === -1 || bs >= end) return end - start;
  let length = bs - start;
  let i = bs;
  while (i < end) {
    if (s.charCodeAt(i) === BACKSLASH) i += s.charCodeAt(i + 1) === 117 /* u */ ? 6 : 2;
    else i++;
    length++;
  }
  return length;
}

function decodeString(s: string, start: number, end: number): string {
  const raw = s.slice(start, end);
  if (raw.indexOf('\\') === -1) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** Adds the string body `s[start, end)` to the tally: its text if the tally counts tokens, else its length. */
function tallyString(s: string, start: number, end: number, tally: TokenTally): void {
  if (end <= start) return;
  if (tally.wantsText) tally.addText(decodeString(s, start, end));
  else tally.addChars(decodedLength(s, start, end));
}

/** The decoded string value of the first occurrence of `key`, or undefined when absent or not a string. */
export function readStringValue(s: string, key: JsonKey): string | undefined {
  const v = valueIndex(s, key);
  if (v === -1 || s.charCodeAt(v) !== QUOTE) return undefined;
  const end = stringEnd(s, v + 1);
  return end === -1 ? undefined : decodeString(s, v + 1, end);
}

/** Strings up to this long are measured by one JavaScript loop; longer ones by native searches. */
const SHORT_STRING = 64;

/**
 * Tallies the string value at index `v` (as returned by {@link valueIndex}); returns the index after it,
 * or `v` when the value is not a string.
 */
export function tallyStringAt(s: string, v: number, tally: TokenTally): number {
  if (s.charCodeAt(v) !== QUOTE) return v;
  const start = v + 1;
  if (!tally.wantsText) {
    // Fast path for stream deltas (a few characters): find the closing quote and the decoded length
    // in one pass instead of two native searches.
    const limit = Math.min(s.length, start + SHORT_STRING);
    let length = 0;
    for (let i = start; i < limit; i++) {
      const c = s.charCodeAt(i);
      if (c === QUOTE) {
        tally.addChars(length);
        return i + 1;
      }
      if (c === BACKSLASH) i += s.charCodeAt(i + 1) === 117 /* u */ ? 5 : 1;
      length++;
    }
  }
  const end = stringEnd(s, start);
  if (end === -1) return s.length;
  tallyString(s, start, end, tally);
  return end + 1;
}

/**
 * Tallies every string value of the given keys, anywhere in `s` (one `indexOf` pass per key).
 * Non-string values (`"content":null`, objects) are skipped.
 */
export function tallyStringValues(s: string, keys: readonly JsonKey[], tally: TokenTally): void {
  for (const key of keys) {
    let v = valueIndex(s, key);
    while (v !== -1) {
      v = valueIndex(s, key, tallyStringAt(s, v, tally));
    }
  }
}

function isKey(s: string, start: number, end: number, keys: readonly JsonKey[]): boolean {
  const length = end - start;
  for (const key of keys) {
    if (key.name.length === length && s.startsWith(key.name, start)) return true;
  }
  return false;
}

/**
 * Tallies the string values of the given keys inside the one object or array that starts at `start`,
 * scanning that value only (a chat chunk's `delta`, a few dozen characters) rather than the whole frame.
 * Returns how many non-empty strings it tallied.
 */
export function tallyStringsWithin(
  s: string,
  start: number,
  keys: readonly JsonKey[],
  tally: TokenTally,
): number {
  const first = s.charCodeAt(start);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return 0;
  let tallied = 0;
  let depth = 0;
  let i = start;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(s, i + 1);
      if (end === -1) return tallied;
      const after = skipSpace(s, end + 1);
      if (s.charCodeAt(after) === COLON) {
        const value = skipSpace(s, after + 1);
        if (isKey(s, i + 1, end, keys)) {
          i = tallyStringAt(s, value, tally);
          if (i > value + 2) tallied++;
        } else {
          i = value;
        }
      } else {
        i = end + 1;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      i++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      i++;
      if (depth === 0) return tallied;
    } else {
      i++;
    }
  }
  return tallied;
}
