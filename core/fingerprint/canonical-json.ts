/**
 * Canonical JSON: the one serialization of a JSON value that does not depend on how it was written.
 *
 * Rules (the same as `JSON.stringify` of the parsed value, with object keys sorted):
 * - no whitespace outside strings;
 * - object members sorted by key, comparing UTF-16 code units (JavaScript's `<`, as in RFC 8785);
 *   a key that appears twice keeps its last value (as `JSON.parse` does);
 * - strings written as `JSON.stringify` writes them: only `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`
 *   and `\u00xx` (other control characters) and `\udxxx` (lone surrogates) are escaped; every other
 *   character is written as itself (so `"\u00e9"`, `"\/"` and `"é"`, `"/"` are the same string);
 * - numbers written as `JSON.stringify` writes them (`1.0` → `1`, `1e2` → `100`, `-0` → `0`;
 *   a literal too large for a double, such as `1e400`, becomes `null` as `JSON.stringify(Infinity)` does).
 *
 * The scanner below produces this form straight from the JSON text, without building JavaScript
 * objects: long strings that are already canonical (the common case: no `\u` or `\/` escapes) are
 * copied as slices of the input, found with `indexOf`, which is far faster than `JSON.parse` followed
 * by a sorted `JSON.stringify`. It accepts exactly what `JSON.parse` accepts (tested against it),
 * except that nesting deeper than {@link MAX_JSON_DEPTH} is refused.
 *
 * It works on two representations of the text:
 * - an ordinary JavaScript (UTF-16) string, and
 * - a "byte string": valid UTF-8 bytes decoded as Latin-1, one character per byte. This lets the
 *   Node.js hashing path skip UTF-8 decoding and encoding altogether; output is a byte string too.
 *
 * Pure: no I/O, no Node.js APIs (TextDecoder/TextEncoder are globals in Node.js and browsers).
 * @module
 */

/** Objects and arrays nested deeper than this make a body unusable (canonical form `null`). */
export const MAX_JSON_DEPTH = 1000;

/** Internal signal: the text is not JSON (or is nested too deep). Never escapes this module's callers. */
class InvalidJson extends Error {
  override readonly name = 'InvalidJson';
}
const INVALID = new InvalidJson('not a JSON text');

/** True when `err` is the scanner's own "not JSON" signal (callers turn it into `null`). */
export function isInvalidJson(err: unknown): boolean {
  return err instanceof InvalidJson;
}

/**
 * Signal of a scanner given a value budget: the text holds more values than the budget, or (then)
 * nests deeper than {@link MAX_JSON_DEPTH}. The scanner stops there, so the work done is bounded by
 * the budget whatever the text; the fingerprint falls back to a hash of the raw bytes.
 */
class OverBound extends Error {
  override readonly name = 'OverBound';
}
const OVER_BOUND = new OverBound('over the scan bounds');

/** True when `err` is a bounded scanner's "over the bounds" signal. */
export function isOverBound(err: unknown): boolean {
  return err instanceof OverBound;
}

// ignoreBOM: a piece that starts with U+FEFF keeps it (it is content here, not a byte-order mark).
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const utf8Encoder = new TextEncoder();

/** Decodes a byte string (UTF-8 bytes as Latin-1 characters) to an ordinary string. */
export function byteStringToText(bytes: string): string {
  const u8 = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) u8[i] = bytes.charCodeAt(i);
  return utf8Decoder.decode(u8);
}

/** Encodes an ordinary string as a byte string (its UTF-8 bytes as Latin-1 characters). */
export function textToByteString(text: string): string {
  const u8 = utf8Encoder.encode(text);
  let out = '';
  const CHUNK = 8192;
  for (let i = 0; i < u8.length; i += CHUNK) {
    out += String.fromCharCode.apply(null, Array.from(u8.subarray(i, i + CHUNK)));
  }
  return out;
}

// eslint-disable-next-line no-control-regex -- raw control characters are exactly what must be found
const SPECIAL_BYTES = /[\x00-\x1f]/g;
// eslint-disable-next-line no-control-regex -- as above, plus UTF-16 surrogates (checked for pairing)
const SPECIAL_UTF16 = /[\x00-\x1f\ud800-\udfff]/g;

