/**
 * The worst case of a call in tokens, from the request alone and on any platform (no Buffer, no price
 * data), design decision 11. The one token bound of the project: the relay prices it (worst-case.ts) and
 * the SDK bundles it to reserve each call's worst case against its budget lease (docs/sdk.md), so both
 * reserve the same tokens for the same body.
 *
 * - cheap: the body's UTF-8 bytes as input tokens (every token of every tokenizer covers at least one
 *   byte), plus {@link IMAGE_TOKEN_BOUND} per image part and {@link INPUT_MARGIN_TOKENS};
 * - precise: the prompt by the family's characters-per-token ratio (no tokenizer), plus images;
 * - both: base64 and binary parts by their characters (precise; the cheap bound has their bytes already),
 *   and the model's whole context window for server-side context (`previous_response_id`, files by id);
 * - output: the request's own bound as the call's {@link CallShape} reads it (top-level members, as the
 *   provider reads them), lowered only by the exact model's documented maximum, else the model family's
 *   maximum; times the choices (`n`, `best_of`, `candidateCount`).
 *
 * Rates (service tier, cache writes) and deferred billing are the pricer's: see `CallShape.serviceTier`,
 * `cacheWrite`, `deferred`. The shape comes from `callShapeOf` (Buffer-free, so the SDK reads it too).
 */
import type { RequestFlavor } from '../providers/types';
import { estimateRequestTokens, familyOfModel, framingTokens, type TokenizerFamily } from '../usage/estimate';
import type { TokenCounter } from '../usage/types';
import type { CallShape } from './call-shape';
import { contextTokensOf } from './context-window';
import { documentedMaxOutputOf, maxOutputTokensOf } from './max-output';

/** Tokens one image part may cost (OpenAI high detail ≤ ~1,600, Anthropic ≤ ~1,600, patch models ≤ ~2,500). */
export const IMAGE_TOKEN_BOUND = 3_000;
/** Fixed input margin of the cheap bound: special tokens and reply priming not visible as text. */
export const INPUT_MARGIN_TOKENS = 16;

/** A bound in tokens. */
export interface TokenBound {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Where the output bound came from. */
  readonly outputBound: 'request' | 'model';
}

const encoder = new TextEncoder();
const bytes = (s: string): Uint8Array => encoder.encode(s);
const IMAGE_MARKERS = [
  '"image_url"',
  '"input_image"',
  '"image"',
  '"inline_data"',
  '"inlineData"',
  '"images"',
].map(bytes);
const FAMILY_OF_FLAVOR: Readonly<Record<RequestFlavor, TokenizerFamily>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  ollama: 'llama',
};

/** The body as UTF-8 bytes. */
export function utf8Bytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? encoder.encode(body) : body;
}

const QUOTE = 0x22;

// Not request-shape's matchesAt: the caller has matched the first byte (the quote) already, and using
// that shared function here measured ~40 µs more per 5 KB chat request (Node 20, relay hot path).
function matchesAt(buf: Uint8Array, at: number, needle: Uint8Array): boolean {
  if (at + needle.length > buf.length) return false;
  for (let j = 1; j < needle.length; j++) if (buf[at + j] !== needle[j]) return false;
  return true;
}

/**
 * Image parts: each marker's occurrences, counted as successive `indexOf` searches find them (no overlap
 * within one marker), in one pass over the body's quotes (every marker starts with one).
 */
function imageParts(buf: Uint8Array): number {
  let images = 0;
  const next = IMAGE_MARKERS.map(() => 0);
  for (let at = buf.indexOf(QUOTE); at !== -1; at = buf.indexOf(QUOTE, at + 1)) {
    for (let k = 0; k < IMAGE_MARKERS.length; k++) {
      const m = IMAGE_MARKERS[k] as Uint8Array;
      if (at >= (next[k] as number) && matchesAt(buf, at, m)) {
        images++;
        next[k] = at + m.length;
      }
    }
  }
  return images;
}

/** Output tokens the request allows (its own bound × choices), or the model's maximum × choices. */
function outputBound(
  shape: CallShape | undefined,
  model: string | null,
): Pick<TokenBound, 'outputTokens' | 'outputBound'> {
  const choices = shape?.choices ?? 1;
  const bound = shape?.outputTokens ?? null;
  if (bound === null) return { outputTokens: maxOutputTokensOf(model) * choices, outputBound: 'model' };
  // Only a documented limit of this exact model may lower what the request asked for (issue 18.6).
  const documented = documentedMaxOutputOf(model);
  return {
    outputTokens: (documented === null ? bound : Math.min(bound, documented)) * choices,
    outputBound: 'request',
  };
}

/** Input the provider adds from its own storage: the model's whole context window. */
function serverContextTokens(shape: CallShape | undefined, model: string | null): number {
  return shape?.serverContext === true ? contextTokensOf(model) : 0;
}

/**
 * The cheap bound: body bytes as input tokens. No JSON parse beyond the shape's top level. `shape` is
 * undefined for a body whose shape could not be read (the relay refuses it; the provider would too).
 *
 * @example cheapTokenBound(utf8Bytes('{"model":"gpt-4o-mini","max_tokens":100}'), shape, 'gpt-4o-mini') // { inputTokens: 57, outputTokens: 100, … }
 */
export function cheapTokenBound(
  buf: Uint8Array,
  shape: CallShape | undefined,
  model: string | null,
): TokenBound {
  return {
    inputTokens:
      buf.byteLength +
      imageParts(buf) * IMAGE_TOKEN_BOUND +
      INPUT_MARGIN_TOKENS +
      serverContextTokens(shape, model),
    ...outputBound(shape, model),
  };
}

/**
 * The precise bound: the prompt of the parsed body by the family's ratio (chat framing left out) and, when
 * a `counter` is given (the relay's tokenizer; the SDK bundles none), by the tokenizer with framing, the
 * larger of the two; plus images, binary parts by size and server-side context. Undefined when the shape
 * has no parsed body (then the cheap bound stands).
 *
 * The larger of the two counts: the ratio guards against a tokenizer denser than the model's own, the
 * framing tokens are what OpenAI bills per message. For English prose the ratio's count is the larger
 * one (o200k averages about 4.5 characters per token), so the gap between the two is the margin.
 */
export function preciseTokenBound(
  buf: Uint8Array,
  shape: CallShape | undefined,
  flavor: RequestFlavor,
  model: string | null,
  counter?: TokenCounter,
): TokenBound | undefined {
  const parsed = shape?.parsed();
  if (shape === undefined || parsed === undefined) return undefined;
  const family = familyOfModel(model, FAMILY_OF_FLAVOR[flavor]);
  const byRatio = estimateRequestTokens(flavor, parsed, family, undefined) - framingTokens(parsed);
  const counted = counter === undefined ? 0 : estimateRequestTokens(flavor, parsed, family, counter);
  return {
    inputTokens:
      Math.max(byRatio, counted, 0) +
      imageParts(buf) * IMAGE_TOKEN_BOUND +
      shape.binaryChars() +
      serverContextTokens(shape, model),
    ...outputBound(shape, model),
  };
}
