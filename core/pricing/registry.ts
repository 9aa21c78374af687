/**
 * PROVIDER_REGISTRY: the compiled price table and the (provider, model) → price resolution.
 *
 * A registry is built once from a price dataset (the bundled genai-prices data, or a validated weekly
 * snapshot): every model's match rule is compiled to a predicate and every price table to integer
 * pico-USD per token (`model-price.ts`), with the additions of `supplements.ts` and the aggregator
 * entries completed from their vendors' (`aggregator-fill.ts`). Resolving a
 * (provider, model) pair walks the normalized name candidates (`normalize-model.ts`) through the price
 * lists, exactly as genai-prices matches (first model of the list whose rule matches, then the
 * provider's `fallback_model_providers`), and falls back to FALLBACK_ECONOMICS (`fallback.ts`) when
 * nothing matches. The resolution is cached per (provider, model) (a Map of Maps, bounded: when full it
 * is cleared and refilled), so after the first event of a pair, pricing costs two Map lookups plus
 * integer arithmetic.
 */
import { fillAggregatorsFromVendors } from './aggregator-fill';
import { BUNDLED_DATA_VERSION, loadBundledProviders } from './bundled-data';
import { PriceDataError } from './errors';
import { fallbackFamilyFor, type FallbackFamily } from './fallback';
import { compileMatchLogic, type ModelMatcher } from './match-logic';
import {
  compilePeriods,
  isConditionalPrices,
  isTokenPriced,
  type CacheRule,
  type ModelPrice,
  type PricePeriod,
} from './model-price';
import { normalizeModelName } from './normalize-model';
import { mapProviderToDataset, spendguardProviderId } from './provider-ids';
import {
  parsePriceSnapshot,
  type ModelData,
  type PriceTableData,
  type ProviderData,
} from './snapshot-schema';
import { patchesFor, SUPPLEMENTAL_MODELS } from './supplements';
import { tierMultipliersFor, type TierMultipliers } from './tiers';

/**
 * What decided a call's cost (SPEC §1.3, extended by issue 13):
 * - `PROVIDER_REPORTED`: the amount the provider itself reported charging (OpenRouter `usage.cost`,
 *   xAI `usage.cost_in_usd_ticks`); the registry's price is kept beside it;
 * - `ORG_RATE`: the organization's own per-model or per-endpoint-family rate (self-hosted, contracted);
 * - `PROVIDER_REGISTRY`: the published list price (genai-prices data + supplements);
 * - `FALLBACK_ECONOMICS`: the model-family heuristic for models no list knows.
 */
export type CostSource = 'PROVIDER_REPORTED' | 'ORG_RATE' | 'PROVIDER_REGISTRY' | 'FALLBACK_ECONOMICS';

/** The sources a registry resolution can give (the other two are decided per call). */
export type ListCostSource = Extract<CostSource, 'PROVIDER_REGISTRY' | 'FALLBACK_ECONOMICS'>;

/** One compiled model of the registry. */
export interface RegistryModel {
  /** Dataset provider id (`openai`, `google`, `x-ai`, …). */
  readonly provider: string;
  /** Dataset model id, reported as `matchedModel`. */
  readonly id: string;
  readonly name: string | undefined;
  readonly matches: ModelMatcher;
  /** Prices in dataset order; see `selectPeriodPrice`. */
  readonly periods: readonly PricePeriod[];
  /** False for models priced only per second, page or request (Whisper, OCR): tokens cannot price them. */
  readonly tokenPriced: boolean;
  /** True for models added by `supplements.ts`. */
  readonly supplemental: boolean;
}

/** The resolved price source of a (provider, model) pair. Cached; treat as immutable. */
export interface PriceResolution {
  readonly costSource: ListCostSource;
  /** The provider whose price list priced the call (Spendguard id), or the requested provider for fallback. */
  readonly provider: string;
  /** The requested provider, trimmed and lower-cased. */
  readonly requestedProvider: string;
  /** The reported model name, trimmed and lower-cased. */
  readonly canonicalModel: string;
  /** The dataset model id, or `fallback:<family>` for FALLBACK_ECONOMICS. */
  readonly matchedModel: string;
  readonly periods: readonly PricePeriod[];
  /** The price when it does not depend on time (one unconstrained period), else null. */
  readonly fixedPrice: ModelPrice | null;
  readonly tiers: TierMultipliers;
  readonly model: RegistryModel | null;
  readonly fallbackFamily: FallbackFamily | null;
}