/**
 * Pieces of canonical text, in order. Short pieces are merged into `tail`; long ones (usually
 * slices of the input, which V8 shares rather than copies) stay separate, so the result can be
 * hashed piece by piece without ever building one large string.
 */
export class Pieces {
  /** Completed pieces. */
  readonly parts: string[] = [];
  private tail = '';

  add(text: string): void {
    if (text.length >= LONG_PIECE) {
      if (this.tail !== '') {
        this.parts.push(this.tail);
        this.tail = '';
      }
      this.parts.push(text);
    } else {
      this.tail += text;
    }
  }

  addAll(other: Pieces): void {
    for (const p of other.parts) this.add(p);
    if (other.tail !== '') this.add(other.tail);
  }

  /** All pieces; the object must not be added to afterwards. */
  finish(): readonly string[] {
    if (this.tail !== '') {
      this.parts.push(this.tail);
      this.tail = '';
    }
    return this.parts;
  }

  /** The whole text as one string. */
  text(): string {
    return this.finish().join('');
  }

  /** True when the text is exactly `literal` (used to treat a `null` member as absent). */
  is(literal: string): boolean {
    return this.parts.length === 0
      ? this.tail === literal
      : this.tail === '' && this.parts.length === 1 && this.parts[0] === literal;
  }

  static of(text: string): Pieces {
    const p = new Pieces();
    p.add(text);
    return p;
  }
}

/** Pieces at least this long are kept separate (one hash update each) instead of being merged. */
const LONG_PIECE = 1024;

/**
 * A single-pass JSON scanner that produces canonical text instead of JavaScript values.
 * Throws {@link INVALID} on anything `JSON.parse` would reject.
 *
 * `value()` returns null when the canonical text of the value is exactly its source text
 * (`s.slice(start, pos)`: canonical strings and numbers, literals, and containers with sorted keys,
 * no whitespace and raw children); the caller then takes the slice itself, which lets a parent
 * reuse one slice for many children. Otherwise it returns the canonical text as {@link Pieces}.
 */
export class CanonicalScanner {
  /** Position of the next character to read. */
  pos = 0;
  private depth: number;
  private readonly len: number;
  /** Cached position of the next backslash at or after the current string (len when none). */
  private nextBackslash = -1;
  /** Cached position of the next control character (or surrogate, for UTF-16 text). */
  private nextSpecial = -1;
  private readonly special: RegExp;
  /** Set by string(): whether the last string contained any escape. */
  private lastHadEscape = false;

  /** Values still allowed (each member value and array element; a standalone top value counts too). */
  private valuesLeft: number;

  /**
   * @param maxValues when given, the scan throws the over-bound signal (see {@link isOverBound})
   *   after this many values, or on nesting deeper than {@link MAX_JSON_DEPTH}, instead of going on.
   */
  constructor(
    private readonly s: string,
    private readonly byteString: boolean,
    startDepth = 0,
    private readonly maxValues?: number,
  ) {
    this.len = s.length;
    this.depth = startDepth;
    this.valuesLeft = maxValues ?? Infinity;
    this.special = new RegExp(byteString ? SPECIAL_BYTES : SPECIAL_UTF16);
  }

  /** Skips JSON whitespace (space, tab, line feed, carriage return). */
  skipWs(): void {
    const s = this.s;
    let p = this.pos;
    for (;;) {
      const c = s.charCodeAt(p);
      if (c === 32 || c === 10 || c === 13 || c === 9) p++;
      else break;
    }
    this.pos = p;
  }

  /** Throws unless only whitespace remains. */
  expectEnd(): void {
    this.skipWs();
    if (this.pos !== this.len) throw INVALID;
  }

  /** Reads one complete JSON value at the current position and returns its canonical text. */
  valuePieces(): Pieces {
    const start = this.pos;
    const built = this.value();
    return built ?? Pieces.of(this.s.slice(start, this.pos));
  }

