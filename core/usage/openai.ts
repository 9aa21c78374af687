/**
 * OpenAI usage: Chat Completions, Responses, Embeddings (and legacy Completions), JSON and SSE. The
 * same reader serves every OpenAI-compatible host through {@link createOpenAIUsageParser}'s dialect hooks.
 *
 * Mapping (OpenAI's semantics are the normalized ones, so little changes):
 * - Chat / Embeddings: `prompt_tokens` → inputTokens, `prompt_tokens_details.cached_tokens` →
 *   cacheReadTokens, `completion_tokens` → outputTokens, `completion_tokens_details.reasoning_tokens` →
 *   reasoningTokens, top-level `service_tier` → serviceTier.
 * - Responses: `input_tokens`, `input_tokens_details.cached_tokens`, `output_tokens`,
 *   `output_tokens_details.reasoning_tokens`; streams report them in `response.completed`
 *   (or `response.incomplete` / `response.failed`) as `response.usage`.
 * - Streams: with `stream_options.include_usage` the last chunk has `choices: []` and `usage`; every other
 *   chunk has `"usage": null`, which is recognised without parsing.
 *
 * Compatible hosts' variations handled from the data, not by provider checks:
 * - `prompt_cache_hit_tokens` (DeepSeek) when `prompt_tokens_details.cached_tokens` is absent;
 * - `prompt_tokens_details.cache_write_tokens` (OpenRouter) → cacheWrite5mTokens;
 * - `usage.cost_in_usd_ticks` (xAI: what it charged, 10^10 ticks per USD) → providerCostUsd;
 * - reasoning tokens left out of `completion_tokens` (xAI: `total_tokens` = prompt + completion +
 *   reasoning) are added to outputTokens, so outputTokens always includes reasoning.
 */
import type { TokenizerFamily } from './estimate';
import { asCount, asObject, asString, field, type JsonObject } from './json-fields';
import {
  hasObjectValue,
  jsonKey,
  readStringValue,
  tallyStringAt,
  tallyStringsWithin,
  valueIndex,
} from './json-scan';
import { makeUsage, providerError, usageResultOf } from './normalize';
import { framedUsageStream, StreamTally, type FrameHandler } from './stream';
import type { NormalizedUsage, UsageContext, UsageParser, UsageResult } from './types';

/** How an OpenAI-compatible host differs from OpenAI. Every hook is optional. */
export interface OpenAIDialect {
  /** The usage object of a response body or stream chunk. Default: `body.usage`. */
  readonly findUsage?: (body: JsonObject) => JsonObject | undefined;
  /**
   * The cost the host reports for the call, in USD (OpenRouter `usage.cost`). Default: xAI's
   * `usage.cost_in_usd_ticks` / 10^10 when present (OpenAI itself reports none).
   */
  readonly providerCost?: (usage: JsonObject) => number | undefined;
  /** Tokenizer family for estimates when the model name does not tell. Default `openai`. */
  readonly family?: TokenizerFamily;
}

