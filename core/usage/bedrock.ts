/**
 * Amazon Bedrock usage: Converse / ConverseStream, InvokeModel / InvokeModelWithResponseStream (each
 * model family's own body) and the OpenAI-compatible endpoints (`/openai/v1/…` on bedrock-runtime,
 * `/v1/…` on bedrock-mantle).
 *
 * Mapping (docs/bedrock.md has the sources):
 * - Converse `usage` (TokenUsage): `inputTokens`, `outputTokens`, `totalTokens`, `cacheReadInputTokens`,
 *   `cacheWriteInputTokens`, `cacheDetails: [{ ttl: '5m' | '1h', inputTokens }]`. Whether `inputTokens`
 *   counts the cache tokens depends on the model family: Anthropic (and Nova) models EXCLUDE them,
 *   OpenAI models on Bedrock INCLUDE them. The figures decide when they can ({@link converseInputIncludesCache}:
 *   `totalTokens` = input + output means inclusive, = input + output + cache means exclusive), the model's
 *   vendor otherwise, so an application-inference-profile ARN, which names no model, is read right too.
 * - Cache writes: `cacheDetails` splits them by TTL; without it every write is a 5-minute write.
 * - `serviceTier: { type }` (response, else request) → serviceTier (`flex`, `priority`, `default`, `reserved`).
 * - InvokeModel bodies: Anthropic Messages (`usage.input_tokens`…, as `anthropic.ts` reads them), Nova
 *   (`usage.inputTokens`, `cacheReadInputTokenCount`, `cacheWriteInputTokenCount`), OpenAI chat
 *   (`usage.prompt_tokens`), Llama (`prompt_token_count`, `generation_token_count`), Titan
 *   (`inputTextTokenCount`, `results[].tokenCount`), Cohere (`meta.billed_units`), and Bedrock's own
 *   `amazon-bedrock-invocationMetrics` when the body has nothing else.
 * - The model is the one in the request path (`/model/<modelId>/converse`): the inference profile the
 *   caller chose (`us.…` and `global.…` are priced differently), never the bare name an Anthropic body
 *   reports.
 * - Streams are AWS event streams: this module reads DECODED events ({@link BedrockEventTally}); bytes are
 *   framed and CRC-checked by the AWS codec in `bedrock-event-stream.ts`, whose reader callers pass in
 *   {@link UsageContext.bedrockEventStream} (the SDK never needs it: the AWS client decodes for it).
 */
import { bedrockModelFromPath, isBedrockOpenAIEndpoint } from '../providers/bedrock-paths';
import { readAnthropicUsage } from './anthropic';
import { asCount, asObject, asString, field, parseJsonObject, type JsonObject } from './json-fields';
import { fail, makeUsage, NOT_AN_OBJECT, ok, providerError, requestJson, settledStream } from './normalize';
import { openaiUsage, readOpenAIUsage } from './openai';
import { StreamTally } from './stream';
import type { NormalizedUsage, UsageContext, UsageParser, UsageResult, UsageStream } from './types';

export type { BedrockStreamEvent, EventStreamDecoder } from './types';

/** Whether `model` is served by OpenAI (Converse `inputTokens` then includes the cache tokens). */
function isOpenAIModel(model: string | null): boolean {
  if (model === null) return false;
  const m = model.toLowerCase();
  return /(?:^|[./])openai\./.test(m) || /(?:^|[./])gpt-/.test(m);
}

/**
 * Whether a Converse `inputTokens` already counts the cache reads and writes. The figures decide when
 * there are cache tokens and a `totalTokens`; else the model's vendor (OpenAI: yes, every other: no).
 */
export function converseInputIncludesCache(
  input: number,
  output: number,
  cache: number,
  total: number | undefined,
  model: string | null,
): boolean {
  if (cache > 0 && total !== undefined) {
    if (total === input + output) return true;
    if (total === input + output + cache) return false;
  }
  return isOpenAIModel(model);
}

