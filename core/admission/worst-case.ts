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
 * The output bound is the one the request sets (`max_tokens`, `max_completion_tokens`,
 * `max_output_tokens`, Gemini's `maxOutputTokens`, Ollama's `num_predict`), times `n` choices, else the
 * model's maximum output ({@link maxOutputTokensOf}). Both are priced by the bundled registry at the full
 * input rate (no cache discount) and the output rate, long-context bands included.
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
import { maxOutputTokensOf } from './max-output';

/** Tokens one image part may cost (OpenAI high detail ≤ ~1,600, Anthropic ≤ ~1,600, patch models ≤ ~2,500). */
export const IMAGE_TOKEN_BOUND = 3_000;
/** Fixed input margin of the cheap bound: special tokens and reply priming not visible as text. */
export const INPUT_MARGIN_TOKENS = 16;
/** Largest `n` (choices per request) believed; OpenAI allows 128. */
const MAX_CHOICES = 128;

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
const OUTPUT_FIELDS = [
  'max_tokens',
  'max_completion_tokens',
  'max_output_tokens',
  'maxOutputTokens',
  'num_predict',
  'maxTokens', // Bedrock Converse `inferenceConfig.maxTokens`
].map((f) => Buffer.from(`"${f}"`));
const CHOICES_FIELD = Buffer.from('"n"');

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

/**
 * The largest integer value of a `<needle>: <int>` member (needle: `"name"`) anywhere in the body, or undefined. The largest,
 * not the first: a nested member of the same name (a tool's schema) must not lower the bound.
 */
function largestIntMember(buf: Buffer, needle: Buffer): number | undefined {
  let best: number | undefined;
  let at = buf.indexOf(needle);
  while (at !== -1) {
    let i = at + needle.length;
    while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x09)) i++;
    if (buf[i] === 0x3a /* : */) {
      i++;
      while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x09))
        i++;
      let value = 0;
      let digits = 0;
      while (i < buf.length && (buf[i] as number) >= 0x30 && (buf[i] as number) <= 0x39 && digits < 10) {
        value = value * 10 + ((buf[i] as number) - 0x30);
        digits++;
        i++;
      }
      if (digits > 0 && (best === undefined || value > best)) best = value;
    }
    at = buf.indexOf(needle, at + needle.length);
  }
  return best;
}

/** Output tokens the request allows (its own bound × choices), or the model's maximum. */
function outputBoundOf(buf: Buffer, model: string | null): { tokens: number; from: 'request' | 'model' } {
  let bound: number | undefined;
  for (const field of OUTPUT_FIELDS) {
    const v = largestIntMember(buf, field);
    if (v !== undefined && (bound === undefined || v > bound)) bound = v;
  }
  const modelMax = maxOutputTokensOf(model);
  const choices = Math.min(MAX_CHOICES, Math.max(1, largestIntMember(buf, CHOICES_FIELD) ?? 1));
  // A bound above the model's maximum cannot be generated; the model's maximum is the tighter truth.
  if (bound === undefined || bound <= 0) return { tokens: modelMax * choices, from: 'model' };
  return { tokens: Math.min(bound, modelMax) * choices, from: 'request' };
}

function price(call: CallToBound, inputTokens: number, outputTokens: number): number {
  return calculateCost({
    provider: call.provider,
    model: call.model,
    at: call.atMs,
    usage: {
      model: call.model,
      inputTokens,
      outputTokens,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    },
  }).costNanos;
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
  const inputTokens = buf.byteLength + imageTokens(buf) + INPUT_MARGIN_TOKENS;
  const out = outputBoundOf(buf, call.model);
  return {
    inputTokens,
    outputTokens: out.tokens,
    costNanos: price(call, inputTokens, out.tokens),
    outputBound: out.from,
    precise: false,
  };
}

/**
 * The precise bound: the prompt counted with `counter` (when given) and by the family's
 * characters-per-token ratio, the larger of the two, plus images and the margin. Falls back to the cheap
 * bound for a body that is not JSON.
 */
export function preciseWorstCase(call: CallToBound, counter: TokenCounter | undefined): WorstCase {
  const buf = asBuffer(call.body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(buf.toString('utf8'));
  } catch {
    return cheapWorstCase(call);
  }
  const family = familyOfModel(call.model, FAMILY_OF_FLAVOR[call.flavor]);
  // The text by the family's ratio, without chat framing; the tokenizer's exact count with it. The larger
  // of the two: the ratio guards against a tokenizer denser than the model's own, the framing tokens are
  // what OpenAI bills per message. For English prose the ratio's count is the larger one (o200k averages
  // about 4.5 characters per token), so the gap between the two is the margin.
  const byRatio = estimateRequestTokens(call.flavor, parsed, family, undefined) - framingTokens(parsed);
  const counted = counter === undefined ? 0 : estimateRequestTokens(call.flavor, parsed, family, counter);
  const inputTokens = Math.max(byRatio, counted) + imageTokens(buf);
  const out = outputBoundOf(buf, call.model);
  return {
    inputTokens,
    outputTokens: out.tokens,
    costNanos: price(call, inputTokens, out.tokens),
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
  return price(call, inputTokens, 0);
}
