/**
 * The streaming machinery every provider shares: bytes → lines → frames (SSE or NDJSON, recognised from
 * the first line) → the provider's {@link FrameHandler}, which records what it finds in a
 * {@link StreamTally}. The tally turns that into the final {@link UsageResult}: the reported usage, or an
 * estimate when the stream carried none.
 */
import type { RequestFlavor } from '../providers/types';
import { estimateRequestTokens, familyOfModel, TokenTally, type TokenizerFamily } from './estimate';
import { parseJsonObject, type JsonObject } from './json-fields';
import { LineSplitter, type LineSink } from './lines';
import { NdjsonDecoder } from './ndjson';
import {
  fail,
  failedWith,
  makeUsage,
  ok,
  requestedModel,
  requestedServiceTier,
  requestJson,
  withRequestFallbacks,
} from './normalize';
import { estimateReasoningOutput } from './reasoning-allowance';
import { SseDecoder, type FrameSink } from './sse';
import type { NormalizedUsage, UsageContext, UsageResult, UsageStream } from './types';

/** Default for {@link UsageContext.maxFrameChars}. */
export const DEFAULT_MAX_FRAME_CHARS = 1_048_576;

/** How a streamed body is framed. */
export type Framing = 'sse' | 'ndjson';

/** A provider's per-frame logic. */
export interface FrameHandler {
  /** Where the handler records usage, output text counts and errors. */
  readonly tally: StreamTally;
  /** One frame whose data looks like a JSON object (`[DONE]` and blank frames never reach it). */
  frame(data: string, event: string): void;
}

/** What a stream has shown so far; its {@link finish} makes the result. */
export class StreamTally {
  /** The provider's final (or cumulative, last-wins) usage. */
  #usage: NormalizedUsage | null = null;
  /** Provider figures that are not final (Anthropic's `message_start`), used if no final usage comes. */
  #partial: NormalizedUsage | null = null;
  /** A frame was dropped as too large and no usage frame has come since. */
  #lost = false;
  #error: string | undefined;
  #malformed = 0;
  #frames = 0;
  /** Model name seen in content frames. */
  #model: string | null = null;
  /** Service tier seen in content frames. */
  #serviceTier: string | null = null;
  /** Completion text counted for the estimate. */
  readonly output: TokenTally;

  readonly #ctx: UsageContext;
  readonly #flavor: RequestFlavor;
  readonly #family: TokenizerFamily;

  /**
   * @param flavor shape of the request body, for the prompt estimate
   * @param family tokenizer family when the model name does not tell
   */
  constructor(ctx: UsageContext, flavor: RequestFlavor, family: TokenizerFamily) {
    this.#ctx = ctx;
    this.#flavor = flavor;
    this.#family = family;
    this.output = new TokenTally(ctx.tokenCounter);
  }

  /** True once a model name is known from any frame (so handlers can stop looking). */
  get hasModel(): boolean {
    return this.#model !== null;
  }

  /** Records the provider's usage; a later call replaces it (cumulative counts: last wins). */
  report(usage: NormalizedUsage): void {
    this.#usage = usage;
    this.#lost = false;
  }

  /** Records provider figures that a final usage frame would supersede. */
  reportPartial(usage: NormalizedUsage): void {
    this.#partial = usage;
  }

  /** Records model / service tier seen in any frame. */
  seen(model: string | null | undefined, serviceTier?: string | null): void {
    if (model) this.#model = model;
    if (serviceTier) this.#serviceTier = serviceTier;
  }

  /** Records a provider error frame. */
  fail(reason: string): void {
    this.#error ??= reason;
  }

  /** Records a frame that is not valid JSON. */
  malformedFrame(): void {
    this.#malformed++;
  }

  /** A frame's data parsed as a JSON object; a frame that is not one is recorded as malformed. */
  parseFrame(data: string): JsonObject | undefined {
    const frame = parseJsonObject(data);
    if (frame === undefined) this.#malformed++;
    return frame;
  }

  /** Records a data frame. */
  countFrame(): void {
    this.#frames++;
  }

  /** Records a frame dropped for its size. */
  frameTooLarge(): void {
    this.#lost = true;
  }

