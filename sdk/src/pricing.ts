/**
 * Client-side cost estimates. The full price dataset (genai-prices, ~1 MB) cannot ship in a 20 KB
 * bundle, so the SDK carries:
 *
 * 1. PROVIDER_REGISTRY for the most used models: `prices.generated.ts`, a compact table generated from
 *    core/pricing's registry by `sdk/scripts/gen-prices.ts` (never edited by hand);
 * 2. FALLBACK_ECONOMICS for every other model: core/pricing's family heuristics (`fallback.ts`, imported
 *    as is), which over- rather than under-estimate.
 *
 * The cost formula is core/pricing's own (`cost-formula.ts`, which does not pull in the registry);
 * `sdk/test/pricing.test.ts` checks both agree to the nano-dollar on every table model. The server re-prices every event from the full registry (design decision 9):
 * the client figure only feeds the local budget and the discrepancy report.
 */
import { fallbackFamilyFor } from '../../core/pricing/fallback';
import { applyPrice } from '../../core/pricing/cost-formula';
import {
  modelPriceFromUsd,
  selectPeriodPrice,
  type ModelPrice,
  type PriceConstraint,
  type PricePeriod,
  type UsdRates,
} from '../../core/pricing/model-price';
import { normalizeModelName } from '../../core/pricing/normalize-model';
import { spendguardProviderId } from '../../core/pricing/provider-ids';
import { normalizeServiceTier, tierMultipliersFor } from '../../core/pricing/tiers';
import type { NormalizedUsage } from '../../core/usage/types';
import { PRICE_ROWS, type CompactPeriod, type CompactRates } from './prices.generated';

/** Where a client estimate came from (spec 1.3). */
export type CostSource = 'PROVIDER_REGISTRY' | 'FALLBACK_ECONOMICS';

/** A client estimate. */
export interface ClientCost {
  /** Integer nano-USD. */
  readonly costNanos: number;
  readonly costSource: CostSource;
  /** Dataset model id, or `fallback:<family>`. */
  readonly matchedModel: string;
}

interface TableEntry {
  readonly matchedModel: string;
  readonly periods: readonly PricePeriod[];
}

let table: Map<string, TableEntry> | null = null;

/** Names generated rates (USD per MTok; trailing defaults left out, which modelPriceFromUsd fills in). */
function usdRates(r: CompactRates): UsdRates {
  const [input = 0, output = 0, cacheRead, cacheWrite5m, cacheWrite1h, reasoning] = r;
  return { input, output, cacheRead, cacheWrite5m, cacheWrite1h, reasoning };
}

function period(p: CompactPeriod): PricePeriod {
  const [constraint, base, bands] = p;
  let c: PriceConstraint | null = null;
  if (constraint !== null) {
    c =
      constraint[0] === 's'
        ? { kind: 'since', startMs: constraint[1] }
        : { kind: 'time-of-day', startSecond: constraint[1], endSecond: constraint[2] ?? 0 };
  }
  const price = modelPriceFromUsd(
    usdRates(base),
    (bands ?? []).map(([above, r]) => ({ aboveInputTokens: above, rates: usdRates(r) })),
  );
  return { constraint: c, price };
}

/** The table, decoded on first use (keeps module evaluation free of work). */
function getTable(): Map<string, TableEntry> {
  if (table !== null) return table;
  const t = new Map<string, TableEntry>();
  for (const [provider, name, matched, periods] of PRICE_ROWS) {
    t.set(`${provider}\u0000${name}`, {
      matchedModel: matched === 0 ? name : matched,
      periods: periods.map(period),
    });
  }
  table = t;
  return t;
}

/** The table entry for a (provider, model) pair: the name's normalized candidates, first hit wins. */
function lookup(provider: string, model: string): TableEntry | undefined {
  const t = getTable();
  const exact = t.get(`${provider}\u0000${model.trim().toLowerCase()}`);
  if (exact !== undefined) return exact;
  for (const candidate of normalizeModelName(model).candidates) {
    const list =
      candidate.list.kind === 'requested' ? provider : spendguardProviderId(candidate.list.providerId);
    const hit = t.get(`${list}\u0000${candidate.model}`);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/**
 * Estimates the cost of one call, exactly as core/pricing's `calculateCost` would with the same
 * price (no negotiated rates). Never throws.
 *
 * @example
 * // 1,000 prompt + 500 completion tokens of gpt-4o-mini ($0.15 / $0.60 per MTok)
 * // = 150,000 + 300,000 nanos = $0.00045
 * estimateCost('openai', 'gpt-4o-mini', usage, Date.now()).costNanos === 450_000;
 */
export function estimateCost(
  provider: string,
  model: string,
  usage: NormalizedUsage,
  atMs: number,
): ClientCost {
  const requested = provider.trim().toLowerCase();
  const entry = model.length > 0 ? lookup(requested, model) : undefined;
  let price: ModelPrice;
  let matchedModel: string;
  let costSource: CostSource;
  if (entry !== undefined) {
    price = selectPeriodPrice(entry.periods, atMs);
    matchedModel = entry.matchedModel;
    costSource = 'PROVIDER_REGISTRY';
  } else {
    const family = fallbackFamilyFor(normalizeModelName(model).familyName, requested);
    price = family.price;
    matchedModel = `fallback:${family.id}`;
    costSource = 'FALLBACK_ECONOMICS';
  }
  const multiplier = tierMultipliersFor(requested, matchedModel)[normalizeServiceTier(usage.serviceTier)];
  const { totalNanos } = applyPrice(price, multiplier, usage);
  return { costNanos: totalNanos, costSource, matchedModel };
}

/** Number of models in the bundled table (for docs and tests). */
export function priceTableSize(): number {
  return PRICE_ROWS.length;
}
