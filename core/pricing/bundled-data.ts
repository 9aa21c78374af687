/**
 * The price dataset bundled with `@pydantic/genai-prices` (MIT; data shipped inside the package, no
 * network access). It is the fallback when no valid weekly snapshot is available.
 *
 * genai-prices exports no accessor for its whole provider list, only `findProvider`, so the bundled
 * providers are read one id at a time from {@link BUNDLED_PROVIDER_IDS}. `bundled-data.test.ts` checks
 * that this list equals the package's full list (via its async `waitForUpdate()`), so upgrading the
 * package without updating the list fails the tests instead of silently dropping a provider.
 *
 * If an application calls genai-prices' `updatePrices()` in the same process, `findProvider` serves the
 * updated data; Spendguard does not (it refreshes through snapshots, see docs/pricing.md).
 */
import { findProvider } from '@pydantic/genai-prices';
import { PriceDataError } from './errors';
import type { ProviderData } from './snapshot-schema';

/** The bundled dataset's version, recorded by registries built from it (checked by the tests). */
export const BUNDLED_DATA_VERSION = 'genai-prices@0.1.8';

/** Every provider id in the dataset of @pydantic/genai-prices 0.1.8. */
export const BUNDLED_PROVIDER_IDS: readonly string[] = [
  'anthropic',
  'arcee',
  'avian',
  'aws',
  'azure',
  'baseten',
  'cerebras',
  'cloudflare',
  'cohere',
  'cursor',
  'deepseek',
  'doubleword',
  'fireworks',
  'github-copilot',
  'google',
  'groq',
  'huggingface_cerebras',
  'huggingface_fireworks-ai',
  'huggingface_groq',
  'huggingface_hyperbolic',
  'huggingface_nebius',
  'huggingface_novita',
  'huggingface_nscale',
  'huggingface_ovhcloud',
  'huggingface_publicai',
  'huggingface_sambanova',
  'huggingface_together',
  'minimax',
  'mistral',
  'modal',
  'moonshotai',
  'novita',
  'openai',
  'openrouter',
  'ovhcloud',
  'perplexity',
  'quicksilverpro',
  'together',
  'typesafe',
  'voyageai',
  'x-ai',
  'zai',
  'zhipuai',
];

let bundled: readonly ProviderData[] | null = null;

/**
 * The bundled providers, read once and kept. The returned objects belong to genai-prices: never mutate.
 *
 * @throws PriceDataError when a listed provider is missing from the package.
 */
export function loadBundledProviders(): readonly ProviderData[] {
  if (bundled !== null) return bundled;
  const providers: ProviderData[] = [];
  for (const id of BUNDLED_PROVIDER_IDS) {
    const provider = findProvider({ providerId: id });
    if (provider === undefined || provider.id !== id) {
      throw new PriceDataError(`Provider '${id}' is missing from the bundled genai-prices data`);
    }
    providers.push(provider);
  }
  bundled = providers;
  return bundled;
}
