/**
 * Building the client telemetry event (spec 2.1) of one call: token counts and metadata only — never
 * prompt or completion text. The request body is read only to compute its fingerprint (a SHA-256 of
 * its canonical model + messages + tools, see core/fingerprint) and, for streams without usage, a
 * token estimate; neither keeps any text.
 */
import { geminiModelFromPath } from '../../core/fingerprint/flavors';
import { requestFlavorOf } from '../../core/providers/catalog';
import type { ProviderEntry } from '../../core/providers/types';
import { estimateRequestTokens, familyOfModel } from '../../core/usage/estimate';
import { makeUsage, requestedModel, requestJson } from '../../core/usage/normalize';
import type { NormalizedUsage, UsageContext, UsageResult } from '../../core/usage/types';
import type { Labels } from './options';
import { estimateCost, type ClientCost } from './pricing';
import { fingerprintOfValue, parseRequestBody, type Fingerprint } from './fingerprint';
import { uuidV4 } from './runtime';
import type { ClientEvent } from './types';

/** What the interceptor knows about one call. */
export interface CallFacts {
  readonly provider: ProviderEntry;
  /** Full request URL (kept in memory only; the event carries the path). */
  readonly url: string;
  /** Request path without query string (a Gemini key may sit in the query). */
  readonly path: string;
  /** Request body text or bytes, when it was a string or binary. */
  readonly body: string | Uint8Array | undefined;
  readonly labels: Labels;
  /** Epoch ms at the call. */
  readonly startedAt: number;
  /** The body parsed as JSON, once, when first needed ({@link requestValue}); `UNPARSED` until then. */
  parsed?: unknown;
}

/** `CallFacts.parsed` before the body is parsed. */
export const UNPARSED: unique symbol = Symbol('unparsed');

/** The request body parsed as JSON (undefined when it is not JSON): parsed at most once per call. */
export function requestValue(call: CallFacts): unknown {
  if (call.parsed === UNPARSED) call.parsed = parseRequestBody(call.body);
  return call.parsed;
}

/**
 * The usage context the core parsers get for a call: its `requestBody` is the parsed body, read only
 * if a parser needs it (a response without model or tier, a stream without usage).
 */
class CallContext implements UsageContext {
  readonly url: string;
  readonly #call: CallFacts;
  constructor(call: CallFacts) {
    this.#call = call;
    this.url = call.url;
  }
  get requestBody(): unknown {
    return requestValue(this.#call);
  }
}

/** The usage context of a call (see {@link CallContext}). */
export function usageContextOf(call: CallFacts): UsageContext {
  return new CallContext(call);
}

/**
 * The usage to record: the parsed one; for a successful call whose response carried none, an estimate
 * of the prompt from the request (marked estimated); for failed calls, zero tokens.
 */
export function usageToRecord(
  call: CallFacts,
  result: UsageResult | null,
  statusCode: number,
): NormalizedUsage {
  if (result?.ok === true) return result.usage;
  const ctx = usageContextOf(call);
  const model = safe(() => requestedModel(ctx), null);
  if (statusCode < 200 || statusCode >= 300 || call.body === undefined) return makeUsage({ model });
  const flavor = requestFlavorOf(call.provider, call.url);
  const inputTokens = safe(
    () =>
      estimateRequestTokens(
        flavor,
        requestJson(ctx),
        familyOfModel(model, call.provider.id === 'anthropic' ? 'anthropic' : 'other'),
        undefined,
      ),
    0,
  );
  return makeUsage({ model, inputTokens, estimated: inputTokens > 0 });
}

/** The {@link Fingerprint} of the request's canonical form (undefined: no JSON body). */
export function fingerprintOf(call: CallFacts): Fingerprint {
  if (call.body === undefined) return undefined;
  const flavor = requestFlavorOf(call.provider, call.url);
  const model =
    flavor === 'gemini'
      ? (geminiModelFromPath(call.path) ?? undefined)
      : (call.provider.modelFromPath?.(call.path) ?? undefined);
  return fingerprintOfValue(flavor, requestValue(call), model);
}

/** Inputs of {@link buildCallEvent}. */
export interface CallOutcome {
  readonly usage: NormalizedUsage;
  readonly cost: ClientCost;
  readonly statusCode: number;
  readonly latencyMs: number;
  readonly stream: boolean;
  readonly fingerprint: string | undefined;
  /** The budget lease reported this call's cost (it was reserved on a capped slice). */
  readonly leased?: boolean;
}

/** Prices a usage record at the call's time. */
export function costOf(call: CallFacts, usage: NormalizedUsage): ClientCost {
  return estimateCost(call.provider.id, usage.model ?? '', usage, call.startedAt);
}

/**
 * Bounds of the wire schema (core/schemas/common.ts `MAX_CALL_TOKENS`, copied because that module pulls in
 * zod; sdk/test/event-bounds.test.ts keeps them equal): one out-of-range field would fail the whole batch.
 */
export const MAX_TOKENS = 20_000_000;
const MAX_EVENT_USD = 1_000_000;
const MAX_LATENCY_MS = 86_400_000;
// eslint-disable-next-line no-control-regex -- control characters are what must go
const CONTROL_CHARS = /[\x00-\x1f\x7f]/g;

/** A whole token count within the schema's range. */
function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.min(MAX_TOKENS, Math.round(n)) : 0;
}

