/**
 * The normalized token usage of one provider call, whatever the provider's own format.
 *
 * Conventions (chosen so that pricing never has to know the provider):
 * - `inputTokens` counts every prompt token, INCLUDING cache reads and cache writes
 *   (OpenAI's `prompt_tokens` semantics). Anthropic's `input_tokens` excludes cache tokens,
 *   so its parser adds them back in.
 * - `outputTokens` counts every generated token, INCLUDING reasoning tokens
 *   (OpenAI's `completion_tokens` semantics). Gemini reports thoughts separately, so its
 *   parser adds `thoughtsTokenCount` to `candidatesTokenCount`.
 * - `reasoningTokens` is therefore a subset of `outputTokens`, reported for information.
 */
export interface NormalizedUsage {
  /** Model identifier as the provider reported it (or as requested when the response has none). */
  model: string | null;
  /** All prompt tokens, cache reads and writes included. */
  inputTokens: number;
  /** Prompt tokens served from the provider's prompt cache. */
  cacheReadTokens: number;
  /** Prompt tokens written to a 5-minute cache (Anthropic ephemeral_5m; OpenAI has none). */
  cacheWrite5mTokens: number;
  /** Prompt tokens written to a 1-hour cache (Anthropic ephemeral_1h). */
  cacheWrite1hTokens: number;
  /** All generated tokens, reasoning included. */
  outputTokens: number;
  /** Reasoning / thinking tokens (subset of outputTokens). */
  reasoningTokens: number;
  /** Service tier reported or requested: 'default' | 'flex' | 'priority' | 'batch' | provider-specific; null if unknown. */
  serviceTier: string | null;
  /**
   * Server-side web searches the provider billed per request, beyond tokens (Anthropic
   * `usage.server_tool_use.web_search_requests`); 0 when none or not reported.
   */
  webSearchRequests: number;
  /**
   * Cost the provider itself reported, in USD (OpenRouter `usage.cost`; xAI `usage.cost_in_usd_ticks`
   * / 10^10); null when not reported. Pricing takes it as the call's cost.
   */
  providerCostUsd: number | null;
  /** True when the figures were estimated (a stream that ended without a usage frame). */
  estimated: boolean;
}

/** Either a usage record, or the reason none could be read. Parsers never throw. */
export type UsageResult = { ok: true; usage: NormalizedUsage } | { ok: false; reason: string };

/**
 * Counts the tokens of a piece of text. Estimation takes one optionally: the server passes an exact
 * tokenizer (`tokenizer-openai.ts`, o200k_base); the SDK passes none and falls back to the
 * characters-per-token ratio of the model family ({@link CHARS_PER_TOKEN} in `estimate.ts`).
 * Must not throw; a counter that throws is ignored for that text and the ratio is used.
 */
export type TokenCounter = (text: string) => number;

/** A decoded event-stream message, as the AWS codec (or the AWS SDK) hands it over. */
export interface BedrockStreamEvent {
  /** `:message-type`: `event`, `exception` or `error`. */
  readonly messageType: string;
  /** `:event-type` (`metadata`, `contentBlockDelta`, `chunk`, …) or `:exception-type`. */
  readonly eventType: string;
  /** The payload, parsed JSON (an object), or its raw bytes. */
  readonly payload: unknown;
}

/**
 * Splits an event-stream byte stream into decoded messages. Implemented over `@smithy/eventstream-codec`
 * in `bedrock-event-stream.ts`; never throws from `push` (a corrupt stream is reported by `error`).
 */
export interface EventStreamDecoder {
  push(chunk: Uint8Array): readonly BedrockStreamEvent[];
  /** Why decoding stopped (a CRC mismatch, a message over the size bound), or undefined. */
  readonly error: string | undefined;
  /** Bytes of an incomplete message left at the end, 0 for a cleanly ended stream. */
  readonly pending: number;
}

/** What a parser may know about the request besides the response itself. All fields are optional. */
export interface UsageContext {
  /** The request URL: Gemini carries the model in its path, Ollama and Gemini choose the API dialect by it. */
  url?: string;
  /**
   * The request body: parsed JSON, its raw text, or a function that returns the parsed body (called only
   * when a parser needs it, so the caller parses once and only when needed). Supplies the requested model (when the response has
   * none) and the prompt text for estimates. Read only when needed; never stored.
   */
  requestBody?: unknown;
  /** Exact token counter for estimates; default: the family's characters-per-token ratio. */
  tokenCounter?: TokenCounter;
  /**
   * Typical hidden reasoning tokens per call of a model at an effort, learned from the organization's calls
   * that reported usage (the relay's `ReasoningBaseline`); the estimate of a reasoning stream without usage
   * uses it as its floor. @default the published figures (reasoning-allowance `TYPICAL_REASONING_TOKENS`)
   */
  typicalReasoning?: (
    model: string,
    effort: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh',
  ) => number | undefined;
  /**
   * Longest single SSE event or NDJSON line kept in memory, in characters (about bytes for JSON).
   * A longer frame is skipped and reported as "frame too large" unless a usage frame follows it.
   * @default 1_048_576
   */
  maxFrameChars?: number;
  /**
   * Reads a Bedrock runtime stream (AWS event-stream bytes, `application/vnd.amazon.eventstream`). The
   * relay passes `readBedrockEventStream` (`bedrock-event-stream.ts`: the AWS codec feeding a
   * `BedrockEventTally`); without it such a stream has no readable usage. Kept out of the parsers so
   * that the SDK bundle, which sees events the AWS client has decoded, carries neither the codec nor
   * the reader.
   */
  bedrockEventStream?: (ctx: UsageContext) => UsageStream;
}

/**
 * Incremental usage parser for one streamed response. Feed it the response bytes as they arrive, in any
 * chunking; memory stays bounded by one frame. Neither method throws.
 */
export interface UsageStream {
  /** Consumes the next bytes of the response body. */
  push(chunk: Uint8Array): void;
  /** Ends the stream and returns the usage (reported, or estimated when the stream carried none). */
  end(): UsageResult;
}

/** Reads token usage from one provider's responses. Implementations never throw. */
export interface UsageParser {
  /** Reads usage from a complete, already parsed JSON response body. */
  fromJson(body: unknown, ctx: UsageContext): UsageResult;
  /** Starts an incremental parser for a streamed body (SSE, or NDJSON where the provider uses it). */
  stream(ctx: UsageContext): UsageStream;
}
