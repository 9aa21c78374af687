/**
 * The cost of one call: `cost = prompt × input price + completion × output price`, extended exactly.
 *
 * With the usage conventions of `core/usage/types.ts` (input tokens INCLUDE cache reads and writes,
 * output tokens INCLUDE reasoning tokens):
 *
 *   uncached input = max(0, inputTokens − cacheRead − cacheWrite5m − cacheWrite1h)
 *   inputNanos      = uncached      × input price
 *   cacheReadNanos  = cacheRead     × cache-read price
 *   cacheWriteNanos = cacheWrite5m  × 5-minute write price + cacheWrite1h × 1-hour write price
 *   outputNanos     = outputTokens  × output price          (reasoning tokens included)
 *   toolFeesNanos   = webSearchRequests × per-search price  (flat: no tier or band)
 *
 * - The provider's own figure wins: when the call carries `providerCostUsd` (OpenRouter `usage.cost`),
 *   that amount is the cost (`PROVIDER_REPORTED`) and the formula's total is kept as `registryCostNanos`.
 * - Long context (the cliff): when the prompt (uncached + cached + written tokens) exceeds a band's
 *   threshold (Gemini 2.5 Pro and Claude Sonnet 4/4.5: 200,000), ALL tokens of the call, output
 *   included, are billed at that band's rates.
 * - The service-tier multiplier (`tiers.ts`) and then the organization's negotiated rates
 *   (`org-rates.ts`) scale every component.
 * - Each component is an exact rational number of nano-USD rounded half-up once; the total is their
 *   exact sum (`money.ts`). Token counts that are negative or not numbers count as 0; fractional counts
 *   (estimates) are rounded up.
 *
 * Pricing never throws: an unknown model is priced by FALLBACK_ECONOMICS (never $0 for a call with
 * tokens), invalid org rates are ignored and reported as `orgRate: 'invalid'`.
 */
import type { NormalizedUsage } from '../usage/types';
import { resolveApplicationProfile } from './bedrock-profiles';
import { applyPrice } from './cost-formula';
import { usdToNanos } from './money';
import { selectPeriodPrice } from './model-price';
import { compileOrgRates, orgRateDecision, type CompiledOrgRates, type OrgRates } from './org-rates';
import { getDefaultPriceRegistry, type CostSource, type PriceRegistry } from './registry';
import { normalizeServiceTier, type Rational, type ServiceTier } from './tiers';

/** The token counts pricing reads; a `NormalizedUsage` fits. */
export type PricingUsage = Pick<
  NormalizedUsage,
  | 'inputTokens'
  | 'cacheReadTokens'
  | 'cacheWrite5mTokens'
  | 'cacheWrite1hTokens'
  | 'outputTokens'
  | 'reasoningTokens'
> & {
  /** Server-side web searches of the call, priced per search (absent = 0). */
  readonly webSearchRequests?: number;
  /** Model as the provider reported it; wins over {@link CostInput.model}. */
  readonly model?: string | null;
  /** Service tier as the provider reported it; {@link CostInput.serviceTier} wins over it. */
  readonly serviceTier?: string | null;
};

/** One call to price. */
export interface CostInput {
  /** Spendguard provider id of the API that was called (`openai`, `anthropic`, `openrouter`, …). */
  readonly provider: string;
  readonly usage: PricingUsage;
  /** When the call was made (Date or epoch milliseconds): selects dated and time-of-day prices. */
  readonly at: Date | number;
  /** The requested model, used when the usage carries none. */
  readonly model?: string | null;
  /** The tier the caller knows applies (e.g. `batch` for a Batch API result); wins over the usage's. */
  readonly serviceTier?: string | null;
  /** The organization's negotiated rates, raw or compiled (compile once per organization for speed). */
  readonly orgRates?: OrgRates | CompiledOrgRates | null;
  /**
   * What the provider reported charging for the call, in USD (OpenRouter `usage.cost`). When it is a
   * finite non-negative number it IS the call's cost (`PROVIDER_REPORTED`), converted exactly from its
   * decimal form; the list price stays in {@link CostResult.registryCostNanos}.
   */
  readonly providerCostUsd?: number | null;
  /**
   * Price at the base rates whatever the prompt size: for token counts summed over many calls (a day of
   * CloudWatch metrics), whose per-call prompt sizes, and so any long-context band, are unknown.
   */
  readonly baseRatesOnly?: boolean;
}

/** The four components; `costNanos` is exactly their sum. */
export interface CostBreakdown {
  /** Uncached input tokens. */
  readonly inputNanos: number;
  readonly cacheReadNanos: number;
  /** 5-minute and 1-hour cache writes. */
  readonly cacheWriteNanos: number;
  /** Output tokens, reasoning included. */
  readonly outputNanos: number;
  /** Fees beyond tokens (web searches). */
  readonly toolFeesNanos: number;
}

/** How negotiated rates changed the price. */
export type OrgRateApplied = 'none' | 'multiplier' | 'override' | 'invalid';