/** Token fields of a Converse (or Nova InvokeModel) usage object; undefined when it has no counts. */
export function readConverseUsage(
  usage: JsonObject,
  model: string | null,
): Partial<NormalizedUsage> | undefined {
  const input = asCount(usage.inputTokens);
  const output = asCount(usage.outputTokens);
  if (input === undefined && output === undefined) return undefined;
  const read = asCount(usage.cacheReadInputTokens) ?? asCount(usage.cacheReadInputTokenCount) ?? 0;
  let write = asCount(usage.cacheWriteInputTokens) ?? asCount(usage.cacheWriteInputTokenCount) ?? 0;
  let write5m = 0;
  let write1h = 0;
  const details = Array.isArray(usage.cacheDetails) ? usage.cacheDetails : [];
  for (const d of details) {
    const tokens = asCount(field(d, 'inputTokens')) ?? 0;
    if (field(d, 'ttl') === '1h') write1h += tokens;
    else write5m += tokens;
  }
  if (write5m + write1h > write) write = write5m + write1h;
  // Writes the split does not account for are 5-minute writes (the default TTL).
  write5m += write - write5m - write1h;
  const inclusive = converseInputIncludesCache(
    input ?? 0,
    output ?? 0,
    read + write,
    asCount(usage.totalTokens),
    model,
  );
  return {
    inputTokens: inclusive ? Math.max(input ?? 0, read + write) : (input ?? 0) + read + write,
    cacheReadTokens: read,
    cacheWrite5mTokens: write5m,
    cacheWrite1hTokens: write1h,
    outputTokens: output ?? 0,
  };
}

/** `amazon-bedrock-invocationMetrics` (InvokeModel streams' last chunk): counts as Converse reports them. */
function readInvocationMetrics(
  metrics: JsonObject,
  model: string | null,
): Partial<NormalizedUsage> | undefined {
  return readConverseUsage(
    {
      inputTokens: metrics.inputTokenCount,
      outputTokens: metrics.outputTokenCount,
      cacheReadInputTokens: metrics.cacheReadInputTokenCount,
      cacheWriteInputTokens: metrics.cacheWriteInputTokenCount,
    },
    model,
  );
}

/** The tier a Converse body names: `serviceTier: { type }` (or a plain string, as InvokeModel bodies may). */
function tierOf(body: unknown): string | null {
  const tier = field(body, 'serviceTier');
  return asString(field(tier, 'type')) ?? asString(tier) ?? asString(field(body, 'service_tier')) ?? null;
}

/** Usage fields of one model-native body (InvokeModel) or a Converse response; undefined when none. */
function readBodyUsage(body: JsonObject, model: string | null): Partial<NormalizedUsage> | undefined {
  const usage = asObject(body.usage);
  if (usage !== undefined) {
    if (usage.input_tokens !== undefined || usage.cache_read_input_tokens !== undefined)
      return readAnthropicUsage(usage);
    if (usage.prompt_tokens !== undefined || usage.completion_tokens !== undefined)
      return readOpenAIUsage(usage);
    const converse = readConverseUsage(usage, model);
    if (converse !== undefined) return converse;
  }
  const llamaIn = asCount(body.prompt_token_count);
  const llamaOut = asCount(body.generation_token_count);
  if (llamaIn !== undefined || llamaOut !== undefined)
    return { inputTokens: llamaIn ?? 0, outputTokens: llamaOut ?? 0 };
  const titanIn = asCount(body.inputTextTokenCount);
  if (titanIn !== undefined) {
    const results = Array.isArray(body.results) ? body.results : [];
    const out = results.reduce<number>((sum, r) => sum + (asCount(field(r, 'tokenCount')) ?? 0), 0);
    return { inputTokens: titanIn, outputTokens: out };
  }
  const billed = asObject(field(body, 'meta', 'billed_units'));
  if (billed !== undefined && (billed.input_tokens !== undefined || billed.output_tokens !== undefined))
    return {
      inputTokens: asCount(billed.input_tokens) ?? 0,
      outputTokens: asCount(billed.output_tokens) ?? 0,
    };
  const metrics = asObject(body['amazon-bedrock-invocationMetrics']);
  return metrics === undefined ? undefined : readInvocationMetrics(metrics, model);
}

/** The model a call is priced as: the request path's (the profile chosen), else the body's. */
function modelOf(ctx: UsageContext, body: unknown): string | null {
  return (
    bedrockModelFromPath(ctx.url) ??
    asString(field(requestJson(ctx), 'model')) ??
    asString(field(body, 'model')) ??
    null
  );
}

/**
 * Usage from InvokeModel's response headers (`x-amzn-bedrock-input-token-count`,
 * `-output-token-count`, `-cache-read-input-token-count`, `-cache-write-input-token-count`): the fallback
 * for a model body that carries none. Counted as `invocationMetrics` are (the family rule for cache
 * tokens applies). Undefined without the two main headers.
 */