/** A compiled price registry. */
export interface PriceRegistry {
  /** Where the data came from. */
  readonly origin: 'bundled' | 'snapshot' | 'custom';
  /**
   * Identifies the price data, to stamp on priced events so a cost can be reproduced: the bundled
   * package version, or what the loader passed (e.g. the snapshot's sha-256 and fetch date).
   */
  readonly version: string;
  /** Dataset provider ids, in dataset order. */
  readonly providerIds: readonly string[];
  /** Number of compiled models (supplements included). */
  readonly modelCount: number;
  /**
   * Resolves a (provider, model) pair; never fails: unknown pairs resolve to FALLBACK_ECONOMICS.
   * `provider` is a Spendguard provider id (or a dataset id); `model` as reported by the provider.
   */
  resolve(provider: string, model: string | null | undefined): PriceResolution;
  /** The registry model a pair resolves to, or null when it would be priced by fallback. */
  findModel(provider: string, model: string): RegistryModel | null;
  /** Every compiled model of a dataset provider (or of all providers). */
  listModels(datasetProviderId?: string): readonly RegistryModel[];
}

/** Options of {@link createPriceRegistry}. */
export interface PriceRegistryOptions {
  /** Maximum cached (provider, model) resolutions; when full the cache is cleared. @default 10000 */
  readonly resolutionCacheSize?: number;
  /** Recorded in {@link PriceRegistry.origin}. @default 'custom' ('bundled' when no data is passed) */
  readonly origin?: PriceRegistry['origin'];
  /** Recorded in {@link PriceRegistry.version}. @default the bundled version, or 'custom' */
  readonly version?: string;
}

interface CompiledProvider {
  readonly id: string;
  readonly models: readonly RegistryModel[];
  readonly fallbackProviderIds: readonly string[];
  readonly modelMatch: ModelMatcher | null;
}

const DEFAULT_CACHE_SIZE = 10_000;

function cacheRuleFor(model: ModelData): CacheRule {
  return model.id.toLowerCase().includes('claude') ? 'anthropic' : 'dataset';
}

function patchedPrices(providerId: string, model: ModelData): ModelData['prices'] {
  const patches = patchesFor(providerId, model.id);
  if (patches.length === 0) return model.prices;
  const patchTable = (table: PriceTableData): PriceTableData =>
    patches.reduce((acc, patch) => patch.apply(acc), table);
  return isConditionalPrices(model.prices)
    ? model.prices.map((entry) => ({ ...entry, prices: patchTable(entry.prices) }))
    : patchTable(model.prices);
}

