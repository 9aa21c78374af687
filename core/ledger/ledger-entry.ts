import type { TelemetryEvent } from '../events/telemetry-event';
import type { CompiledOrgRates, CostSource, OrgRates, PriceRegistry } from '../pricing';
import { costOfEvent } from './event-cost';

/** One row of the Forensic Ledger: token counts and metadata of one call, never prompts or completions. */
export interface LedgerEntry {
  eventId: string;
  /** ISO 8601 UTC with milliseconds. */
  ts: string;
  source: TelemetryEvent['source'];
  kind: TelemetryEvent['kind'];
  /** Public id of the API key that sent the event. */
  keyId: string;
  provider: string;
  model: string;
  /** The model the request named, when the sender said (null or absent: unknown, or entries before the field). */
  requestedModel?: string | null;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** Server-side web searches billed per request (Anthropic); priced in {@link toolFeesNanos}. */
  webSearchRequests: number;
  /**
   * The call's cost in integer nano-USD (0 for a budget warning, which is not a call): what the provider
   * reported charging when it did, else {@link registryCostNanos}. Aggregates and guardrails use it.
   */
  costNanos: number;
  costSource: CostSource;
  /**
   * The price computed from rates (org rate, list price or fallback), tool fees included. Equal to
   * costNanos unless the provider reported its own figure: then the difference is the registry's error.
   */
  registryCostNanos: number;
  /** The fee component beyond tokens (web searches × per-search price), part of registryCostNanos. */
  toolFeesNanos: number;
  /** Dataset model that priced it, `fallback:<family>`, or the model's own name under an org rate. */
  pricedAs: string;
  /** The client's own figure, kept only to report discrepancy (design decision 9). */
  clientCostUsd: number | null;
  providerCostUsd: number | null;
  estimated: boolean;
  latencyMs: number | null;
  statusCode: number | null;
  projectId: string | null;
  environment: string | null;
  featureId: string | null;
  sessionId: string | null;
  endpoint: string | null;
  stream: boolean | null;
  verified: boolean;
  /**
   * The request's fingerprint (core/fingerprint), so repeated prompts of a session can be shown;
   * null when the sender computed none (and on entries stored before the field existed).
   */
  fingerprint: string | null;
}

/**
 * Prices a telemetry event (design decision 9: the server prices, the client estimates; the provider's
 * own reported charge wins, see `event-cost.ts`).
 */
export function toLedgerEntry(
  e: TelemetryEvent,
  keyId: string,
  registry: PriceRegistry,
  orgRates: OrgRates | CompiledOrgRates | null = null,
): LedgerEntry {
  const cost = e.kind === 'call' ? costOfEvent(e, registry, orgRates) : undefined;
  return {
    eventId: e.eventId,
    ts: new Date(e.ts).toISOString(),
    source: e.source,
    kind: e.kind,
    keyId,
    provider: e.provider,
    model: e.model,
    requestedModel: e.requestedModel ?? null,
    inputTokens: e.inputTokens,
    cacheReadTokens: e.cacheReadTokens,
    cacheWrite5mTokens: e.cacheWrite5mTokens,
    cacheWrite1hTokens: e.cacheWrite1hTokens,
    outputTokens: e.outputTokens,
    reasoningTokens: e.reasoningTokens,
    webSearchRequests: e.webSearchRequests ?? 0,
    costNanos: cost?.costNanos ?? 0,
    costSource: cost?.costSource ?? 'PROVIDER_REGISTRY',
    registryCostNanos: cost?.registryCostNanos ?? 0,
    toolFeesNanos: cost?.breakdown.toolFeesNanos ?? 0,
    pricedAs: cost?.matchedModel ?? 'none',
    clientCostUsd: e.clientCostUsd,
    providerCostUsd: e.providerCostUsd,
    estimated: e.estimated,
    latencyMs: e.latencyMs,
    statusCode: e.statusCode,
    projectId: e.projectId,
    environment: e.environment,
    featureId: e.featureId,
    sessionId: e.sessionId,
    endpoint: e.endpoint,
    stream: e.stream,
    verified: e.verified,
    fingerprint: e.fingerprint,
  };
}
