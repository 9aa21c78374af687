/**
 * The worst case of a call in tokens, from the request alone and on any platform (no Buffer, no price
 * data): the rules of the relay's estimator (worst-case.ts, design decision 11) for callers that price the
 * tokens themselves. The SDK bundles this to reserve each call's worst case against its budget lease
 * (docs/sdk.md); `request-bound.test.ts` checks it gives the relay's token counts for the same body.
 *
 * - cheap: the body's UTF-8 bytes as input tokens (every token of every tokenizer covers at least one
 *   byte), plus {@link IMAGE_TOKEN_BOUND} per image part and {@link INPUT_MARGIN_TOKENS};
 * - precise: the prompt by the family's characters-per-token ratio (no tokenizer), plus images;
 * - output: the request's own bound (`max_tokens`, `max_completion_tokens`, `max_output_tokens`,
 *   `maxOutputTokens`, `num_predict`; the largest one anywhere) capped at the model's maximum, times `n`,
 *   else the model's maximum.
 */
import type { RequestFlavor } from '../providers/types';
import {
  estimateRequestTokens,
  familyOfModel,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  type TokenizerFamily,
} from '../usage/estimate';
import { maxOutputTokensOf } from './max-output';

/** Tokens one image part may cost (same as worst-case.ts). */
export const IMAGE_TOKEN_BOUND = 3_000;
/** Fixed input margin of the cheap bound (same as worst-case.ts). */
export const INPUT_MARGIN_TOKENS = 16;
const MAX_CHOICES = 128;

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
const OUTPUT_FIELDS = [
  'max_tokens',
  'max_completion_tokens',
  'max_output_tokens',
  'maxOutputTokens',
  'num_predict',
].map((f) => bytes(`"${f}"`));
const CHOICES_FIELD = bytes('"n"');

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
const isSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

function matchesAt(buf: Uint8Array, at: number, needle: Uint8Array): boolean {
  if (at + needle.length > buf.length) return false;
  for (let j = 1; j < needle.length; j++) if (buf[at + j] !== needle[j]) return false;
  return true;
}

/** The integer after `<needle>` `:` at `at` (whitespace allowed), or undefined. */
function intAfter(buf: Uint8Array, at: number): number | undefined {
  let i = at;
  while (i < buf.length && isSpace(buf[i])) i++;
  if (buf[i] !== 0x3a /* : */) return undefined;
  i++;
  while (i < buf.length && isSpace(buf[i])) i++;
  let value = 0;
  let digits = 0;
  while (i < buf.length && (buf[i] as number) >= 0x30 && (buf[i] as number) <= 0x39 && digits < 10) {
    value = value * 10 + ((buf[i] as number) - 0x30);
    digits++;
    i++;
  }
  return digits > 0 ? value : undefined;
}

/**
 * One pass over the body's quotes (every needle starts with one): image parts, the largest output bound
 * member, the largest `n`. Each needle's matches do not overlap, as successive `indexOf` searches find them.
 */
function scan(buf: Uint8Array): { images: number; output: number | undefined; choices: number | undefined } {
  let images = 0;
  let output: number | undefined;
  let choices: number | undefined;
  const imageNext = IMAGE_MARKERS.map(() => 0);
  const outputNext = OUTPUT_FIELDS.map(() => 0);
  let choicesNext = 0;
  for (let at = buf.indexOf(QUOTE); at !== -1; at = buf.indexOf(QUOTE, at + 1)) {
    for (let k = 0; k < IMAGE_MARKERS.length; k++) {
      const m = IMAGE_MARKERS[k] as Uint8Array;
      if (at >= (imageNext[k] as number) && matchesAt(buf, at, m)) {
        images++;
        imageNext[k] = at + m.length;
      }
    }
    for (let k = 0; k < OUTPUT_FIELDS.length; k++) {
      const f = OUTPUT_FIELDS[k] as Uint8Array;
      if (at >= (outputNext[k] as number) && matchesAt(buf, at, f)) {
        outputNext[k] = at + f.length;
        const v = intAfter(buf, at + f.length);
        if (v !== undefined && (output === undefined || v > output)) output = v;
      }
    }
    if (at >= choicesNext && matchesAt(buf, at, CHOICES_FIELD)) {
      choicesNext = at + CHOICES_FIELD.length;
      const v = intAfter(buf, at + CHOICES_FIELD.length);
      if (v !== undefined && (choices === undefined || v > choices)) choices = v;
    }
  }
  return { images, output, choices };
}

/** Output tokens the request allows (its own bound × choices, at most the model's maximum), or the model's maximum. */
function outputBound(
  found: { output: number | undefined; choices: number | undefined },
  model: string | null,
): Pick<TokenBound, 'outputTokens' | 'outputBound'> {
  const modelMax = maxOutputTokensOf(model);
  const choices = Math.min(MAX_CHOICES, Math.max(1, found.choices ?? 1));
  const bound = found.output;
  if (bound === undefined || bound <= 0) return { outputTokens: modelMax * choices, outputBound: 'model' };
  return { outputTokens: Math.min(bound, modelMax) * choices, outputBound: 'request' };
}

/** Output tokens the request allows, or the model's maximum (see {@link cheapTokenBound}). */
export function outputTokenBound(
  buf: Uint8Array,
  model: string | null,
): Pick<TokenBound, 'outputTokens' | 'outputBound'> {
  return outputBound(scan(buf), model);
}

/**
 * The cheap bound: body bytes as input tokens. No JSON parse.
 *
 * @example cheapTokenBound(utf8Bytes('{"model":"gpt-4o-mini","max_tokens":100}'), 'gpt-4o-mini') // { inputTokens: 57, outputTokens: 100, … }
 */
export function cheapTokenBound(buf: Uint8Array, model: string | null): TokenBound {
  const found = scan(buf);
  return {
    inputTokens: buf.byteLength + found.images * IMAGE_TOKEN_BOUND + INPUT_MARGIN_TOKENS,
    ...outputBound(found, model),
  };
}

/**
 * The precise bound without a tokenizer: the prompt of the parsed body by the family's ratio (chat framing
 * left out, as the relay does), plus images; undefined when the body is not a JSON object.
 */
export function preciseTokenBound(
  buf: Uint8Array,
  parsed: unknown,
  flavor: RequestFlavor,
  model: string | null,
): TokenBound | undefined {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const family = familyOfModel(model, FAMILY_OF_FLAVOR[flavor]);
  const byRatio = estimateRequestTokens(flavor, parsed, family, undefined) - framingTokens(parsed);
  const found = scan(buf);
  return { inputTokens: byRatio + found.images * IMAGE_TOKEN_BOUND, ...outputBound(found, model) };
}

/** The per-message and reply-priming tokens estimateRequestTokens adds. */
function framingTokens(parsed: object): number {
  let turns = 0;
  for (const name of ['messages', 'contents', 'input']) {
    const v = (parsed as Record<string, unknown>)[name];
    if (Array.isArray(v))
      turns += v.filter((t) => typeof t === 'object' && t !== null && !Array.isArray(t)).length;
  }
  return turns === 0 ? 0 : turns * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS;
}