export function bedrockUsageFromHeaders(
  header: (name: string) => string | undefined,
  ctx: UsageContext,
): NormalizedUsage | undefined {
  const count = (name: string): number | undefined => {
    const raw = header(`x-amzn-bedrock-${name}`);
    const n = raw === undefined ? NaN : Number(raw);
    return Number.isInteger(n) && n >= 0 ? n : undefined;
  };
  const input = count('input-token-count');
  const output = count('output-token-count');
  if (input === undefined || output === undefined) return undefined;
  const model = modelOf(ctx, undefined);
  const fields = readInvocationMetrics(
    {
      inputTokenCount: input,
      outputTokenCount: output,
      cacheReadInputTokenCount: count('cache-read-input-token-count'),
      cacheWriteInputTokenCount: count('cache-write-input-token-count'),
    },
    model,
  );
  return fields === undefined
    ? undefined
    : makeUsage({ ...fields, model, serviceTier: header('x-amzn-bedrock-service-tier') ?? null });
}

/** The JSON object an event's payload carries: as bytes of JSON text, or already decoded. */
function payloadObject(payload: unknown): JsonObject | undefined {
  return payload instanceof Uint8Array ? parseJsonObject(payload) : asObject(payload);
}

/** The model-native body of a `chunk` event from its `bytes`: base64 text (in a JSON payload) or bytes. */
function chunkBody(bytes: unknown): JsonObject | undefined {
  let raw = bytes;
  if (typeof bytes === 'string') {
    try {
      const bin = atob(bytes);
      raw = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) (raw as Uint8Array)[i] = bin.charCodeAt(i);
    } catch {
      return undefined;
    }
  }
  return raw instanceof Uint8Array ? payloadObject(raw) : undefined;
}

/** The message of an AWS error body (`message`, or `Message` as some services spell it), cut short for logs. */
function awsErrorMessage(body: JsonObject | undefined): string | undefined {
  return (asString(body?.message) ?? asString(body?.Message))?.slice(0, 160);
}

/**
 * Usage of one Bedrock stream, event by event: ConverseStream's `metadata` event, or for
 * InvokeModelWithResponseStream the `chunk` events' model-native bodies (Anthropic `message_start` /
 * `message_delta`, Nova `metadata.usage`) and the last chunk's `amazon-bedrock-invocationMetrics`.
 * Output text is counted for the estimate of a stream cut before its usage.
 */
export class BedrockEventTally {
  readonly #tally: StreamTally;
  readonly #model: string | null;
  /** Anthropic usage fields so far (message_start, then each message_delta's). */
  #anthropic: JsonObject | undefined;
  #fromMetrics: Partial<NormalizedUsage> | undefined;
  #tier: string | null = null;
  readonly #ctx: UsageContext;

  constructor(ctx: UsageContext) {
    this.#ctx = ctx;
    this.#model = modelOf(ctx, undefined);
    this.#tally = new StreamTally(ctx, 'anthropic', isOpenAIModel(this.#model) ? 'openai' : 'anthropic');
    this.#tally.seen(this.#model, tierOf(requestJson(ctx)));
  }

