/**
 * core/pricing: the two-tier cost engine (SPEC §1.3).
 *
 * - PROVIDER_REGISTRY: published per-token prices (pydantic/genai-prices data, bundled or a weekly
 *   snapshot, plus `supplements.ts`), compiled once into integer pico-USD per token and resolved per
 *   (provider, model) through a cache.
 * - FALLBACK_ECONOMICS: conservative model-family prices for unknown models; never $0.
 *
 * Money is exact: costs are integer nano-USD, rounded half-up once per component.
 *
 * @example
 * import { calculateCost, nanosToUsd } from '../pricing';
 * // 1,000,000 input tokens of gpt-4o = $2.50
 * const { costNanos, costSource } = calculateCost({
 *   provider: 'openai',
 *   usage: { model: 'gpt-4o', inputTokens: 1_000_000, cacheReadTokens: 0, cacheWrite5mTokens: 0,
 *            cacheWrite1hTokens: 0, outputTokens: 0, reasoningTokens: 0 },
 *   at: new Date('2025-10-01T00:00:00Z'),
 * });
 * // costNanos === 2_500_000_000, nanosToUsd(costNanos) === 2.5, costSource === 'PROVIDER_REGISTRY'
 *
 * See docs/pricing.md for sources, normalization, tiers, rounding, the premium rule and the refresh.
 */
export { listPricing, type CallPricing } from './call-pricing';
export {
  calculateCost,
  type CostBreakdown,
  type CostInput,
  type CostResult,
  type OrgRateApplied,
  type PricingUsage,
} from './cost';
export { MoneyRangeError, OrgRatesError, PriceDataError, PricingError } from './errors';
export {
  CATCH_ALL_FAMILY,
  FALLBACK_FAMILIES,
  fallbackFamilyFor,
  parameterBillions,
  type FallbackFamily,
  type FallbackFamilyKind,
} from './fallback';
export {
  ANTHROPIC_CACHE_RULE,
  perRequestNanos,
  type LongContextBand,
  type ModelPrice,
  type PriceConstraint,
  type PricePeriod,
  type TokenRates,
} from './model-price';
export {
  formatNanosAsUsd,
  NANOS_PER_USD,
  nanosToUsd,
  picosToUsdPerMTok,
  PICOS_PER_TOKEN_PER_USD_PER_MTOK,
  usdPerMTokToPicos,
  usdToNanos,
} from './money';
export {
  MAX_MODEL_NAME_LENGTH,
  normalizeModelName,
  type LookupCandidate,
  type NormalizedModelName,
} from './normalize-model';
export {
  compileOrgRates,
  MAX_MODEL_RATES,
  MAX_PROVIDER_RATES,
  orgRatesSchema,
  storedOrgRatesSchema,
  type CompiledOrgRates,
  type NegotiatedModelRate,
  type OrgRates,
} from './org-rates';
export {
  isPremiumModel,
  isPremiumResolution,
  listOutputPicos,
  listPremiumModels,
  PREMIUM_OUTPUT_USD_PER_MTOK,
  type PremiumOptions,
} from './premium';
export {
  createPriceRegistry,
  getDefaultPriceRegistry,
  loadPriceRegistry,
  type CostSource,
  type ListCostSource,
  type LoadedPriceRegistry,
  type PriceRegistry,
  type PriceRegistryOptions,
  type PriceResolution,
  type RegistryModel,
} from './registry';
export {
  MIN_SNAPSHOT_MODELS,
  parsePriceSnapshot,
  priceSnapshotSchema,
  REQUIRED_SNAPSHOT_PROVIDERS,
  type PriceSnapshotParseResult,
  type ProviderData,
} from './snapshot-schema';
export { BUNDLED_DATA_VERSION, BUNDLED_PROVIDER_IDS } from './bundled-data';
export { AGGREGATOR_VENDORS, completeFromVendor, fillAggregatorsFromVendors } from './aggregator-fill';
export {
  normalizeServiceTier,
  OPENAI_PRIORITY_MULTIPLIERS,
  tierMultipliersFor,
  type Rational,
  type ServiceTier,
  type TierMultipliers,
} from './tiers';