  /**
   * The result, in this order: the reported usage (unless a dropped frame came after it); a provider
   * error; "frame too large"; "malformed"; "no frames"; else an estimate (`estimated: true`) built on
   * any partial figures the provider sent.
   */
  finish(): UsageResult {
    if (this.#usage !== null && !this.#lost)
      return ok(withRequestFallbacks(this.#usage, this.#ctx, this.#model, this.#serviceTier));
    if (this.#error !== undefined) return fail(this.#error);
    if (this.#lost) return fail(frameTooLarge(maxFrameChars(this.#ctx)));
    if (this.#malformed > 0) return fail(`malformed JSON in ${this.#malformed} stream frame(s)`);
    if (this.#frames === 0) return fail('no usage in stream: no data frames');
    return ok(this.#estimate());
  }

  #estimate(): NormalizedUsage {
    const request = requestJson(this.#ctx);
    const partial = this.#partial;
    const model = partial?.model ?? this.#model ?? requestedModel(this.#ctx, request);
    const family = familyOfModel(model, this.#family);
    const inputTokens =
      partial?.inputTokens ?? estimateRequestTokens(this.#flavor, request, family, this.#ctx.tokenCounter);
    const visible = Math.max(partial?.outputTokens ?? 0, this.output.total(family));
    // Hidden reasoning is billed as output but never streamed: a documented allowance (reasoning-allowance.ts).
    const output = estimateReasoningOutput(visible, model, request, this.#ctx.typicalReasoning);
    return makeUsage({
      ...partial,
      model,
      inputTokens,
      outputTokens: output.outputTokens,
      reasoningTokens: Math.max(partial?.reasoningTokens ?? 0, output.reasoningTokens),
      serviceTier: partial?.serviceTier ?? this.#serviceTier ?? requestedServiceTier(request),
      estimated: true,
    });
  }
}

/**
 * A {@link UsageStream} over any provider handler. The framing is recognised from the first non-blank
 * line: `{` starts NDJSON, anything else (`data:`, `event:`, `:`) SSE. `handlerFor` receives it, so a
 * provider that speaks two dialects (Ollama: NDJSON natively, SSE on /v1) picks the matching handler.
 */
export function framedUsageStream(
  ctx: UsageContext,
  handlerFor: (framing: Framing) => FrameHandler,
): UsageStream {
  return new FramedStream(ctx, handlerFor);
}

class FramedStream implements UsageStream, LineSink {
  readonly #splitter: LineSplitter;
  readonly #maxFrame: number;
  #lines: LineSink | undefined;
  #sse: SseDecoder | undefined;
  #handler: FrameHandler | undefined;
  #overflowBeforeFraming = false;
  /** Set at the end, or as soon as the parser fails (the bytes after that are not read). */
  #result: UsageResult | undefined;

  readonly #handlerFor: (framing: Framing) => FrameHandler;

  constructor(ctx: UsageContext, handlerFor: (framing: Framing) => FrameHandler) {
    this.#handlerFor = handlerFor;
    this.#maxFrame = maxFrameChars(ctx);
    this.#splitter = new LineSplitter(this.#maxFrame, this);
  }

  push(chunk: Uint8Array): void {
    if (this.#result !== undefined) return;
    try {
      if (typeof chunk === 'string') this.#splitter.pushText(chunk);
      else this.#splitter.push(chunk);
    } catch (err) {
      this.#result = failedWith('stream parser error', err);
    }
  }

  end(): UsageResult {
    if (this.#result !== undefined) return this.#result;
    try {
      this.#splitter.end();
      this.#sse?.end();
      this.#result =
        this.#handler !== undefined
          ? this.#handler.tally.finish()
          : fail(this.#overflowBeforeFraming ? frameTooLarge(this.#maxFrame) : 'empty stream');
    } catch (err) {
      this.#result = failedWith('stream parser error', err);
    }
    return this.#result;
  }

  /** Sees lines only until the framing is known; then the splitter feeds the decoder directly. */
  line(text: string, start: number, end: number): void {
    if (this.#lines === undefined) {
      const trimmed = text.slice(start, end).trimStart();
      if (trimmed.length === 0) return;
      this.#choose(trimmed.charCodeAt(0) === 123 /* { */ ? 'ndjson' : 'sse');
    }
    this.#lines?.line(text, start, end);
  }

  overflow(): void {
    if (this.#lines === undefined) this.#overflowBeforeFraming = true;
    else this.#lines.overflow();
  }

  #choose(framing: Framing): void {
    const handler = this.#handlerFor(framing);
    this.#handler = handler;
    const frames = new HandlerSink(handler);
    if (framing === 'sse') {
      this.#sse = new SseDecoder(this.#maxFrame, frames);
      this.#lines = this.#sse;
    } else {
      this.#lines = new NdjsonDecoder(frames);
    }
    if (this.#overflowBeforeFraming) handler.tally.frameTooLarge();
    this.#splitter.redirect(this.#lines);
  }
}

/** Filters frames before the handler: skips `[DONE]` and blank data, counts non-JSON as malformed. */
class HandlerSink implements FrameSink {
  readonly #handler: FrameHandler;

  constructor(handler: FrameHandler) {
    this.#handler = handler;
  }

  frame(data: string, event: string): void {
    let json = data;
    if (json.charCodeAt(0) !== 123 || json.charCodeAt(json.length - 1) !== 125) {
      json = json.trim();
      if (json.length === 0 || json === '[DONE]') return;
      if (json.charCodeAt(0) !== 123 || json.charCodeAt(json.length - 1) !== 125) {
        this.#handler.tally.malformedFrame();
        return;
      }
    }
    this.#handler.tally.countFrame();
    this.#handler.frame(json, event);
  }

  overflow(): void {
    this.#handler.tally.frameTooLarge();
  }
}

/** The frame limit of a context: {@link UsageContext.maxFrameChars} if it is a positive number, else the default. */
function maxFrameChars(ctx: UsageContext): number {
  const max = ctx.maxFrameChars;
  return max !== undefined && Number.isFinite(max) && max > 0 ? max : DEFAULT_MAX_FRAME_CHARS;
}

function frameTooLarge(limit: number): string {
  return `frame too large (over ${limit} characters); usage unknown`;
}
