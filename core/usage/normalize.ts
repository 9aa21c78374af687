/** Building {@link NormalizedUsage} records, and what every parser reads from the request context. */
import { asObject, asString, field, tryParseJson, type JsonObject } from './json-fields';
import type { NormalizedUsage, UsageContext, UsageResult, UsageStream } from './types';

/** A complete record from the fields a parser found; absent fields are zero / null / not estimated. */
export function makeUsage(fields: Partial<NormalizedUsage>): NormalizedUsage {
  return {
    model: fields.model ?? null,
    inputTokens: fields.inputTokens ?? 0,
    cacheReadTokens: fields.cacheReadTokens ?? 0,
    cacheWrite5mTokens: fields.cacheWrite5mTokens ?? 0,
    cacheWrite1hTokens: fields.cacheWrite1hTokens ?? 0,
    outputTokens: fields.outputTokens ?? 0,
    reasoningTokens: fields.reasoningTokens ?? 0,
    serviceTier: fields.serviceTier ?? null,
    webSearchRequests: fields.webSearchRequests ?? 0,
    providerCostUsd: fields.providerCostUsd ?? null,
    estimated: fields.estimated ?? false,
  };
}

/** `{ ok: true, usage }`. */
export function ok(usage: NormalizedUsage): UsageResult {
  return { ok: true, usage };
}

/** `{ ok: false, reason }`. */
export function fail(reason: string): UsageResult {
  return { ok: false, reason };
}

/** The failure for an exception a parser raised: `<what>: <its message>`. */
export function failedWith(what: string, err: unknown): UsageResult {
  return fail(`${what}: ${err instanceof Error ? err.message : String(err)}`);
}

/** A stream whose result is known before its first byte (an unknown provider, a parser that failed to start). */
export function settledStream(result: UsageResult): UsageStream {
  return { push: () => undefined, end: () => result };
}

/** Why a response body that is not a JSON object has no usage. */
export const NOT_AN_OBJECT = 'response body is not a JSON object';

/**
 * The result for a JSON response body: the usage `read` finds in it, completed from the request; a body
 * that is not a JSON object, or in which `read` finds no usage, fails (with the provider's error if any).
 */
export function usageResultOf(
  body: unknown,
  ctx: UsageContext,
  read: (body: JsonObject) => NormalizedUsage | undefined,
): UsageResult {
  const obj = asObject(body);
  if (obj === undefined) return fail(NOT_AN_OBJECT);
  const usage = read(obj);
  if (usage === undefined) return fail(providerError(obj) ?? 'no usage in response');
  return ok(withRequestFallbacks(usage, ctx));
}

const MAX_MESSAGE = 160;

/**
 * The reason to report when a body (or stream frame) is a provider error, else undefined. Recognises
 * OpenAI/Gemini/Groq/OpenRouter `{"error": {...}}`, Anthropic `{"type": "error", "error": {...}}`,
 * OpenAI Responses stream `{"type": "error", "code", "message"}` and Ollama `{"error": "text"}`.
 * The message is cut short: it is for operators, and must not carry prompt text into logs.
 */
export function providerError(body: unknown): string | undefined {
  const obj = asObject(body);
  if (obj === undefined) return undefined;
  const err = obj.error;
  if (typeof err === 'string' && err.length > 0) return `provider error: ${clip(err)}`;
  const errObj = asObject(err);
  if (errObj !== undefined)
    return describeError(label(errObj.type) ?? label(errObj.status) ?? label(errObj.code), errObj.message);
  if (obj.type === 'error') return describeError(label(obj.code), obj.message);
  return undefined;
}

/** `provider error: <kind>: <message>`, either part left out when absent (`unknown` when both are). */
function describeError(kind: string | undefined, message: unknown): string {
  const text = asString(message);
  return `provider error: ${[kind, text === undefined ? undefined : clip(text)].filter(Boolean).join(': ') || 'unknown'}`;
}

function label(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return asString(value);
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/** The request body as a JSON value (parsing raw text or bytes once), or undefined. */
export function requestJson(ctx: UsageContext): unknown {
  const given = ctx.requestBody;
  // A thunk: the caller's one parse of the request, run only when a parser needs the body.
  const body = typeof given === 'function' ? (given as () => unknown)() : given;
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return body;
  const parsed = tryParseJson(body);
  return parsed.ok ? parsed.value : undefined;
}

const MODEL_IN_PATH = /\/(?:models|tunedModels)\/([^/:?#]+)/;

/**
 * The model the caller asked for: `model` in the request body, else the `/models/{model}` segment of the
 * URL (Gemini: `/v1beta/models/gemini-2.5-pro:generateContent` → `gemini-2.5-pro`).
 */
export function requestedModel(ctx: UsageContext, request: unknown = requestJson(ctx)): string | null {
  const fromBody = asString(field(request, 'model'));
  if (fromBody !== undefined) return fromBody;
  const match = ctx.url === undefined ? null : MODEL_IN_PATH.exec(ctx.url);
  if (match?.[1] === undefined) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

/** `service_tier` as requested in the body (OpenAI, Anthropic, Groq), for when the response reports none. */
export function requestedServiceTier(request: unknown): string | null {
  return asString(field(request, 'service_tier')) ?? null;
}

/**
 * Fills a record's missing model and service tier: from what the stream showed (`seenModel`,
 * `seenTier`), else from the request (`model` in the body or URL, `service_tier` in the body).
 * The request body is parsed only when something is missing.
 */
export function withRequestFallbacks(
  usage: NormalizedUsage,
  ctx: UsageContext,
  seenModel: string | null = null,
  seenTier: string | null = null,
): NormalizedUsage {
  if (usage.model !== null && usage.serviceTier !== null) return usage;
  const model = usage.model ?? seenModel;
  const tier = usage.serviceTier ?? seenTier;
  if (model !== null && tier !== null) return { ...usage, model, serviceTier: tier };
  const request = requestJson(ctx);
  return {
    ...usage,
    model: model ?? requestedModel(ctx, request),
    serviceTier: tier ?? requestedServiceTier(request),
  };
}