  /** Reads one JSON value at the current position (no whitespace first); see the class comment. */
  value(): Pieces | null {
    if (--this.valuesLeft < 0) throw OVER_BOUND;
    const c = this.s.charCodeAt(this.pos);
    switch (c) {
      case 123: // {
        return this.object();
      case 91: // [
        return this.array();
      case 34: {
        // "
        const normalized = this.string();
        return normalized === null ? null : Pieces.of(normalized);
      }
      case 116: // t
        return this.word('true');
      case 102: // f
        return this.word('false');
      case 110: // n
        return this.word('null');
      default:
        if (c === 45 || (c >= 48 && c <= 57)) return this.number();
        throw INVALID;
    }
  }

  /**
   * Reads the whole text, which must be one JSON value. When it is an object, returns the canonical
   * value of each wanted member (the last occurrence of a repeated key wins), validating the rest;
   * returns null when the text is JSON but not an object.
   */
  topLevelMembers(wanted: ReadonlySet<string>): Map<string, Pieces> | null {
    this.skipWs();
    if (this.s.charCodeAt(this.pos) !== 123) {
      this.value();
      this.expectEnd();
      return null;
    }
    const found = new Map<string, Pieces>();
    this.enter();
    this.pos++;
    this.skipWs();
    if (this.s.charCodeAt(this.pos) === 125) {
      this.pos++;
    } else {
      for (;;) {
        if (this.s.charCodeAt(this.pos) !== 34) throw INVALID;
        const keyStart = this.pos;
        const key = this.keyText(keyStart, this.string());
        this.colon();
        const v = this.valuePieces();
        if (wanted.has(key)) found.set(key, v);
        if (this.commaOrEnd(125)) break;
      }
    }
    this.depth--;
    this.expectEnd();
    return found;
  }

  /** Enters an object or array: nesting deeper than MAX_JSON_DEPTH is invalid, or over a budget's bound. */
  private enter(): void {
    if (++this.depth > MAX_JSON_DEPTH) throw this.maxValues === undefined ? INVALID : OVER_BOUND;
  }

  private word(w: 'true' | 'false' | 'null'): null {
    if (!this.s.startsWith(w, this.pos)) throw INVALID;
    this.pos += w.length;
    return null;
  }

  private number(): Pieces | null {
    const s = this.s;
    const start = this.pos;
    let p = start;
    if (s.charCodeAt(p) === 45) p++;
    let c = s.charCodeAt(p);
    if (c === 48) p++;
    else if (c >= 49 && c <= 57) {
      p++;
      while ((c = s.charCodeAt(p)) >= 48 && c <= 57) p++;
    } else throw INVALID;
    let integer = true;
    if (s.charCodeAt(p) === 46) {
      integer = false;
      p++;
      if (!((c = s.charCodeAt(p)) >= 48 && c <= 57)) throw INVALID;
      while ((c = s.charCodeAt(p)) >= 48 && c <= 57) p++;
    }
    c = s.charCodeAt(p);
    if (c === 101 || c === 69) {
      integer = false;
      p++;
      c = s.charCodeAt(p);
      if (c === 43 || c === 45) p++;
      if (!((c = s.charCodeAt(p)) >= 48 && c <= 57)) throw INVALID;
      while ((c = s.charCodeAt(p)) >= 48 && c <= 57) p++;
    }
    this.pos = p;
    // Integers of at most 15 characters are exact doubles whose shortest form is themselves.
    if (
      integer &&
      p - start <= 15 &&
      !(p - start === 2 && s.charCodeAt(start) === 45 && s.charCodeAt(start + 1) === 48)
    ) {
      return null;
    }
    const n = Number(s.slice(start, p));
    return Pieces.of(Number.isFinite(n) ? String(n) : 'null');
  }

  /** Finds the next control character (or surrogate) at or after `from`; len when none. */
  private findSpecial(from: number): number {
    const re = this.special;
    re.lastIndex = from;
    return re.test(this.s) ? re.lastIndex - 1 : this.len;
  }

