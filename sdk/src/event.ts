/**
 * Building the client telemetry event (spec 2.1) of one call: token counts and metadata only — never
 * prompt or completion text. The request body is read only to compute its fingerprint (a SHA-256 of
 * its canonical model + messages + tools, see core/fingerprint) and, for streams without usage, a
 * token estimate; neither keeps any text.
 */
import { canonicalRequest } from '../../core/fingerprint/canonical-request';
import { geminiModelFromPath } from '../../core/fingerprint/flavors';
import { requestFlavorOf } from '../../core/providers/catalog';
import type { ProviderEntry } from '../../core/providers/types';
import { estimateRequestTokens, familyOfModel } from '../../core/usage/estimate';
import { makeUsage, requestedModel, requestJson } from '../../core/usage/normalize';
import type { NormalizedUsage, UsageContext, UsageResult } from '../../core/usage/types';
import type { Labels } from './options';
import { estimateCost, type ClientCost } from './pricing';
import { sha256Hex, uuidV4 } from './runtime';
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
}

/** The usage context the core parsers get for a call. */
export function usageContextOf(call: CallFacts): UsageContext {
  return call.body === undefined ? { url: call.url } : { url: call.url, requestBody: call.body };
}

/**
 * The usage to record: the parsed one; for a successful call whose response carried none, an estimate
 * of the prompt from the request (marked estimated); for failed calls, zero tokens.
 */
export function usageToRecord(call: CallFacts, result: UsageResult | null, statusCode: number): NormalizedUsage {
  if (result?.ok === true) return result.usage;
  const ctx = usageContextOf(call);
  const model = safe(() => requestedModel(ctx), null);
  if (statusCode < 200 || statusCode >= 300 || call.body === undefined) return makeUsage({ model });
  const flavor = requestFlavorOf(call.provider, call.url);
  const inputTokens = safe(
    () => estimateRequestTokens(flavor, requestJson(ctx), familyOfModel(model, call.provider.id === 'anthropic' ? 'anthropic' : 'other'), undefined),
    0,
  );
  return makeUsage({ model, inputTokens, estimated: inputTokens > 0 });
}

/** `sha256:<hex>` of the request's canonical form, or undefined (no JSON body, no WebCrypto). */
export async function fingerprintOf(call: CallFacts): Promise<string | undefined> {
  if (call.body === undefined) return undefined;
  const flavor = requestFlavorOf(call.provider, call.url);
  const model = flavor === 'gemini' ? (geminiModelFromPath(call.path) ?? undefined) : undefined;
  const canonical = canonicalRequest(flavor, call.body, model === undefined ? undefined : { model });
  if (canonical === null) return undefined;
  const hex = await sha256Hex(canonical);
  return hex === null ? undefined : `sha256:${hex}`;
}

/** Inputs of {@link buildCallEvent}. */
export interface CallOutcome {
  readonly usage: NormalizedUsage;
  readonly cost: ClientCost;
  readonly statusCode: number;
  readonly latencyMs: number;
  readonly stream: boolean;
  readonly fingerprint: string | undefined;
}

/** Prices a usage record at the call's time. */
export function costOf(call: CallFacts, usage: NormalizedUsage): ClientCost {
  return estimateCost(call.provider.id, usage.model ?? '', usage, call.startedAt);
}

/** The event of one call (spec 2.1 fields first, then the optional ones that apply). */
export function buildCallEvent(call: CallFacts, outcome: CallOutcome): ClientEvent {
  const { usage, cost, labels } = { ...outcome, labels: call.labels };
  const event: ClientEvent = {
    id: uuidV4(),
    timestamp: new Date(call.startedAt).toISOString(),
    provider: call.provider.id,
    model: usage.model ?? 'unknown',
    promptTokens: usage.inputTokens,
    completionTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    estimatedCostUsd: cost.costNanos / 1e9,
    costSource: cost.costSource,
    latencyMs: Math.max(0, Math.round(outcome.latencyMs)),
    statusCode: outcome.statusCode,
    projectId: labels.projectId,
    environment: labels.environment,
    kind: 'call',
    endpoint: call.path,
    stream: outcome.stream,
    estimated: usage.estimated,
  };
  if (usage.cacheReadTokens > 0) event.cacheReadTokens = usage.cacheReadTokens;
  if (usage.cacheWrite5mTokens > 0) event.cacheWrite5mTokens = usage.cacheWrite5mTokens;
  if (usage.cacheWrite1hTokens > 0) event.cacheWrite1hTokens = usage.cacheWrite1hTokens;
  if (usage.reasoningTokens > 0) event.reasoningTokens = usage.reasoningTokens;
  if (usage.serviceTier !== null) event.serviceTier = usage.serviceTier;
  if (usage.providerCostUsd !== null && usage.providerCostUsd >= 0) event.providerCostUsd = usage.providerCostUsd;
  if (outcome.fingerprint !== undefined) event.fingerprint = outcome.fingerprint;
  if (labels.sessionId !== undefined) event.sessionId = labels.sessionId;
  if (labels.featureId !== undefined) event.featureId = labels.featureId;
  return event;
}

/** A `budget_warning` event (spec 6): the warn action's entry in the Forensic Ledger. */
export function buildBudgetWarningEvent(
  provider: string,
  model: string,
  labels: Labels,
  nowMs: number,
  breach: { period: 'daily' | 'monthly'; limitNanos: number; spentNanos: number },
): ClientEvent {
  const event: ClientEvent = {
    id: uuidV4(),
    timestamp: new Date(nowMs).toISOString(),
    kind: 'budget_warning',
    provider,
    model,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    estimatedCostUsd: 0,
    costSource: 'PROVIDER_REGISTRY',
    latencyMs: 0,
    statusCode: 0,
    projectId: labels.projectId,
    environment: labels.environment,
    budget: {
      period: breach.period,
      limitUsd: breach.limitNanos / 1e9,
      spentUsd: breach.spentNanos / 1e9,
    },
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
