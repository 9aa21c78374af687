/**
 * Aggregator entries completed from the vendor's own entry.
 *
 * OpenRouter lists `openai/gpt-4o` at $2.50 / $10 with no cache price, and `google/gemini-2.5-pro` at
 * $1.25 / $10 with no long-context band, although it bills cached reads and prompts over 200k tokens at
 * the vendor's prices (it passes the upstream provider's pricing through). Priced from the aggregator's
 * entry alone, a cached gpt-4o call is billed as plain input (50 % too high) and a 250k-token Gemini call
 * at the base rate (50 % too low). So, when a registry is compiled, each aggregator model whose id names
 * its vendor (`vendor/model`) is completed from the vendor model that id resolves to:
 *
 * - a cache price (read, 5-minute write, 1-hour write) the aggregator entry lacks is taken from the
 *   vendor entry, with its long-context tiers;
 * - a price the aggregator gives equal to the vendor's base price gains the vendor's long-context tiers
 *   (an aggregator price that differs from the vendor's is the aggregator's own and is left alone).
 *
 * Prices the aggregator gives are never changed, so a refreshed snapshot that adds them wins (like
 * `supplements.ts`). Only plain vendor tables and date-constrained ones (the current period is used) are
 * read; a vendor whose price depends on the time of day is left out.
 */
import { compileMatchLogic, type ModelMatcher } from './match-logic';
import type {
  ConditionalPriceData,
  ModelData,
  PriceTableData,
  PriceValueData,
  ProviderData,
} from './snapshot-schema';

/** Aggregator dataset ids → (model-id prefix → vendor dataset id). */
export const AGGREGATOR_VENDORS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  openrouter: {
    openai: 'openai',
    google: 'google',
    anthropic: 'anthropic',
    'x-ai': 'x-ai',
    mistralai: 'mistral',
    deepseek: 'deepseek',
  },
};

const CACHE_KEYS = ['cache_read_mtok', 'cache_write_mtok', 'cache_write_1h_mtok'] as const;
const TOKEN_KEYS = ['input_mtok', 'output_mtok', ...CACHE_KEYS] as const;

interface VendorModel {
  readonly matches: ModelMatcher;
  readonly model: ModelData;
}

/** The vendor's current plain price table, or undefined when it depends on the time of day. */
function currentTable(prices: ModelData['prices']): PriceTableData | undefined {
  if (!Array.isArray(prices)) return prices as PriceTableData;
  const entries = prices as readonly ConditionalPriceData[];
  let latest: ConditionalPriceData | undefined;
  for (const entry of entries) {
    const c = entry.constraint;
    if (c !== undefined && !('start_date' in c)) return undefined;
    const date = c === undefined ? '' : c.start_date;
    const best = latest?.constraint;
    const bestDate = best === undefined || !('start_date' in best) ? '' : best.start_date;
    if (latest === undefined || date >= bestDate) latest = entry;
  }
  return latest?.prices;
}

const baseOf = (value: PriceValueData): number => (typeof value === 'number' ? value : value.base);

/** The aggregator table completed from the vendor's table (the same object when nothing is added). */
export function completeFromVendor(table: PriceTableData, vendor: PriceTableData): PriceTableData {
  const added: Record<string, PriceValueData> = {};
  for (const key of TOKEN_KEYS) {
    const own = table[key];
    const theirs = vendor[key];
    if (theirs === undefined) continue;
    if (own === undefined) {
      if ((CACHE_KEYS as readonly string[]).includes(key)) added[key] = theirs;
    } else if (typeof own === 'number' && typeof theirs === 'object' && own === baseOf(theirs)) {
      added[key] = theirs;
    }
  }
  return Object.keys(added).length === 0 ? table : { ...table, ...added };
}

function vendorIndex(data: readonly ProviderData[]): Map<string, VendorModel[]> {
  const wanted = new Set(Object.values(AGGREGATOR_VENDORS).flatMap((m) => Object.values(m)));
  const index = new Map<string, VendorModel[]>();
  for (const provider of data) {
    if (!wanted.has(provider.id)) continue;
    index.set(
      provider.id,
      provider.models.map((model) => ({ matches: compileMatchLogic(model.match), model })),
    );
  }
  return index;
}

/**
 * The dataset with every aggregator model completed from its vendor's entry (see the module comment).
 * Providers and models without a vendor match are returned unchanged.
 */
export function fillAggregatorsFromVendors(data: readonly ProviderData[]): readonly ProviderData[] {
  if (!data.some((p) => AGGREGATOR_VENDORS[p.id] !== undefined)) return data;
  const vendors = vendorIndex(data);
  return data.map((provider) => {
    const prefixes = AGGREGATOR_VENDORS[provider.id];
    if (prefixes === undefined) return provider;
    const models = provider.models.map((model) => {
      if (Array.isArray(model.prices)) return model;
      const slash = model.id.indexOf('/');
      const vendorId = slash > 0 ? prefixes[model.id.slice(0, slash)] : undefined;
      const candidates = vendorId === undefined ? undefined : vendors.get(vendorId);
      if (candidates === undefined) return model;
      const name = model.id.slice(slash + 1).toLowerCase();
      const vendorModel = candidates.find((c) => c.matches(name));
      const vendorTable = vendorModel === undefined ? undefined : currentTable(vendorModel.model.prices);
      if (vendorTable === undefined) return model;
      const prices = completeFromVendor(model.prices as PriceTableData, vendorTable);
      return prices === model.prices ? model : { ...model, prices };
    });
    return { ...provider, models };
  });
}