  /**
   * Reads a string literal at the current position. Returns null when the literal is already
   * canonical (the source slice is its canonical form), else the canonical literal.
   */
  private string(): string | null {
    const s = this.s;
    const start = this.pos; // the opening quote
    let q: number;
    let from = start + 1;
    // The closing quote is the first quote preceded by an even number of backslashes.
    for (;;) {
      q = s.indexOf('"', from);
      if (q < 0) throw INVALID;
      if (s.charCodeAt(q - 1) !== 92) break;
      let k = q - 2;
      while (s.charCodeAt(k) === 92) k--;
      if (((q - 1 - k) & 1) === 0) break;
      from = q + 1;
    }
    this.pos = q + 1;
    let canonical = true;

    // Raw control characters are invalid; lone surrogates are valid but JSON.stringify escapes them.
    let sp = this.nextSpecial;
    if (sp <= start) sp = this.findSpecial(start + 1);
    while (sp < q) {
      const c = s.charCodeAt(sp);
      if (c < 0x20) throw INVALID;
      if (c <= 0xdbff && sp + 1 < q) {
        const d = s.charCodeAt(sp + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          sp = this.findSpecial(sp + 2);
          continue;
        }
      }
      canonical = false;
      sp = this.findSpecial(sp + 1);
    }
    this.nextSpecial = sp;

    // Escapes: \" \\ \b \f \n \r \t are canonical; \/ and \uXXXX are valid but rewritten.
    let b = this.nextBackslash;
    if (b <= start) {
      b = s.indexOf('\\', start + 1);
      if (b < 0) b = this.len;
    }
    this.lastHadEscape = b < q;
    while (b < q) {
      const e = s.charCodeAt(b + 1);
      let next = b + 2;
      if (e === 117) {
        if (!(
          isHex(s.charCodeAt(b + 2)) &&
          isHex(s.charCodeAt(b + 3)) &&
          isHex(s.charCodeAt(b + 4)) &&
          isHex(s.charCodeAt(b + 5))
        )) {
          throw INVALID;
        }
        canonical = false;
        next = b + 6;
      } else if (e === 47) {
        canonical = false;
      } else if (!(e === 34 || e === 92 || e === 110 || e === 116 || e === 114 || e === 98 || e === 102)) {
        throw INVALID;
      }
      b = s.indexOf('\\', next);
      if (b < 0) b = this.len;
    }
    this.nextBackslash = b;

    if (canonical) return null;
    const raw = s.slice(start, q + 1);
    if (!this.byteString) return JSON.stringify(JSON.parse(raw) as string);
    return textToByteString(JSON.stringify(JSON.parse(byteStringToText(raw)) as string));
  }

  /**
   * The decoded key (an ordinary string, for sorting and lookup) of the key literal that starts at
   * `start` and ends at the current position; `normalized` is what string() returned for it.
   */
  private keyText(start: number, normalized: string | null): string {
    const s = this.s;
    if (this.lastHadEscape) {
      const literal = normalized ?? s.slice(start, this.pos);
      return JSON.parse(this.byteString ? byteStringToText(literal) : literal) as string;
    }
    const end = this.pos - 1;
    if (this.byteString) {
      for (let i = start + 1; i < end; i++) {
        if (s.charCodeAt(i) > 0x7f) return byteStringToText(s.slice(start + 1, end));
      }
    }
    return s.slice(start + 1, end);
  }

  private colon(): void {
    this.skipWs();
    if (this.s.charCodeAt(this.pos) !== 58) throw INVALID;
    this.pos++;
    this.skipWs();
  }

  /** After a member or element: consumes `,` (returns false) or the closing bracket (returns true). */
  private commaOrEnd(close: number): boolean {
    this.skipWs();
    const c = this.s.charCodeAt(this.pos++);
    if (c === 44) {
      this.skipWs();
      return false;
    }
    if (c === close) return true;
    throw INVALID;
  }