/** The priced call. */
export interface CostResult {
  /**
   * The call's cost in integer nano-USD (1e-9 USD): the provider-reported amount when there is one,
   * else {@link registryCostNanos}. Use `nanosToUsd` only for display.
   */
  readonly costNanos: number;
  readonly costSource: CostSource;
  /** The price computed from rates (org rate, list or fallback): exactly Σ {@link breakdown}. */
  readonly registryCostNanos: number;
  readonly breakdown: CostBreakdown;
  /** Dataset model id (`gpt-4o`, `claude-sonnet-4-0`) or `fallback:<family>`. */
  readonly matchedModel: string;
  /** Provider whose price list priced the call (`anthropic` for `anthropic/…` on OpenRouter when OpenRouter has no own price). */
  readonly provider: string;
  readonly tier: ServiceTier;
  /** True when a long-context band applied. */
  readonly longContext: boolean;
  readonly orgRate: OrgRateApplied;
}

/** A provider-reported USD amount as exact nanos, or undefined when absent or unusable. */
function reportedNanos(usd: number | null | undefined): number | undefined {
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) return undefined;
  try {
    return usdToNanos(usd);
  } catch {
    return undefined; // above ≈ $9 million for one call: not a real report
  }
}

const compiledOrgRates = new WeakMap<OrgRates, CompiledOrgRates | null>();

function compiled(rates: OrgRates | CompiledOrgRates): CompiledOrgRates | null {
  if ('kind' in rates && rates.kind === 'compiled-org-rates') return rates as CompiledOrgRates;
  const raw = rates as OrgRates;
  let result = compiledOrgRates.get(raw);
  if (result === undefined) {
    try {
      result = compileOrgRates(raw);
    } catch {
      result = null;
    }
    compiledOrgRates.set(raw, result);
  }
  return result;
}

/**
 * Prices one call.
 *
 * @example
 * // 1,000,000 input tokens of gpt-4o = $2.50
 * calculateCost({
 *   provider: 'openai',
 *   usage: { model: 'gpt-4o-2024-08-06', inputTokens: 1_000_000, cacheReadTokens: 0, cacheWrite5mTokens: 0,
 *            cacheWrite1hTokens: 0, outputTokens: 0, reasoningTokens: 0 },
 *   at: Date.UTC(2025, 9, 1),
 * }).costNanos === 2_500_000_000;
 * @example
 * // claude-sonnet-4: 10,000 input tokens of which 8,000 read from cache and 1,000 written for 1 hour,
 * // plus 500 output: 1,000 × $3 + 8,000 × $0.30 + 1,000 × $6 + 500 × $15 per MTok
 * // = 3,000,000 + 2,400,000 + 6,000,000 + 7,500,000 nanos = 18,900,000 nanos = $0.0189
 */
export function calculateCost(
  input: CostInput,
  registry: PriceRegistry = getDefaultPriceRegistry(),
): CostResult {
  const usage = input.usage;
  const rates =
    input.orgRates !== undefined && input.orgRates !== null ? compiled(input.orgRates) : undefined;
  let model = usage.model ?? input.model ?? null;
  // An application inference profile names no model: the organization's mapping says which it copies.
  if (model !== null && rates) model = resolveApplicationProfile(model, rates.bedrockProfiles);
  const resolution = registry.resolve(input.provider, model);
  const atMs = typeof input.at === 'number' ? input.at : input.at.getTime();
  let price = resolution.fixedPrice ?? selectPeriodPrice(resolution.periods, atMs);
  const tier = normalizeServiceTier(input.serviceTier ?? usage.serviceTier);
  let multiplier: Rational = resolution.tiers[tier];

  let orgRate: OrgRateApplied = 'none';
  if (rates !== undefined) {
    if (rates === null) orgRate = 'invalid';
    else {
      const decision = orgRateDecision(rates, resolution);
      if (decision.kind === 'override') {
        price = decision.price;
        orgRate = 'override';
      } else if (decision.kind === 'multiplier') {
        multiplier = decision.tiers[tier];
        orgRate = 'multiplier';
      }
    }
  }

  if (input.baseRatesOnly === true) price = { ...price, longContext: [] };
  const f = applyPrice(price, multiplier, usage);
  const reported = reportedNanos(input.providerCostUsd);
  const rated: CostSource = orgRate === 'override' ? 'ORG_RATE' : resolution.costSource;

  return {
    costNanos: reported ?? f.totalNanos,
    costSource: reported === undefined ? rated : 'PROVIDER_REPORTED',
    registryCostNanos: f.totalNanos,
    breakdown: {
      inputNanos: f.inputNanos,
      cacheReadNanos: f.cacheReadNanos,
      cacheWriteNanos: f.cacheWriteNanos,
      outputNanos: f.outputNanos,
      toolFeesNanos: f.toolFeesNanos,
    },
    matchedModel:
      orgRate === 'override' && resolution.costSource === 'FALLBACK_ECONOMICS'
        ? resolution.canonicalModel
        : resolution.matchedModel,
    provider: resolution.provider,
    tier,
    longContext: f.longContext,
    orgRate,
  };
}