  /** One decoded event. `eventType` is the union member's name (`metadata`, `contentBlockDelta`, `chunk`). */
  event(eventType: string, payload: unknown, messageType = 'event'): void {
    this.#tally.countFrame();
    if (messageType !== 'event') {
      const message = awsErrorMessage(payloadObject(payload));
      this.#tally.fail(`provider error: ${eventType}${message === undefined ? '' : `: ${message}`}`);
      return;
    }
    const body = payloadObject(payload);
    if (body === undefined) {
      this.#tally.malformedFrame();
      return;
    }
    switch (eventType) {
      case 'contentBlockDelta': {
        const delta = asObject(body.delta);
        const text =
          asString(delta?.text) ??
          asString(field(delta, 'reasoningContent', 'text')) ??
          asString(field(delta, 'toolUse', 'input'));
        if (text !== undefined) this.#tally.output.addText(text);
        return;
      }
      case 'metadata': {
        this.#tier = tierOf(body) ?? this.#tier;
        const usage = asObject(body.usage);
        const fields = usage === undefined ? undefined : readConverseUsage(usage, this.#model);
        if (fields !== undefined) this.#tally.report(this.#finish(fields));
        return;
      }
      case 'chunk':
        this.#chunk(chunkBody(body.bytes));
        return;
      default:
      // messageStart, contentBlockStart, contentBlockStop, messageStop: nothing to count
    }
  }

  /** A tier known from outside the events (InvokeModel's response header); the events' own wins. */
  setServiceTier(tier: string | undefined): void {
    if (tier !== undefined && tier.length > 0) this.#tier ??= tier;
  }

  /** The usage (reported, or estimated for a stream that carried none). */
  end(): UsageResult {
    return this.#tally.finish();
  }

  #chunk(body: JsonObject | undefined): void {
    if (body === undefined) {
      this.#tally.malformedFrame();
      return;
    }
    const metrics = asObject(body['amazon-bedrock-invocationMetrics']);
    if (metrics !== undefined) this.#fromMetrics = readInvocationMetrics(metrics, this.#model);
    const type = asString(body.type);
    if (type === 'content_block_delta') {
      const text = asString(field(body, 'delta', 'text')) ?? asString(field(body, 'delta', 'thinking'));
      if (text !== undefined) this.#tally.output.addText(text);
    } else if (type === 'message_start') {
      const usage = asObject(field(body, 'message', 'usage'));
      if (usage !== undefined) this.#anthropic = { ...usage };
    } else if (type === 'message_delta') {
      const usage = asObject(body.usage);
      if (usage !== undefined) {
        this.#anthropic = { ...this.#anthropic };
        for (const [key, value] of Object.entries(usage)) if (value != null) this.#anthropic[key] = value;
      }
    } else if (type === 'error') {
      this.#tally.fail(providerError(body) ?? 'provider error');
    } else {
      const text = asString(body.generation) ?? asString(field(body, 'contentBlockDelta', 'delta', 'text'));
      if (text !== undefined) this.#tally.output.addText(text);
      const nova = asObject(field(body, 'metadata', 'usage'));
      const fields = nova !== undefined ? readConverseUsage(nova, this.#model) : undefined;
      if (fields !== undefined) this.#fromMetrics = fields;
    }
    // The model's own figures win (Anthropic's carry the 5-minute / 1-hour split); the metrics otherwise.
    const anthropic = this.#anthropic === undefined ? undefined : readAnthropicUsage(this.#anthropic);
    const best =
      metrics !== undefined || type === 'message_delta' ? (anthropic ?? this.#fromMetrics) : undefined;
    if (best !== undefined) this.#tally.report(this.#finish(best));
    else if (anthropic !== undefined) this.#tally.reportPartial(this.#finish(anthropic));
    else if (this.#fromMetrics !== undefined) this.#tally.report(this.#finish(this.#fromMetrics));
  }

  #finish(fields: Partial<NormalizedUsage>): NormalizedUsage {
    return makeUsage({
      ...fields,
      model: this.#model,
      serviceTier: fields.serviceTier ?? this.#tier ?? tierOf(requestJson(this.#ctx)),
    });
  }
}

/** Amazon Bedrock: the runtime API (Converse, InvokeModel, their streams) and the OpenAI-compatible endpoints. */
export const bedrockUsage: UsageParser = {
  fromJson(body: unknown, ctx: UsageContext): UsageResult {
    if (isBedrockOpenAIEndpoint(ctx.url)) return openaiUsage.fromJson(body, ctx);
    const obj = asObject(body);
    if (obj === undefined) return fail(NOT_AN_OBJECT);
    const model = modelOf(ctx, obj);
    const fields = readBodyUsage(obj, model);
    if (fields === undefined) return fail(providerError(obj) ?? bedrockError(obj) ?? 'no usage in response');
    return ok(
      makeUsage({
        ...fields,
        model,
        serviceTier: tierOf(obj) ?? fields.serviceTier ?? tierOf(requestJson(ctx)),
      }),
    );
  },
  stream(ctx: UsageContext): UsageStream {
    if (bedrockModelFromPath(ctx.url) === null) return openaiUsage.stream(ctx);
    return (
      ctx.bedrockEventStream?.(ctx) ?? settledStream(fail('no event-stream decoder for a Bedrock stream'))
    );
  },
};

/** AWS JSON errors: `{"message": "…"}` with the type in a header the parser does not see. */
function bedrockError(body: JsonObject): string | undefined {
  const message = awsErrorMessage(body);
  return message === undefined ? undefined : `provider error: ${message}`;
}