  private object(): Pieces | null {
    this.enter();
    const s = this.s;
    const objStart = this.pos;
    this.pos++;
    this.skipWs();
    if (s.charCodeAt(this.pos) === 125) {
      this.pos++;
      this.depth--;
      return this.pos === objStart + 2 ? null : Pieces.of('{}');
    }
    // Per member: decoded key, source range [start, end) when the member's text is canonical as
    // written (`"key":value`), else its canonical text.
    const keys: string[] = [];
    const starts: number[] = [];
    const ends: number[] = [];
    const built: Array<Pieces | null> = [];
    let sorted = true;
    let compact = this.pos === objStart + 1; // no whitespace anywhere, so far
    let prev = '';
    for (;;) {
      if (s.charCodeAt(this.pos) !== 34) throw INVALID;
      const keyStart = this.pos;
      const keyNorm = this.string();
      const key = this.keyText(keyStart, keyNorm);
      const keyEnd = this.pos;
      this.colon();
      const valueStart = this.pos;
      const v = this.value();
      const memberRaw = keyNorm === null && v === null && valueStart === keyEnd + 1;
      if (memberRaw) {
        built.push(null);
      } else {
        const p = Pieces.of(keyNorm ?? s.slice(keyStart, keyEnd));
        p.add(':');
        if (v === null) p.add(s.slice(valueStart, this.pos));
        else p.addAll(v);
        built.push(p);
        compact = false;
      }
      starts.push(keyStart);
      ends.push(this.pos);
      if (keys.length > 0 && !(prev < key)) sorted = false;
      prev = key;
      keys.push(key);
      const end = this.pos;
      const done = this.commaOrEnd(125);
      if (this.pos !== end + 1) compact = false;
      if (done) break;
    }
    this.depth--;
    if (sorted && compact) return null;

    const order = sorted ? null : sortedOrder(keys);
    const out = Pieces.of('{');
    // Runs of members that are raw and adjacent in the source are copied as one slice.
    let runStart = -1;
    let runEnd = -1;
    let first = true;
    const n = order === null ? keys.length : order.length;
    for (let j = 0; j < n; j++) {
      const i = order === null ? j : order[j]!;
      const b = built[i]!;
      if (b === null && runStart >= 0 && starts[i] === runEnd + 1 && s.charCodeAt(runEnd) === 44) {
        runEnd = ends[i]!;
        continue;
      }
      if (runStart >= 0) out.add(s.slice(runStart, runEnd));
      runStart = -1;
      if (!first) out.add(',');
      first = false;
      if (b === null) {
        runStart = starts[i]!;
        runEnd = ends[i]!;
      } else {
        out.addAll(b);
      }
    }
    if (runStart >= 0) out.add(s.slice(runStart, runEnd));
    out.add('}');
    return out;
  }

