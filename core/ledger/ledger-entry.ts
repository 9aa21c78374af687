import type { TelemetryEvent } from '../events/telemetry-event';
import { calculateCost, type CostSource, type PriceRegistry } from '../pricing';

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
  inputTokens: number;
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  /** Server-side price in integer nano-USD (0 for a budget warning, which is not a call). */
  costNanos: number;
  costSource: CostSource;
  /** Dataset model that priced it, or `fallback:<family>`. */
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

/** Prices a telemetry event from the registry (design decision 9: server prices, client estimates). */
export function toLedgerEntry(e: TelemetryEvent, keyId: string, registry: PriceRegistry): LedgerEntry {
  const isCall = e.kind === 'call';
  const cost = isCall
    ? calculateCost(
        {
          provider: e.provider,
          model: e.model,
          serviceTier: e.serviceTier,
          at: e.ts,
          usage: {
            model: e.model,
            inputTokens: e.inputTokens,
            cacheReadTokens: e.cacheReadTokens,
            cacheWrite5mTokens: e.cacheWrite5mTokens,
            cacheWrite1hTokens: e.cacheWrite1hTokens,
            outputTokens: e.outputTokens,
            reasoningTokens: e.reasoningTokens,
          },
        },
        registry,
      )
    : undefined;
  return {
    eventId: e.eventId,
    ts: new Date(e.ts).toISOString(),
    source: e.source,
    kind: e.kind,
    keyId,
    provider: e.provider,
    model: e.model,
    inputTokens: e.inputTokens,
    cacheReadTokens: e.cacheReadTokens,
    cacheWrite5mTokens: e.cacheWrite5mTokens,
    cacheWrite1hTokens: e.cacheWrite1hTokens,
    outputTokens: e.outputTokens,
    reasoningTokens: e.reasoningTokens,
    costNanos: cost?.costNanos ?? 0,
    costSource: cost?.costSource ?? 'PROVIDER_REGISTRY',
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