/** Token fields of an OpenAI-style usage object; undefined when it has no token counts at all. */
export function readOpenAIUsage(usage: JsonObject): Partial<NormalizedUsage> | undefined {
  const prompt = asCount(usage.prompt_tokens);
  const completion = asCount(usage.completion_tokens);
  if (prompt !== undefined || completion !== undefined) {
    const input = prompt ?? 0;
    const reasoning = asCount(field(usage, 'completion_tokens_details', 'reasoning_tokens')) ?? 0;
    let output = completion ?? 0;
    const total = asCount(usage.total_tokens);
    if (
      reasoning > 0 &&
      total !== undefined &&
      total !== input + output &&
      total === input + output + reasoning
    ) {
      output += reasoning; // reasoning reported beside completion_tokens, not inside it (xAI)
    }
    return {
      inputTokens: input,
      cacheReadTokens:
        asCount(field(usage, 'prompt_tokens_details', 'cached_tokens')) ??
        asCount(usage.prompt_cache_hit_tokens) ??
        0,
      cacheWrite5mTokens: asCount(field(usage, 'prompt_tokens_details', 'cache_write_tokens')) ?? 0,
      outputTokens: output,
      reasoningTokens: reasoning,
    };
  }
  const input = asCount(usage.input_tokens);
  const output = asCount(usage.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  return {
    inputTokens: input ?? 0,
    cacheReadTokens: asCount(field(usage, 'input_tokens_details', 'cached_tokens')) ?? 0,
    outputTokens: output ?? 0,
    reasoningTokens: asCount(field(usage, 'output_tokens_details', 'reasoning_tokens')) ?? 0,
  };
}

const defaultFindUsage = (body: JsonObject): JsonObject | undefined => asObject(body.usage);

/** xAI's usage.cost_in_usd_ticks: the exact amount charged, 10^10 ticks per USD (docs.x.ai cost tracking). */
const USD_TICKS = 10_000_000_000;
const defaultProviderCost = (usage: JsonObject): number | undefined => {
  const ticks = asCount(usage.cost_in_usd_ticks);
  return ticks === undefined ? undefined : ticks / USD_TICKS;
};

const USAGE = jsonKey('usage');
const ERROR = jsonKey('error');
const DELTA = jsonKey('delta');
const MODEL = jsonKey('model');
const SERVICE_TIER = jsonKey('service_tier');
const TYPE = jsonKey('type');
/** Fields of a chat chunk's `delta` whose strings are generated text (content, reasoning, tool arguments). */
const DELTA_TEXT = ['content', 'reasoning_content', 'reasoning', 'refusal', 'arguments'].map(jsonKey);

/**
 * The normalized record of an OpenAI-style response object (a chat completion, a chunk, an embeddings
 * response, a Responses API `response`), or undefined when it has no usage.
 */
export function openAIBodyUsage(body: JsonObject, dialect: OpenAIDialect = {}): NormalizedUsage | undefined {
  const usage = (dialect.findUsage ?? defaultFindUsage)(body);
  const fields = usage === undefined ? undefined : readOpenAIUsage(usage);
  if (usage === undefined || fields === undefined) return undefined;
  return makeUsage({
    ...fields,
    model: asString(body.model) ?? null,
    serviceTier: asString(body.service_tier) ?? null,
    providerCostUsd: (dialect.providerCost ?? defaultProviderCost)(usage) ?? null,
  });
}

/**
 * A usage parser for OpenAI and OpenAI-compatible hosts.
 *
 * @example
 * // OpenRouter: OpenAI's format plus the cost it charged
 * const openrouterUsage = createOpenAIUsageParser({ providerCost: (u) => asNumber(u.cost) });
 */
export function createOpenAIUsageParser(dialect: OpenAIDialect = {}): UsageParser {
  const family = dialect.family ?? 'openai';
  const fromBody = (body: JsonObject): NormalizedUsage | undefined => openAIBodyUsage(body, dialect);

  return {
    fromJson: (body: unknown, ctx: UsageContext): UsageResult => usageResultOf(body, ctx, fromBody),
    stream(ctx: UsageContext) {
      return framedUsageStream(
        ctx,
        () => new OpenAIStreamHandler(new StreamTally(ctx, 'openai', family), fromBody),
      );
    },
  };
}

/** Chat Completions chunks and Responses API events, told apart per frame. */
export class OpenAIStreamHandler implements FrameHandler {
  readonly #fromBody: (body: JsonObject) => NormalizedUsage | undefined;

  constructor(
    readonly tally: StreamTally,
    fromBody: (body: JsonObject) => NormalizedUsage | undefined,
  ) {
    this.#fromBody = fromBody;
  }

  frame(data: string, event: string): void {
    // Responses API events carry an `event:` name; chat chunks have none and start with {"id":
    const typed = data.charCodeAt(2) === 116; /* t of {"type": */
    if (event.length > 0 ? event.startsWith('response.') : typed && data.startsWith('{"type":"response.')) {
      this.#responsesEvent(data, event);
      return;
    }
    const withUsage = hasObjectValue(data, USAGE);
    if (withUsage) this.#reportFrame(data, false);
    // generated text: the `delta` object of each choice
    let texts = 0;
    for (let v = valueIndex(data, DELTA); v !== -1; v = valueIndex(data, DELTA, v)) {
      texts += tallyStringsWithin(data, v, DELTA_TEXT, this.tally.output);
    }
    // Error frames carry no text (OpenAI: {"error":…}; OpenRouter: an empty delta with finish_reason
    // "error"), so frames with text skip the search for an error object.
    if (
      texts === 0 &&
      !withUsage &&
      (hasObjectValue(data, ERROR) || event === 'error' || (typed && data.startsWith('{"type":"error"')))
    ) {
      this.#reportFrame(data, false);
    }
    if (!this.tally.hasModel) {
      this.tally.seen(readStringValue(data, MODEL), readStringValue(data, SERVICE_TIER));
    }
  }

  #responsesEvent(data: string, event: string): void {
    const type = event.length > 0 ? event : (readStringValue(data, TYPE) ?? '');
    if (type.endsWith('.delta')) {
      // output text, refusal, reasoning summary, tool-call arguments; audio deltas are base64, not text
      const v = type.includes('audio') ? -1 : valueIndex(data, DELTA);
      if (v !== -1) tallyStringAt(data, v, this.tally.output);
      return;
    }
    if (type === 'response.created') {
      this.tally.seen(readStringValue(data, MODEL), readStringValue(data, SERVICE_TIER));
    }
    if (hasObjectValue(data, USAGE) || hasObjectValue(data, ERROR)) this.#reportFrame(data, true);
  }

  #reportFrame(data: string, responses: boolean): void {
    const frame = this.tally.parseFrame(data);
    if (frame === undefined) return;
    const body = (responses ? asObject(frame.response) : undefined) ?? frame;
    const usage = this.#fromBody(body);
    if (usage !== undefined) {
      this.tally.report(usage);
      return;
    }
    const error = providerError(body) ?? providerError(frame);
    if (error !== undefined) this.tally.fail(error);
  }
}

/** OpenAI itself (and hosts with no differences: Together, Mistral, DeepSeek, xAI, vLLM). */
export const openaiUsage: UsageParser = createOpenAIUsageParser();