function compileModel(providerId: string, model: ModelData, supplemental: boolean): RegistryModel {
  try {
    const prices = patchedPrices(providerId, model);
    const tables = isConditionalPrices(prices) ? prices.map((entry) => entry.prices) : [prices];
    return {
      provider: providerId,
      id: model.id,
      name: model.name,
      matches: compileMatchLogic(model.match),
      periods: compilePeriods(prices, cacheRuleFor(model)),
      tokenPriced: tables.every(isTokenPriced),
      supplemental,
    };
  } catch (err) {
    throw new PriceDataError(`Cannot compile ${providerId}/${model.id}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

function compileProvider(provider: ProviderData): CompiledProvider {
  const models = provider.models.map((model) => compileModel(provider.id, model, false));
  for (const extra of SUPPLEMENTAL_MODELS) {
    if (extra.provider === provider.id) models.push(compileModel(provider.id, extra.model, true));
  }
  return {
    id: provider.id,
    models,
    fallbackProviderIds: provider.fallback_model_providers ?? [],
    modelMatch: provider.model_match === undefined ? null : compileMatchLogic(provider.model_match),
  };
}

/**
 * Builds a registry from a price dataset (default: the data bundled with @pydantic/genai-prices).
 * Validate fetched data with `priceSnapshotSchema` first, or use {@link loadPriceRegistry}.
 *
 * @example
 * const registry = createPriceRegistry();
 * registry.resolve('openai', 'gpt-4o-2024-08-06').matchedModel === 'gpt-4o';
 * @throws PriceDataError when a model's match rule or prices cannot be compiled.
 */
export function createPriceRegistry(
  providersData?: readonly ProviderData[],
  options: PriceRegistryOptions = {},
): PriceRegistry {
  const data = fillAggregatorsFromVendors(providersData ?? loadBundledProviders());
  const origin = options.origin ?? (providersData === undefined ? 'bundled' : 'custom');
  const version = options.version ?? (providersData === undefined ? BUNDLED_DATA_VERSION : origin);
  const cacheSize = Math.max(1, options.resolutionCacheSize ?? DEFAULT_CACHE_SIZE);
  const providers = new Map<string, CompiledProvider>();
  for (const provider of data) providers.set(provider.id, compileProvider(provider));
  const datasetIds: ReadonlySet<string> = new Set(providers.keys());
  const allModels = [...providers.values()].flatMap((p) => p.models);

  const findInProvider = (
    providerId: string,
    name: string,
    followFallbacks: boolean,
  ): RegistryModel | null => {
    const provider = providers.get(providerId);
    if (provider === undefined) return null;
    for (const model of provider.models) if (model.matches(name)) return model;
    if (!followFallbacks) return null;
    for (const fallbackId of provider.fallbackProviderIds) {
      const found = findInProvider(fallbackId, name, false);
      if (found !== null) return found;
    }
    return null;
  };

  const lookup = (provider: string, model: string): { found: RegistryModel | null; familyName: string } => {
    const mapping = mapProviderToDataset(provider, datasetIds);
    const normalized = normalizeModelName(model);
    for (const candidate of normalized.candidates) {
      const listId = candidate.list.kind === 'requested' ? mapping.datasetId : candidate.list.providerId;
      if (listId === null) continue;
      const found = findInProvider(listId, candidate.model, true);
      if (found !== null) return { found, familyName: normalized.familyName };
    }
    if (mapping.inferFromModel) {
      for (const candidate of normalized.candidates) {
        for (const compiled of providers.values()) {
          if (compiled.modelMatch === null || !compiled.modelMatch(candidate.model)) continue;
          const found = findInProvider(compiled.id, candidate.model, true);
          if (found !== null) return { found, familyName: normalized.familyName };
        }
      }
    }
    return { found: null, familyName: normalized.familyName };
  };

  const resolveUncached = (provider: string, model: string): PriceResolution => {
    const requestedProvider = provider.trim().toLowerCase();
    const canonicalModel = model.trim().toLowerCase();
    const { found, familyName } = lookup(requestedProvider, model);
    if (found !== null && found.tokenPriced) {
      const only = found.periods.length === 1 ? found.periods[0] : undefined;
      return {
        costSource: 'PROVIDER_REGISTRY',
        provider: spendguardProviderId(found.provider),
        requestedProvider,
        canonicalModel,
        matchedModel: found.id,
        periods: found.periods,
        fixedPrice: only !== undefined && only.constraint === null ? only.price : null,
        tiers: tierMultipliersFor(requestedProvider, found.id),
        model: found,
        fallbackFamily: null,
      };
    }
    const family = fallbackFamilyFor(familyName, requestedProvider);
    const matchedModel = `fallback:${family.id}`;
    return {
      costSource: 'FALLBACK_ECONOMICS',
      provider: requestedProvider.length > 0 ? requestedProvider : 'unknown',
      requestedProvider,
      canonicalModel,
      matchedModel,
      periods: [{ constraint: null, price: family.price }],
      fixedPrice: family.price,
      tiers: tierMultipliersFor(requestedProvider, matchedModel),
      model: null,
      fallbackFamily: family,
    };
  };

  // Two-level cache (provider → model → resolution): no key string is built per event, and a Map
  // lookup on the event's own strings costs ~20 ns where a concatenated key costs ~200 ns.
  const cache = new Map<string, Map<string, PriceResolution>>();
  let cached = 0;

  return {
    origin,
    version,
    providerIds: [...providers.keys()],
    modelCount: allModels.length,
    resolve(provider, model) {
      const name = model ?? '';
      let byModel = cache.get(provider);
      const hit = byModel?.get(name);
      if (hit !== undefined) return hit;
      const resolution = resolveUncached(provider, name);
      if (cached >= cacheSize) {
        cache.clear();
        cached = 0;
        byModel = undefined;
      }
      if (byModel === undefined) {
        byModel = new Map();
        cache.set(provider, byModel);
      }
      byModel.set(name, resolution);
      cached++;
      return resolution;
    },
    findModel(provider, model) {
      const { found } = lookup(provider.trim().toLowerCase(), model);
      return found !== null && found.tokenPriced ? found : null;
    },
    listModels(datasetProviderId) {
      if (datasetProviderId === undefined) return allModels;
      return providers.get(datasetProviderId)?.models ?? [];
    },
  };
}

let defaultRegistry: PriceRegistry | null = null;

/** The registry over the bundled dataset, built on first use and shared. */
export function getDefaultPriceRegistry(): PriceRegistry {
  defaultRegistry ??= createPriceRegistry();
  return defaultRegistry;
}

/** The outcome of {@link loadPriceRegistry}. */
export interface LoadedPriceRegistry {
  readonly registry: PriceRegistry;
  /** Why the snapshot was not used (absent, invalid, or not compilable); undefined when it was. */
  readonly snapshotError?: string;
}

/**
 * Builds a registry from a stored snapshot (parsed JSON or its text), falling back to the bundled
 * data when the snapshot is absent, invalid or cannot be compiled. Never throws.
 */
export function loadPriceRegistry(
  snapshot: unknown,
  options: PriceRegistryOptions = {},
): LoadedPriceRegistry {
  if (snapshot === null || snapshot === undefined) {
    return { registry: getDefaultPriceRegistry(), snapshotError: 'no snapshot' };
  }
  const parsed = parsePriceSnapshot(snapshot);
  if (!parsed.ok) return { registry: getDefaultPriceRegistry(), snapshotError: parsed.error };
  try {
    return { registry: createPriceRegistry(parsed.providers, { ...options, origin: 'snapshot' }) };
  } catch (err) {
    return { registry: getDefaultPriceRegistry(), snapshotError: (err as Error).message };
  }
}
