/**
 * The worst-case cost of a call, known before the provider is contacted (design decision 11): the most its
 * input can cost plus the most its output can cost, in integer nano-USD. Admission reserves this against
 * the hard caps; the call's actual cost replaces it once the response has been read.
 *
 * Two bounds, so the relay spends CPU only where it matters (docs/admission.md):
 * - {@link cheapWorstCase}: no parse at all. Every token of every tokenizer we know covers at least one
 *   byte of UTF-8 text, and a JSON body is at least as long as the text it carries, so the body's byte
 *   length bounds the text's tokens; images, which are short in the body and long in tokens, add
 *   {@link IMAGE_TOKEN_BOUND} each. Loose (about 4× for English prose) but O(body) native scans only.
 * - {@link preciseWorstCase}: parses the body and counts its text with the tokenizer (o200k for OpenAI
 *   models; the family's characters-per-token ratio otherwise), taking the larger of the two counts, so a
 *   tokenizer that is denser than the model's own cannot under-reserve. Used only when the cheap bound
 *   does not fit comfortably in what is left; exact for a prompt billed at the family's ratio.
 *
 * Both read the call's {@link CallShape} (one parse per call, issue 19.2). What bills is covered (issue 18.6):
 * - output: the bound the request sets (`max_tokens`, `max_completion_tokens`, `max_output_tokens`,
 *   Gemini's `maxOutputTokens`, Ollama's `num_predict`), lowered only by the documented limit of that
 *   exact model ({@link documentedMaxOutputOf}); with none set, the model family's maximum
 *   ({@link maxOutputTokensOf}); times the choices (`n`, `best_of`, `candidateCount`);
 * - input: base64 and binary parts (images, PDFs, audio) count one token per character, never below the
 *   cheap bound's count for them; server-side context (`previous_response_id`, files by id,
 *   `cachedContent`) adds the model's whole context window ({@link contextTokensOf});
 * - rates: the dearest tier the request can trigger (`service_tier: "priority"`) and, for a request with
 *   `cache_control`, its input at the cache-write rate (1-hour writes: 2× input); long-context bands;
 * - batch, fine-tuning and `background` calls bill outside the call: their bound is
 *   {@link DEFERRED_WORST_CASE_NANOS}, which no hard cap fits (the relay names the refusal).
 */
import { calculateCost } from '../pricing';
import type { RequestFlavor } from '../providers/types';
import {
  estimateRequestTokens,
  familyOfModel,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  type TokenCounter,
  type TokenizerFamily,
} from '../usage';
import { callShapeOf, type CallShape } from './call-shape';
import { contextTokensOf } from './context-window';
import { documentedMaxOutputOf, maxOutputTokensOf } from './max-output';
import { getProvider } from '../providers/catalog';
import { REQUEST_SHAPE_READERS, requestShapeReaderOf } from '../providers/request-shape';

/** Tokens one image part may cost (OpenAI high detail ≤ ~1,600, Anthropic ≤ ~1,600, patch models ≤ ~2,500). */
export const IMAGE_TOKEN_BOUND = 3_000;
/** Fixed input margin of the cheap bound: special tokens and reply priming not visible as text. */
export const INPUT_MARGIN_TOKENS = 16;
/** The bound of a call that bills after it returns (batch, fine-tuning, background): fits under no cap. */
export const DEFERRED_WORST_CASE_NANOS = Number.MAX_SAFE_INTEGER;

/** A call to bound. */
export interface CallToBound {
  /** Spendguard provider id (prices). */
  readonly provider: string;
  readonly flavor: RequestFlavor;
  /** The model the request names, or null. */
  readonly model: string | null;
  /** The request body as sent. */
  readonly body: Uint8Array;
  /** When the call is made (dated prices). */
  readonly atMs: number;
  /** The provider path without the query, when known (Bedrock names the model and operation there). */
  readonly endpoint?: string;
  /**
   * The call's one parse (core/admission/call-shape). @default read from `body` with the flavor's reader
   * (a body the relay would refuse is then bounded by its bytes)
   */
  readonly shape?: CallShape;
}

/** A bound and how it was reached. */
export interface WorstCase {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costNanos: number;
  /** `request`: the request set the output bound; `model`: the model's maximum output was used. */
  readonly outputBound: 'request' | 'model';
  /** True when the input was counted with the tokenizer (the precise bound). */
  readonly precise: boolean;
}

// Needles encoded once: Buffer#indexOf with a string needle encodes it on every call (~1.5 µs each).
const IMAGE_MARKERS = [
  '"image_url"',
  '"input_image"',
  '"image"',
  '"inline_data"',
  '"inlineData"',
  '"images"',
].map((m) => Buffer.from(m));
const FAMILY_OF_FLAVOR: Readonly<Record<RequestFlavor, TokenizerFamily>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  ollama: 'llama',
};

function asBuffer(body: Uint8Array): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function occurrences(buf: Buffer, needle: Buffer): number {
  let n = 0;
  let at = buf.indexOf(needle);
  while (at !== -1) {
    n++;
    at = buf.indexOf(needle, at + needle.length);
  }
  return n;
}

/** The call's shape: the one the relay read, else read now. */
function shapeOf(call: CallToBound): CallShape | undefined {
  if (call.shape !== undefined) return call.shape;
  const entry = getProvider(call.provider);
  const reader =
    entry === undefined ? REQUEST_SHAPE_READERS[call.flavor] : requestShapeReaderOf(entry, call.flavor);
  const read = callShapeOf(call.body, call.endpoint ?? '', reader);
  return read.ok ? read.shape : undefined;
}

