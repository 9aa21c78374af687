/**
 * One parse of a request, for everything the proxy decides about it (issue 19.2): admission bounds it,
 * the relay forwards it, the event records it, all from this one value. The body is read as the provider
 * reads it: the top-level JSON object, where two equal keys would mean the last one. Such a body is
 * refused (`invalid_request`) rather than guessed at, and so is a body that starts like a JSON object but
 * is not one (the provider refuses it too, so nothing legitimate is lost).
 *
 * The top level is scanned (linear, strings skipped natively) and only members up to
 * {@link MAX_MEMBER_PARSE_BYTES} are parsed, so the model, output bound and counts of a 30 MB image request
 * are read without parsing its images, in about 20 µs for an 8 KB chat body. Bodies up to
 * {@link MAX_PARSE_BYTES} are parsed whole on first use (the usage estimate and the precise bound need the
 * prompt); larger ones never are (several MB would block the event loop for every other caller).
 */
import type { RequestShape, RequestShapeReader, RequestView } from '../providers/request-shape/types';
import { scanTopLevel, skipSpace, utf8Text, type TopLevelMember } from './top-level-json';

/** Bodies up to this size are parsed whole (issue 15.1's bound). */
export const MAX_PARSE_BYTES = 1024 * 1024;
/** In a larger body, a top-level member is parsed on its own up to this size (`messages` is not). */
export const MAX_MEMBER_PARSE_BYTES = 64 * 1024;
/** How deep the walk for binary parts goes; deeper parts are left to the byte-length bound. */
const MAX_WALK_DEPTH = 64;

/** Members whose strings are base64 or binary data (Anthropic, Gemini, OpenAI file and audio parts). */
const BINARY_MEMBERS: ReadonlySet<string> = new Set([
  'data',
  'file_data',
  'b64_json',
  'bytes',
  'image_bytes',
]);

/** What the proxy knows about a call before it is sent. */
export interface CallShape extends RequestShape {
  /** `json`: a JSON object body; `other`: empty, multipart, binary (read for its path only). */
  readonly kind: 'json' | 'other';
  /**
   * The whole body parsed, for JSON bodies up to {@link MAX_PARSE_BYTES}; else undefined. Parsed on first
   * use and once: far from the cap, admission needs only the top-level members, and the usage parsers
   * need the body only to estimate.
   */
  parsed(): unknown;
  /** Characters of base64 and binary parts (images, PDFs, audio) in the parsed body (on first use). */
  binaryChars(): number;
}

/** A shape, or why the body is refused (a 400 `invalid_request` whose message says what and where). */
export type CallShapeResult =
  { readonly ok: true; readonly shape: CallShape } | { readonly ok: false; readonly message: string };

function startsLikeObject(buf: Uint8Array): boolean {
  return buf[skipSpace(buf, 0)] === 0x7b;
}

/**
 * Reads a request once.
 *
 * @example
 * callShapeOf(Buffer.from('{"model":"gpt-4o","n":2}'), '/v1/chat/completions', openaiRequestShape)
 * // { ok: true, shape: { kind: 'json', model: 'gpt-4o', choices: 2, … } }
 * callShapeOf(Buffer.from('{"model":"a","model":"b"}'), '/v1/chat/completions', openaiRequestShape)
 * // { ok: false, message: 'The body has "model" twice at its top level: …' }
 */
export function callShapeOf(body: Uint8Array, endpoint: string, reader: RequestShapeReader): CallShapeResult {
  const whole = body;
  // A UTF-8 byte order mark: some JSON parsers (Python's `json.loads` on bytes) skip it, so must this one.
  const bom = whole[0] === 0xef && whole[1] === 0xbb && whole[2] === 0xbf;
  const buf = bom ? whole.subarray(3) : whole;
  if (!startsLikeObject(buf)) {
    const view: RequestView = { member: () => undefined, body: buf, endpoint };
    return {
      ok: true,
      shape: { ...reader(view), kind: 'other', parsed: () => undefined, binaryChars: () => 0 },
    };
  }
  const scan = scanTopLevel(buf);
  if (!scan.ok) {
    return { ok: false, message: `The body is not valid JSON: ${scan.reason} (byte ${scan.at}).` };
  }
  if (scan.duplicates.length > 0) {
    const names = scan.duplicates.map((k) => `"${k.slice(0, 64)}"`).join(', ');
    return {
      ok: false,
      message:
        `The body has ${names} more than once at its top level. Providers read the last one; ` +
        'Spendguard refuses the ambiguity so that the call it bounds is the call that runs. Send each member once.',
    };
  }
  const byKey = new Map<string, TopLevelMember>();
  for (const m of scan.members) byKey.set(m.key, m);
  // Members are parsed one by one from their spans: the whole body only when something needs it.
  const member = (name: string): unknown => {
    const m = byKey.get(name);
    if (m === undefined || m.end - m.start > MAX_MEMBER_PARSE_BYTES) return undefined;
    try {
      return JSON.parse(utf8Text(buf.subarray(m.start, m.end))) as unknown;
    } catch {
      return undefined;
    }
  };
  let shape: RequestShape;
  try {
    shape = reader({ member, body: buf, endpoint });
  } catch {
    return { ok: false, message: 'The body could not be read as this provider’s request.' };
  }
  let parsed: { value: unknown } | undefined;
  const parse = (): unknown => {
    if (parsed === undefined) {
      let value: unknown;
      if (buf.byteLength <= MAX_PARSE_BYTES) {
        try {
          value = JSON.parse(utf8Text(buf));
        } catch {
          value = undefined; // invalid below the top level: the provider refuses it, nothing to estimate
        }
      }
      parsed = { value };
    }
    return parsed.value;
  };
  let binary: number | undefined;
  const binaryOf = (): number => (binary ??= binaryChars(parse()));
  return { ok: true, shape: { ...shape, kind: 'json', parsed: parse, binaryChars: binaryOf } };
}

/**
 * Characters of binary parts: strings under {@link BINARY_MEMBERS} and `data:` URLs anywhere. Each is
 * billed by the provider from its decoded content (a PDF's pages, an image's tiles, audio seconds), which
 * its base64 length bounds in tokens.
 */
export function binaryChars(value: unknown): number {
  let total = 0;
  const stack: Array<{ v: unknown; depth: number; binary: boolean }> = [
    { v: value, depth: 0, binary: false },
  ];
  while (stack.length > 0) {
    const { v, depth, binary } = stack.pop() as { v: unknown; depth: number; binary: boolean };
    if (typeof v === 'string') {
      if (binary || v.startsWith('data:')) total += v.length;
      continue;
    }
    if (typeof v !== 'object' || v === null || depth >= MAX_WALK_DEPTH) continue;
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ v: item, depth: depth + 1, binary: false });
      continue;
    }
    for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
      stack.push({ v: item, depth: depth + 1, binary: BINARY_MEMBERS.has(k) });
    }
  }
  return total;
}
