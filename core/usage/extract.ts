/**
 * The entry points callers use: a provider (entry or id) plus a body, in whatever form they have it.
 * Each resolves the provider's parser from the catalog and never throws.
 */
import { getProvider, type ProviderId } from '../providers/catalog';
import type { ProviderEntry } from '../providers/types';
import { tryParseJson } from './json-fields';
import { fail, failedWith, providerError, settledStream } from './normalize';
import type { UsageContext, UsageResult, UsageStream } from './types';

/** A catalog entry, or the id of one (`'openai'`, `'anthropic'`, …). */
export type ProviderRef = ProviderEntry | ProviderId;

function resolve(provider: ProviderRef): ProviderEntry | undefined {
  return typeof provider === 'string' ? getProvider(provider) : provider;
}

function unknownProvider(provider: ProviderRef): UsageResult {
  return fail(`unknown provider: ${typeof provider === 'string' ? provider : String(provider)}`);
}

/**
 * Usage of a complete (non-streamed) JSON response.
 *
 * @param body the parsed JSON value, or its raw text / bytes
 * @example
 * parseUsageJson('anthropic', '{"model":"claude-sonnet-4-5","usage":{"input_tokens":10,' +
 *   '"cache_read_input_tokens":2000,"cache_creation_input_tokens":500,"output_tokens":42}}');
 * // → { ok: true, usage: { inputTokens: 2510, cacheReadTokens: 2000, cacheWrite5mTokens: 500, outputTokens: 42, … } }
 */
export function parseUsageJson(provider: ProviderRef, body: unknown, ctx: UsageContext = {}): UsageResult {
  const entry = resolve(provider);
  if (entry === undefined) return unknownProvider(provider);
  let value = body;
  if (typeof body === 'string' || body instanceof Uint8Array) {
    const parsed = tryParseJson(body);
    if (!parsed.ok) return fail('malformed JSON response body');
    value = parsed.value;
  }
  try {
    return entry.usage.fromJson(value, ctx);
  } catch (err) {
    return failedWith('usage parser error', err);
  }
}

/**
 * An incremental parser for a streamed response (SSE, or Ollama's NDJSON): `push` the bytes as they
 * pass through, `end()` when the stream closes.
 *
 * @example
 * const usage = createUsageStream('openai', { requestBody });
 * for await (const chunk of response.body) usage.push(chunk); // and forward the chunk untouched
 * const result = usage.end(); // reported usage, or an estimate marked `estimated: true`
 */
export function createUsageStream(provider: ProviderRef, ctx: UsageContext = {}): UsageStream {
  const entry = resolve(provider);
  if (entry === undefined) return settledStream(unknownProvider(provider));
  try {
    return entry.usage.stream(ctx);
  } catch (err) {
    return settledStream(failedWith('usage parser error', err));
  }
}

/** A whole response body with what the caller knows about it (all {@link UsageContext} fields too). */
export interface ResponseUsageInput extends UsageContext {
  provider: ProviderRef;
  /** The response body: bytes or text. */
  body: Uint8Array | string;
  /** The response `content-type` header; sniffed from the body when absent. */
  contentType?: string | null;
  /** HTTP status; 4xx and 5xx responses are reported as failures with the provider's error. */
  status?: number;
}

const STREAM_TYPES = /text\/event-stream|ndjson|jsonl|json-seq|vnd\.amazon\.eventstream/i;
const JSON_TYPES = /json/i;

/**
 * Usage of a response whose whole body is at hand, streamed or not: the content type (or, without one,
 * the body itself) chooses between {@link parseUsageJson} and {@link createUsageStream}.
 *
 * @example
 * usageFromResponse({ provider: 'openai', status: 200, contentType: 'text/event-stream', body: bytes });
 */
export function usageFromResponse(input: ResponseUsageInput): UsageResult {
  const { provider, body, contentType, status, ...ctx } = input;
  if (status !== undefined && status >= 400) {
    const parsed = tryParseJson(body);
    const reason = parsed.ok ? providerError(parsed.value) : undefined;
    return fail(`HTTP ${status}${reason === undefined ? '' : `: ${reason}`}`);
  }
  const type = contentType ?? '';
  let streamed = STREAM_TYPES.test(type);
  if (!streamed && !JSON_TYPES.test(type)) {
    // No usable content type: JSON if the whole body parses, a stream otherwise.
    const parsed = tryParseJson(body);
    if (parsed.ok) return parseUsageJson(provider, parsed.value, ctx);
    streamed = true;
  }
  if (!streamed) return parseUsageJson(provider, body, ctx);
  const stream = createUsageStream(provider, ctx);
  stream.push(typeof body === 'string' ? new TextEncoder().encode(body) : body);
  return stream.end();
}
