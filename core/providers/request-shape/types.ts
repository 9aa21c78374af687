/**
 * What a provider's request asks for that decides its cost before it is sent (issue 19.2, 18.6): one
 * reader per request dialect turns the top level of a body (as the provider will read it: the last of
 * duplicate keys, which the relay refuses anyway) into a {@link RequestShape}. A provider whose body is
 * shaped differently (Bedrock's Converse, say) declares its own reader in its `ProviderSpec.requestShape`.
 */

/** The request as a reader sees it. */
export interface RequestView {
  /** The value of a top-level member, parsed; undefined when absent or too large to parse on its own. */
  member(name: string): unknown;
  /**
   * The raw body as UTF-8 bytes (for size-independent byte scans such as `"cache_control"`). A plain
   * `Uint8Array`, so the SDK runs the same readers without Node's Buffer (issue 18.5).
   */
  readonly body: Uint8Array;
  /** The provider path without the query, e.g. `/v1/chat/completions`. */
  readonly endpoint: string;
}

/** Calls whose cost arrives after the call returns (design decision 11: refused under a hard cap unless allowed). */
export type DeferredBilling = 'background' | 'batch' | 'fine_tuning';

/** Cache writes a request can cause, dearest first (Anthropic: 1-hour writes bill 2× input, 5-minute 1.25×). */
export type CacheWrite = '1h' | '5m';

/** What one request asks for, as far as its cost goes. */
export interface RequestShape {
  /** The model it names (body or path), or null. */
  readonly model: string | null;
  /** Its own bound on generated tokens per choice, or null when it sets none. */
  readonly outputTokens: number | null;
  /** Completions generated and billed per call (`n`, `best_of`, `candidateCount`), at least 1. */
  readonly choices: number;
  /** The dearest service tier the request can be billed at (`priority`), or null for the standard one. */
  readonly serviceTier: string | null;
  /** The dearest cache write the request can trigger, or null. */
  readonly cacheWrite: CacheWrite | null;
  /**
   * True when the provider adds input the request does not carry: `previous_response_id`, a stored
   * conversation or prompt, files by id or URI, `cachedContent`. Bounded at the model's context maximum.
   */
  readonly serverContext: boolean;
  /** Set for batch, fine-tuning and background calls. */
  readonly deferred: DeferredBilling | null;
}

/** Reads the shape of one dialect's request. Must not throw (a reader only inspects parsed values). */
export type RequestShapeReader = (view: RequestView) => RequestShape;

/** Largest `n` believed (OpenAI allows 128); a larger one is clamped, never trusted for less. */
export const MAX_CHOICES = 128;

/** A positive integer member, or null. */
export function positiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : null;
}

/** The largest of the positive integers given, or null. */
export function largest(...values: unknown[]): number | null {
  let best: number | null = null;
  for (const v of values) {
    const n = positiveInt(v);
    if (n !== null && (best === null || n > best)) best = n;
  }
  return best;
}

/** Choices from the request's counts: the largest, at least 1, at most {@link MAX_CHOICES}. */
export function choicesOf(...values: unknown[]): number {
  return Math.min(MAX_CHOICES, largest(...values) ?? 1);
}

const encoder = new TextEncoder();
/** Encoded needles, once each. */
const needles = new Map<string, Uint8Array>();

function needleOf(name: string): Uint8Array {
  let needle = needles.get(name);
  if (needle === undefined) {
    needle = encoder.encode(`"${name}"`);
    needles.set(name, needle);
  }
  return needle;
}

function matchesAt(body: Uint8Array, at: number, needle: Uint8Array): boolean {
  if (at + needle.length > body.length) return false;
  for (let j = 0; j < needle.length; j++) if (body[at + j] !== needle[j]) return false;
  return true;
}

/** Where `needle` (which starts with a quote) occurs in `body` at or after `from`, or -1. */
function indexOfQuoted(body: Uint8Array, needle: Uint8Array, from: number): number {
  // The first byte by the typed array's native indexOf, the rest compared: a portable memmem for needles
  // that start with a quote (JSON bodies have few quotes per byte in their large parts, base64 none).
  for (let at = body.indexOf(0x22, from); at !== -1; at = body.indexOf(0x22, at + 1)) {
    if (at + needle.length > body.length) return -1;
    if (matchesAt(body, at, needle)) return at;
  }
  return -1;
}

/** Whether the raw body contains a JSON member named `name` anywhere (a byte scan, any depth). */
export function mentions(body: Uint8Array, name: string): boolean {
  return indexOfQuoted(body, needleOf(name), 0) !== -1;
}

/** `\s` of a regular expression over the body read as Latin-1: tab to carriage return, space, NBSP. */
const isLooseSpace = (b: number | undefined): boolean =>
  b !== undefined && ((b >= 0x09 && b <= 0x0d) || b === 0x20 || b === 0xa0);

/**
 * Whether the body contains `"name"`, optional spaces, `:`, optional spaces and the string `"value"`
 * anywhere (as `/"name"\s*:\s*"value"/` over the body read as Latin-1; e.g. `"ttl": "1h"`).
 */
export function mentionsString(body: Uint8Array, name: string, value: string): boolean {
  const key = needleOf(name);
  const wanted = needleOf(value);
  for (let at = indexOfQuoted(body, key, 0); at !== -1; at = indexOfQuoted(body, key, at + 1)) {
    let i = at + key.length;
    while (isLooseSpace(body[i])) i++;
    if (body[i] !== 0x3a) continue;
    i++;
    while (isLooseSpace(body[i])) i++;
    if (matchesAt(body, i, wanted)) return true;
  }
  return false;
}