/** Output tokens the request allows (its own bound × choices), or the model's maximum. */
function outputBoundOf(
  shape: CallShape | undefined,
  model: string | null,
): { tokens: number; from: 'request' | 'model' } {
  const choices = shape?.choices ?? 1;
  const bound = shape?.outputTokens ?? null;
  if (bound === null) return { tokens: maxOutputTokensOf(model) * choices, from: 'model' };
  // Only a documented limit of this exact model may lower what the request asked for.
  const documented = documentedMaxOutputOf(model);
  return { tokens: (documented === null ? bound : Math.min(bound, documented)) * choices, from: 'request' };
}

function price(
  call: CallToBound,
  shape: CallShape | undefined,
  inputTokens: number,
  outputTokens: number,
): number {
  const cacheWrite = shape?.cacheWrite ?? null;
  return calculateCost({
    provider: call.provider,
    model: call.model,
    at: call.atMs,
    serviceTier: shape?.serviceTier ?? null,
    usage: {
      model: call.model,
      inputTokens,
      outputTokens,
      cacheReadTokens: 0,
      // Every input token written to the dearest cache the request asks for (writes cost more than input).
      cacheWrite5mTokens: cacheWrite === '5m' ? inputTokens : 0,
      cacheWrite1hTokens: cacheWrite === '1h' ? inputTokens : 0,
      reasoningTokens: 0,
    },
  }).costNanos;
}

/** Input the provider adds from its own storage: the model's whole context window. */
function serverContextTokens(shape: CallShape | undefined, model: string | null): number {
  return shape?.serverContext === true ? contextTokensOf(model) : 0;
}

function deferred(shape: CallShape | undefined, precise: boolean): WorstCase | undefined {
  if (shape?.deferred == null) return undefined;
  return {
    inputTokens: 0,
    outputTokens: 0,
    costNanos: DEFERRED_WORST_CASE_NANOS,
    outputBound: 'request',
    precise,
  };
}

function imageTokens(buf: Buffer): number {
  let images = 0;
  for (const marker of IMAGE_MARKERS) images += occurrences(buf, marker);
  return images * IMAGE_TOKEN_BOUND;
}

/**
 * The cheap bound: body bytes as input tokens. No JSON parse, no tokenizer.
 *
 * @example
 * // a 1,000-byte gpt-4o-mini chat body with max_tokens 100: input ≤ 1,000 + 16 tokens, output ≤ 100
 * // → 1,016 × $0.15/MTok + 100 × $0.60/MTok = 152,400 + 60,000 nanos = $0.0002124
 */
export function cheapWorstCase(call: CallToBound): WorstCase {
  const buf = asBuffer(call.body);
  const shape = shapeOf(call);
  const late = deferred(shape, false);
  if (late !== undefined) return late;
  const inputTokens =
    buf.byteLength + imageTokens(buf) + INPUT_MARGIN_TOKENS + serverContextTokens(shape, call.model);
  const out = outputBoundOf(shape, call.model);
  return {
    inputTokens,
    outputTokens: out.tokens,
    costNanos: price(call, shape, inputTokens, out.tokens),
    outputBound: out.from,
    precise: false,
  };
}

/**
 * The precise bound: the prompt counted with `counter` (when given) and by the family's
 * characters-per-token ratio, the larger of the two, plus images, binary parts by size, server-side
 * context and the margin. Falls back to the cheap bound for a body that was not parsed (not JSON, or over
 * the parse bound).
 */
export function preciseWorstCase(call: CallToBound, counter: TokenCounter | undefined): WorstCase {
  const buf = asBuffer(call.body);
  const shape = shapeOf(call);
  const parsed = shape?.parsed();
  if (parsed === undefined) return cheapWorstCase(call);
  const late = deferred(shape, true);
  if (late !== undefined) return late;
  const family = familyOfModel(call.model, FAMILY_OF_FLAVOR[call.flavor]);
  // The text by the family's ratio, without chat framing; the tokenizer's exact count with it. The larger
  // of the two: the ratio guards against a tokenizer denser than the model's own, the framing tokens are
  // what OpenAI bills per message. For English prose the ratio's count is the larger one (o200k averages
  // about 4.5 characters per token), so the gap between the two is the margin.
  const byRatio = estimateRequestTokens(call.flavor, parsed, family, undefined) - framingTokens(parsed);
  const counted = counter === undefined ? 0 : estimateRequestTokens(call.flavor, parsed, family, counter);
  const inputTokens =
    Math.max(byRatio, counted) +
    imageTokens(buf) +
    (shape?.binaryChars() ?? 0) +
    serverContextTokens(shape, call.model);
  const out = outputBoundOf(shape, call.model);
  return {
    inputTokens,
    outputTokens: out.tokens,
    costNanos: price(call, shape, inputTokens, out.tokens),
    outputBound: out.from,
    precise: true,
  };
}

/** The per-message and reply-priming tokens estimateRequestTokens adds (same turn fields). */
function framingTokens(parsed: unknown): number {
  if (typeof parsed !== 'object' || parsed === null) return 0;
  let turns = 0;
  for (const name of ['messages', 'contents', 'input']) {
    const v = (parsed as Record<string, unknown>)[name];
    if (Array.isArray(v))
      turns += v.filter((t) => typeof t === 'object' && t !== null && !Array.isArray(t)).length;
  }
  return turns === 0 ? 0 : turns * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS;
}

/** What an input of `inputTokens` costs alone (the settlement of a call that failed without usage). */
export function inputCostNanos(call: CallToBound, inputTokens: number): number {
  return price(call, undefined, inputTokens, 0);
}
