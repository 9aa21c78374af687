/**
 * Premium models, for guardrail layer 5 (Premium Model Concentration: more than 90 % of spend on the
 * most expensive models sets the kill flag).
 *
 * Rule: a model is premium when its standard list price for OUTPUT tokens is at least
 * **$25 per million tokens** ({@link PREMIUM_OUTPUT_USD_PER_MTOK}).
 *
 * Why output, and why $25: output tokens dominate agent spend and separate the price classes best.
 * In the bundled data (non-deprecated models of the ten Spendguard providers) $25/MTok output is about
 * the 93rd percentile: it takes in every flagship/"pro" line (Claude Opus at $25–75, o1 and o3-pro,
 * GPT-5 pro, GPT-4/4.5, gpt-5.5 at $30) and none of the workhorses (Claude Sonnet $15, GPT-5.x ≤ $14,
 * Gemini Pro ≤ $18 even above 200k, Grok 4 $15). A fixed dollar threshold is stable from one weekly
 * refresh to the next, unlike a percentile, and easy to explain to a customer whose agent was stopped.
 *
 * Which price: the base (short-context, standard-tier) output price of the model's dated period in
 * force at `at`; without `at`, of its latest dated period (the current list price, or an announced
 * one). Intra-day (time-of-day) discounts and surcharges are ignored, as are long-context bands,
 * batch and priority multipliers and negotiated rates: they do not change what class a model is in.
 * (o3 launched at $40/MTok output and is $8 since 2025-06-10: premium before, not after.)
 *
 * Unknown models (FALLBACK_ECONOMICS) are premium only when a *named* family says so (an unknown
 * `claude-opus-*` or `o1-*`); vendor-level, size-level and catch-all guesses are never premium, so an
 * organization running only a custom model cannot trip layer 5 through the catch-all price.
 */
import { usdPerMTokToPicos } from './money';
import type { PricePeriod } from './model-price';
import {
  getDefaultPriceRegistry,
  type PriceRegistry,
  type PriceResolution,
  type RegistryModel,
} from './registry';

/** The premium threshold on the standard output price, USD per million tokens. */
export const PREMIUM_OUTPUT_USD_PER_MTOK = 25;

const PREMIUM_OUTPUT_PICOS = usdPerMTokToPicos(PREMIUM_OUTPUT_USD_PER_MTOK);

/**
 * The list output price (pico-USD per token) the premium rule reads for a registry model: the dated
 * period in force at `atMs` (periods tried last to first, as in pricing), or the latest dated period.
 */
export function listOutputPicos(model: RegistryModel, atMs?: number): number {
  const dated = model.periods.filter((period) => period.constraint?.kind !== 'time-of-day');
  for (let i = dated.length - 1; i >= 0; i--) {
    const period = dated[i] as PricePeriod;
    const constraint = period.constraint;
    if (
      atMs === undefined ||
      constraint === null ||
      (constraint.kind === 'since' && atMs >= constraint.startMs)
    ) {
      return period.price.base.output;
    }
  }
  return (dated[0] ?? model.periods[0])?.price.base.output ?? 0;
}

/** The premium rule applied to a resolution (see the module comment). */
export function isPremiumResolution(resolution: PriceResolution, atMs?: number): boolean {
  if (resolution.model !== null) return listOutputPicos(resolution.model, atMs) >= PREMIUM_OUTPUT_PICOS;
  const family = resolution.fallbackFamily;
  return family !== null && family.kind === 'named' && family.price.base.output >= PREMIUM_OUTPUT_PICOS;
}

/** Options of {@link isPremiumModel}. */
export interface PremiumOptions {
  /** The time whose list price counts (Date or epoch ms). @default the latest dated price */
  readonly at?: Date | number;
  /** @default the bundled registry */
  readonly registry?: PriceRegistry;
}

const verdicts = new WeakMap<PriceRegistry, Map<string, boolean>>();
const MAX_VERDICTS = 10_000;

/**
 * Whether calls to `model` through `provider` count as premium spend. Resolved through the registry
 * (the same normalization as pricing); verdicts without `at` are cached per registry.
 *
 * @example isPremiumModel('anthropic', 'claude-opus-4-1-20250805') === true   // $75/MTok output
 * @example isPremiumModel('anthropic', 'claude-sonnet-4-20250514') === false  // $15/MTok output
 */
export function isPremiumModel(provider: string, model: string, options: PremiumOptions = {}): boolean {
  const registry = options.registry ?? getDefaultPriceRegistry();
  if (options.at !== undefined) {
    const atMs = typeof options.at === 'number' ? options.at : options.at.getTime();
    return isPremiumResolution(registry.resolve(provider, model), atMs);
  }
  let cache = verdicts.get(registry);
  if (cache === undefined) {
    cache = new Map();
    verdicts.set(registry, cache);
  }
  const key = `${provider}\u0000${model}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const verdict = isPremiumResolution(registry.resolve(provider, model));
  if (cache.size >= MAX_VERDICTS) cache.clear();
  cache.set(key, verdict);
  return verdict;
}

/** The premium models of a registry (all providers, or one dataset provider), e.g. for the dashboard. */
export function listPremiumModels(
  registry: PriceRegistry = getDefaultPriceRegistry(),
  datasetProviderId?: string,
): readonly RegistryModel[] {
  return registry
    .listModels(datasetProviderId)
    .filter((model) => model.tokenPriced && listOutputPicos(model) >= PREMIUM_OUTPUT_PICOS);
}
