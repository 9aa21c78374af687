/**
 * Provider identifiers: Spendguard's catalog ids, the price dataset's ids, and the vendor prefixes
 * found inside model names (OpenRouter's `openai/gpt-4o`, Bedrock's `anthropic.claude-…`).
 *
 * Spendguard ids are plain strings (`openai`, `anthropic`, `openrouter`, `llama`, `gemini`, `groq`,
 * `together`, `mistral`, `deepseek`, `xai`); the catalog is not imported so pricing has no dependency
 * on it. Any other string that is a dataset provider id (`aws`, `azure`, `fireworks`, …) works too.
 */

/** Spendguard provider id (or common alias) → price-dataset provider id. `null`: no price list. */
const DATASET_PROVIDER_BY_ALIAS: Readonly<Record<string, string | null>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  openrouter: 'openrouter',
  gemini: 'google',
  google: 'google',
  vertex: 'google',
  'vertex-ai': 'google',
  vertexai: 'google',
  groq: 'groq',
  together: 'together',
  'together-ai': 'together',
  together_ai: 'together',
  togetherai: 'together',
  mistral: 'mistral',
  mistralai: 'mistral',
  deepseek: 'deepseek',
  xai: 'x-ai',
  'x-ai': 'x-ai',
  grok: 'x-ai',
  bedrock: 'aws',
  'aws-bedrock': 'aws',
  'amazon-bedrock': 'aws',
  aws: 'aws',
  azure: 'azure',
  'azure-openai': 'azure',
  // Meta's Llama API and self-hosted Llama endpoints have no per-token list price in the dataset:
  // they are priced by the open-weight family heuristics (FALLBACK_ECONOMICS).
  llama: null,
  meta: null,
  'meta-llama': null,
};

/** Dataset provider id → the id Spendguard reports (identity when absent). */
const SPENDGUARD_ID_BY_DATASET_ID: Readonly<Record<string, string>> = {
  google: 'gemini',
  'x-ai': 'xai',
};

/** Vendor prefix in `vendor/model` names (OpenRouter, Together, Groq) → dataset provider id. */
const DATASET_PROVIDER_BY_VENDOR_PREFIX: Readonly<Record<string, string | null>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  'meta-llama': null,
  mistralai: 'mistral',
  mistral: 'mistral',
  deepseek: 'deepseek',
  'deepseek-ai': 'deepseek',
  'x-ai': 'x-ai',
  xai: 'x-ai',
  moonshotai: 'moonshotai',
  cohere: 'cohere',
  perplexity: 'perplexity',
  minimax: 'minimax',
  'z-ai': 'zai',
  zhipuai: 'zhipuai',
  amazon: 'aws',
  qwen: null,
};

/** Vendor part of Bedrock model ids (`anthropic.claude-…`) → dataset provider id. */
const DATASET_PROVIDER_BY_BEDROCK_VENDOR: Readonly<Record<string, string | null>> = {
  anthropic: 'anthropic',
  openai: 'openai',
  mistral: 'mistral',
  deepseek: 'deepseek',
  cohere: 'cohere',
  amazon: 'aws',
  meta: null,
  ai21: null,
  qwen: null,
  writer: null,
  google: null,
};

/** Bedrock vendors recognised in `[region.]vendor.model[-vN[:M]]` ids. */
export const BEDROCK_VENDORS: readonly string[] = Object.keys(DATASET_PROVIDER_BY_BEDROCK_VENDOR);

/** How a Spendguard provider id maps onto the price dataset. */
export interface DatasetProviderMapping {
  /** The dataset provider whose price list applies, `null` when none does. */
  readonly datasetId: string | null;
  /**
   * True for provider ids we do not know at all: the registry may then infer the price list from the
   * model name (genai-prices' `model_match`, e.g. `gpt-*` → openai). False for known ids, including
   * those deliberately without a price list (`llama`).
   */
  readonly inferFromModel: boolean;
}

/**
 * Maps a Spendguard provider id (or alias, case-insensitive) to the dataset: a known alias, else the id
 * itself when the dataset has such a provider, else no price list.
 */
export function mapProviderToDataset(
  provider: string,
  datasetIds: ReadonlySet<string>,
): DatasetProviderMapping {
  const key = provider.trim().toLowerCase();
  const alias = DATASET_PROVIDER_BY_ALIAS[key];
  if (alias !== undefined) {
    return { datasetId: alias !== null && datasetIds.has(alias) ? alias : null, inferFromModel: false };
  }
  if (datasetIds.has(key)) return { datasetId: key, inferFromModel: false };
  return { datasetId: null, inferFromModel: true };
}

/** The provider id Spendguard reports for a dataset provider id (`google` → `gemini`, `x-ai` → `xai`). */
export function spendguardProviderId(datasetProviderId: string): string {
  return SPENDGUARD_ID_BY_DATASET_ID[datasetProviderId] ?? datasetProviderId;
}

/** The dataset provider named by a `vendor/` prefix, `null` when the vendor has no own price list. */
export function datasetProviderForVendorPrefix(vendor: string): string | null {
  return DATASET_PROVIDER_BY_VENDOR_PREFIX[vendor] ?? null;
}

/** The dataset provider named by a Bedrock vendor, `null` when it has no own price list. */
export function datasetProviderForBedrockVendor(vendor: string): string | null {
  return DATASET_PROVIDER_BY_BEDROCK_VENDOR[vendor] ?? null;
}
