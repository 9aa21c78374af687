/**
 * The one place that decides what a telemetry event's call cost: the Forensic Ledger, the spend
 * aggregates and the guardrails all price through {@link costOfEvent}, so they always agree.
 *
 * Order (first that applies): the amount the provider reported charging (`PROVIDER_REPORTED`); the
 * organization's own rate for the model or endpoint family (`ORG_RATE`); the published list price
 * (`PROVIDER_REGISTRY`, negotiated multipliers applied); the model-family heuristic
 * (`FALLBACK_ECONOMICS`). The rate-based price is always computed too and kept as `registryCostNanos`.
 */
import type { TelemetryEvent } from '../events/telemetry-event';
import {
  calculateCost,
  type CompiledOrgRates,
  type CostResult,
  type OrgRates,
  type PriceRegistry,
} from '../pricing';

/** Prices the call of an event (a `budget_warning` is not a call: callers skip it). */
export function costOfEvent(
  e: TelemetryEvent,
  registry: PriceRegistry,
  orgRates: OrgRates | CompiledOrgRates | null = null,
): CostResult {
  return calculateCost(
    {
      provider: e.provider,
      model: e.model,
      serviceTier: e.serviceTier,
      at: e.ts,
      orgRates,
      providerCostUsd: e.providerCostUsd,
      usage: {
        model: e.model,
        inputTokens: e.inputTokens,
        cacheReadTokens: e.cacheReadTokens,
        cacheWrite5mTokens: e.cacheWrite5mTokens,
        cacheWrite1hTokens: e.cacheWrite1hTokens,
        outputTokens: e.outputTokens,
        reasoningTokens: e.reasoningTokens,
        webSearchRequests: e.webSearchRequests ?? 0,
      },
    },
    registry,
  );
}