/** A printable label of at most `max` characters, or undefined when nothing is left. */
export function cleanLabel(value: string | null | undefined, max = 256): string | undefined {
  if (typeof value !== 'string') return undefined;
  const cleaned = value.replace(CONTROL_CHARS, '').slice(0, max);
  return cleaned.length > 0 ? cleaned : undefined;
}

/** The event of one call (spec 2.1 fields first, then the optional ones that apply). */
export function buildCallEvent(call: CallFacts, outcome: CallOutcome): ClientEvent {
  const { usage, cost } = outcome;
  const labels = call.labels;
  const promptTokens = count(usage.inputTokens);
  // Ingest refuses prompt + completion above the bound too: clamp the completion to what is left.
  const completionTokens = Math.min(count(usage.outputTokens), MAX_TOKENS - promptTokens);
  const event: ClientEvent = {
    id: uuidV4(),
    timestamp: new Date(call.startedAt).toISOString(),
    provider: call.provider.id,
    model: cleanLabel(usage.model) ?? 'unknown',
    promptTokens,
    completionTokens,
    totalTokens: Math.min(MAX_TOKENS, promptTokens + completionTokens),
    estimatedCostUsd: Math.min(MAX_EVENT_USD, cost.costNanos / 1e9),
    costSource: cost.costSource,
    latencyMs: Math.min(MAX_LATENCY_MS, Math.max(0, Math.round(outcome.latencyMs))),
    statusCode: outcome.statusCode >= 0 && outcome.statusCode <= 999 ? outcome.statusCode : 0,
    projectId: labels.projectId,
    environment: labels.environment,
    kind: 'call',
    endpoint: cleanLabel(call.path, 1024) ?? '/',
    stream: outcome.stream,
    estimated: usage.estimated,
  };
  if (usage.cacheReadTokens > 0) event.cacheReadTokens = count(usage.cacheReadTokens);
  if (usage.cacheWrite5mTokens > 0) event.cacheWrite5mTokens = count(usage.cacheWrite5mTokens);
  if (usage.cacheWrite1hTokens > 0) event.cacheWrite1hTokens = count(usage.cacheWrite1hTokens);
  if (usage.reasoningTokens > 0) event.reasoningTokens = count(usage.reasoningTokens);
  // What the provider reported charging (OpenRouter usage.cost) and per-request tool fees: the server
  // prices the call from them (costSource PROVIDER_REPORTED, toolFeesNanos).
  if (usage.providerCostUsd !== null && usage.providerCostUsd >= 0)
    event.providerCostUsd = Math.min(MAX_EVENT_USD, usage.providerCostUsd);
  if (usage.webSearchRequests > 0) event.webSearchRequests = count(usage.webSearchRequests);
  const tier = cleanLabel(usage.serviceTier, 64);
  if (tier !== undefined) event.serviceTier = tier;
  if (outcome.fingerprint !== undefined) event.fingerprint = outcome.fingerprint;
  if (labels.sessionId !== undefined) event.sessionId = labels.sessionId;
  if (labels.featureId !== undefined) event.featureId = labels.featureId;
  if (outcome.leased === true) event.leased = true;
  // The model the request named (OpenTelemetry's gen_ai.request.model): `model` is the one that answered.
  const requested = cleanLabel(safe(() => requestedModel(usageContextOf(call)), null));
  if (requested !== undefined) event.requestedModel = requested;
  return event;
}

/** A `budget_warning` event (spec 6): the warn action's entry in the Forensic Ledger. */
export function buildBudgetWarningEvent(
  provider: string,
  model: string,
  labels: Labels,
  nowMs: number,
): ClientEvent {
  const event: ClientEvent = {
    id: uuidV4(),
    timestamp: new Date(nowMs).toISOString(),
    kind: 'budget_warning',
    provider,
    model: cleanLabel(model) ?? 'unknown',
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    estimatedCostUsd: 0,
    costSource: 'PROVIDER_REGISTRY',
    latencyMs: 0,
    statusCode: 0,
    projectId: labels.projectId,
    environment: labels.environment,
  };
  if (labels.sessionId !== undefined) event.sessionId = labels.sessionId;
  if (labels.featureId !== undefined) event.featureId = labels.featureId;
  return event;
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