  private array(): Pieces | null {
    this.enter();
    const s = this.s;
    const arrStart = this.pos;
    this.pos++;
    this.skipWs();
    if (s.charCodeAt(this.pos) === 93) {
      this.pos++;
      this.depth--;
      return this.pos === arrStart + 2 ? null : Pieces.of('[]');
    }
    // Output so far: `out` (null while nothing had to be built) followed by the source run
    // [runStart, current position) that is canonical as written (runStart < 0: no open run).
    let out: Pieces | null = null;
    let runStart = arrStart;
    if (this.pos !== arrStart + 1) {
      out = Pieces.of('[');
      runStart = -1;
    }
    for (;;) {
      const valueStart = this.pos;
      const v = this.value();
      const valueEnd = this.pos;
      if (v === null) {
        if (runStart < 0) runStart = valueStart;
      } else {
        out ??= new Pieces();
        if (runStart >= 0) out.add(s.slice(runStart, valueStart));
        runStart = -1;
        out.addAll(v);
      }
      const done = this.commaOrEnd(93);
      if (this.pos !== valueEnd + 1) {
        // whitespace around the separator: close the run before it
        out ??= new Pieces();
        if (runStart >= 0) out.add(s.slice(runStart, valueEnd));
        runStart = -1;
        out.add(done ? ']' : ',');
      } else if (runStart < 0) {
        out!.add(done ? ']' : ',');
      }
      if (done) break;
    }
    this.depth--;
    if (out === null) return null;
    if (runStart >= 0) out.add(s.slice(runStart, this.pos));
    return out;
  }
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/** Objects with at most this many members are sorted by insertion (quadratic, but tiny). */
const SMALL_OBJECT = 16;

/** Member indexes in key order; of duplicate keys only the last is kept (JSON.parse semantics). */
function sortedOrder(keys: readonly string[]): number[] {
  const order = keys.map((_, i) => i);
  if (order.length <= SMALL_OBJECT) {
    // Insertion sort: the common small object, where it beats a comparator sort; stable.
    for (let i = 1; i < order.length; i++) {
      const x = order[i]!;
      const kx = keys[x]!;
      let j = i - 1;
      while (j >= 0 && keys[order[j]!]! > kx) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = x;
    }
  } else {
    // O(n log n) (V8's TimSort); ties broken by source position, so equal keys keep source order and
    // the last duplicate stays last. (Insertion sort alone once made 60,000 reverse-ordered keys take
    // 9.7 s: issue 15.1.)
    order.sort((a, b) => {
      const ka = keys[a]!;
      const kb = keys[b]!;
      return ka < kb ? -1 : ka > kb ? 1 : a - b;
    });
  }
  const out: number[] = [];
  for (let i = 0; i < order.length; i++) {
    const idx = order[i]!;
    const nextIdx = order[i + 1];
    if (nextIdx !== undefined && keys[nextIdx] === keys[idx]) continue; // a later duplicate follows
    out.push(idx);
  }
  return out;
}

/**
 * Canonical text of one complete JSON text (an ordinary string), or null when it is not JSON.
 * `startDepth` counts the containers already entered around it (for the nesting limit).
 */
export function canonicalizeJsonText(text: string, startDepth = 0): string | null {
  try {
    const sc = new CanonicalScanner(text, false, startDepth);
    sc.skipWs();
    const v = sc.valuePieces();
    sc.expectEnd();
    return v.text();
  } catch (err) {
    if (isInvalidJson(err) || err instanceof SyntaxError || err instanceof RangeError) return null;
    throw err;
  }
}

/**
 * Canonical text of a JavaScript value, exactly as if it were first serialized with `JSON.stringify`
 * (so `toJSON`, `undefined` members, `NaN` → `null` and the rest follow its rules), or `undefined`
 * when `JSON.stringify` would return undefined. Throws the scanner's signal (see {@link isInvalidJson})
 * when `JSON.stringify` would throw (cycles, BigInt) or nesting exceeds {@link MAX_JSON_DEPTH}.
 *
 * Plain objects and arrays are walked directly; anything else is passed through `JSON.stringify`
 * and the scanner, which keeps the semantics exact without re-implementing every corner of it.
 */
export function canonicalizeValue(value: unknown, depth = 0): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (depth >= MAX_JSON_DEPTH) throw INVALID;
      const proto: unknown = Object.getPrototypeOf(value);
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return viaStringify(value, depth);
      if (Array.isArray(value)) {
        if (proto !== Array.prototype) return viaStringify(value, depth);
        const arr = value as readonly unknown[];
        let out = '[';
        for (let i = 0; i < arr.length; i++) {
          out += (i === 0 ? '' : ',') + (canonicalizeValue(arr[i], depth + 1) ?? 'null');
        }
        return out + ']';
      }
      if (proto !== Object.prototype && proto !== null) return viaStringify(value, depth);
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      let out = '{';
      let first = true;
      for (const k of keys) {
        const v = canonicalizeValue(obj[k], depth + 1);
        if (v === undefined) continue;
        out += (first ? '' : ',') + JSON.stringify(k) + ':' + v;
        first = false;
      }
      return out + '}';
    }
    case 'bigint':
      return viaStringify(value, depth);
    default:
      return undefined; // undefined, functions and symbols are skipped by JSON.stringify
  }
}

function viaStringify(value: unknown, depth: number): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value) as string | undefined;
  } catch {
    throw INVALID;
  }
  if (text === undefined) return undefined;
  const canonical = canonicalizeJsonText(text, depth);
  if (canonical === null) throw INVALID;
  return canonical;
}
