/**
 * Anthropic Messages usage, JSON and SSE.
 *
 * Mapping:
 * - `input_tokens` EXCLUDES cache tokens, so inputTokens = `input_tokens` + `cache_read_input_tokens` +
 *   `cache_creation_input_tokens`; cacheReadTokens = `cache_read_input_tokens`.
 * - Cache writes: `cache_creation.ephemeral_5m_input_tokens` → cacheWrite5mTokens and
 *   `ephemeral_1h_input_tokens` → cacheWrite1hTokens; without that split (older responses), every
 *   `cache_creation_input_tokens` is a 5-minute write (the default TTL).
 * - `output_tokens` → outputTokens (it already includes extended-thinking tokens; Anthropic does not
 *   report them apart, so reasoningTokens is 0).
 * - `usage.service_tier` (`standard` | `priority` | `batch`) → serviceTier, as reported.
 * - `usage.server_tool_use.web_search_requests` → webSearchRequests (billed per search, beyond tokens;
 *   `web_fetch_requests` is not counted: web fetch costs only its tokens).
 * - Streams: `message_start` carries the initial usage (input and cache figures, output ≈ 1);
 *   `message_delta` carries CUMULATIVE usage: each field it has replaces the earlier value (never summed).
 *   A stream cut before `message_delta` keeps the input figures of `message_start` and estimates the output.
 */
import { asCount, asObject, asString, field, type JsonObject } from './json-fields';
import { jsonKey, readStringValue, tallyStringAt, valueIndex } from './json-scan';
import { makeUsage, providerError, usageResultOf } from './normalize';
import { framedUsageStream, StreamTally, type FrameHandler } from './stream';
import type { NormalizedUsage, UsageContext, UsageParser, UsageResult } from './types';

/** Token fields of an Anthropic usage object; undefined when it has no token counts. */
export function readAnthropicUsage(usage: JsonObject): Partial<NormalizedUsage> | undefined {
  const input = asCount(usage.input_tokens);
  const output = asCount(usage.output_tokens);
  const read = asCount(usage.cache_read_input_tokens);
  const creation = asCount(usage.cache_creation_input_tokens);
  if (input === undefined && output === undefined && read === undefined && creation === undefined)
    return undefined;
  const split = asObject(usage.cache_creation);
  const split5m = asCount(split?.ephemeral_5m_input_tokens) ?? 0;
  const split1h = asCount(split?.ephemeral_1h_input_tokens) ?? 0;
  const writes = creation ?? split5m + split1h;
  const hasSplit = split5m + split1h > 0;
  return {
    inputTokens: (input ?? 0) + (read ?? 0) + writes,
    cacheReadTokens: read ?? 0,
    cacheWrite5mTokens: hasSplit ? split5m : writes,
    cacheWrite1hTokens: hasSplit ? split1h : 0,
    outputTokens: output ?? 0,
    serviceTier: asString(usage.service_tier) ?? null,
    webSearchRequests: asCount(field(usage, 'server_tool_use', 'web_search_requests')) ?? 0,
  };
}

function toUsage(usage: JsonObject, model: string | null): NormalizedUsage | undefined {
  const fields = readAnthropicUsage(usage);
  return fields === undefined ? undefined : makeUsage({ ...fields, model });
}

const TYPE = jsonKey('type');
// The text-bearing field of a `content_block_delta` (one per event, by delta type): `text` (text_delta),
// `thinking` (thinking_delta), `partial_json` (input_json_delta); tried in order of frequency. Signature
// and citation deltas have none of them.
const TEXT = jsonKey('text');
const THINKING = jsonKey('thinking');
const PARTIAL_JSON = jsonKey('partial_json');

/**
 * `content_block_delta`, the event of nearly every frame, told from the other Messages event names by
 * length and three characters: a string comparison with the literal costs more than the rest of the
 * frame's handling (event names are slices of a decoded chunk).
 */
function isContentBlockDelta(type: string): boolean {
  return (
    type.length === 19 &&
    type.charCodeAt(14) === 100 /* d */ &&
    type.charCodeAt(0) === 99 /* c */ &&
    type.charCodeAt(18) === 97 /* a */
  );
}

/** Streamed Messages events. */
class AnthropicStreamHandler implements FrameHandler {
  /** Usage fields so far: `message_start`'s, overwritten field by field by each `message_delta`. */
  #usage: JsonObject = {};
  #model: string | null = null;

  constructor(readonly tally: StreamTally) {}

  frame(data: string, event: string): void {
    const type = event.length > 0 ? event : (readStringValue(data, TYPE) ?? '');
    if (isContentBlockDelta(type)) {
      let v = valueIndex(data, TEXT);
      if (v === -1) v = valueIndex(data, THINKING);
      if (v === -1) v = valueIndex(data, PARTIAL_JSON);
      if (v !== -1) tallyStringAt(data, v, this.tally.output);
      return;
    }
    switch (type) {
      case 'message_start': {
        const message = asObject(this.tally.parseFrame(data)?.message);
        if (message === undefined) return;
        this.#model = asString(message.model) ?? null;
        this.tally.seen(this.#model);
        const usage = asObject(message.usage);
        if (usage === undefined) return;
        this.#usage = { ...usage };
        const start = toUsage(this.#usage, this.#model);
        if (start !== undefined) this.tally.reportPartial(start);
        return;
      }
      case 'message_delta': {
        const usage = asObject(this.tally.parseFrame(data)?.usage);
        if (usage === undefined) return;
        for (const [key, value] of Object.entries(usage)) {
          if (value !== null && value !== undefined) this.#usage[key] = value;
        }
        const final = toUsage(this.#usage, this.#model);
        if (final !== undefined) this.tally.report(final);
        return;
      }
      case 'error': {
        const frame = this.tally.parseFrame(data);
        if (frame !== undefined) this.tally.fail(providerError(frame) ?? 'provider error');
        return;
      }
      default:
      // ping, content_block_start, content_block_stop, message_stop: nothing to count
    }
  }
}

/** Anthropic Messages API (`/v1/messages`). */
export const anthropicUsage: UsageParser = {
  fromJson(body: unknown, ctx: UsageContext): UsageResult {
    return usageResultOf(body, ctx, (obj) => {
      const usage = asObject(obj.usage);
      return usage === undefined ? undefined : toUsage(usage, asString(obj.model) ?? null);
    });
  },
  stream(ctx: UsageContext) {
    return framedUsageStream(
      ctx,
      () => new AnthropicStreamHandler(new StreamTally(ctx, 'anthropic', 'anthropic')),
    );
  },
};
