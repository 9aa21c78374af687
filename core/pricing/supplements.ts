/**
 * What the price dataset lacks, added from the providers' published price lists.
 *
 * Two kinds of additions, both applied when a registry is compiled and both yielding to the dataset:
 * - **patches** fill a price the dataset leaves out of a model it does list (a patch never overwrites a
 *   price the dataset gives, so a refreshed snapshot that adds it wins);
 * - **supplemental models** are appended AFTER the dataset's models of a provider, so they only match
 *   names no dataset model matches.
 *
 * Each entry names its source. Review them when genai-prices is upgraded: `supplements.test.ts` fails
 * when the dataset starts covering one of them.
 */
import type { ModelData, PriceTableData, PriceValueData } from './snapshot-schema';

/** A fill-in for prices a dataset model lacks. */
export interface PricePatch {
  /** Dataset provider id. */
  readonly provider: string;
  /** Dataset model ids the patch applies to. */
  readonly modelIds: readonly string[];
  /** Why, and where the numbers come from. */
  readonly source: string;
  /** Returns the table with the missing prices added, or the same table when nothing is missing. */
  readonly apply: (table: PriceTableData) => PriceTableData;
}

/** A model the dataset does not list. */
export interface SupplementalModel {
  /** Dataset provider id whose list it joins (at the end). */
  readonly provider: string;
  readonly model: ModelData;
  readonly source: string;
}

const ANTHROPIC_LONG_CONTEXT_THRESHOLD = 200_000;

/** Adds Anthropic's long-context band (> 200k input tokens: input-side ×2, output ×1.5) to a flat table. */
function addAnthropicLongContext(table: PriceTableData): PriceTableData {
  const hasTiers = Object.values(table).some((value) => typeof value === 'object');
  if (hasTiers) return table;
  const result: Record<string, PriceValueData | undefined> = { ...table };
  const factors: Readonly<Record<string, number>> = {
    input_mtok: 2,
    cache_read_mtok: 2,
    cache_write_mtok: 2,
    cache_write_1h_mtok: 2,
    output_mtok: 1.5,
  };
  for (const [key, factor] of Object.entries(factors)) {
    const value = table[key];
    if (typeof value === 'number') {
      result[key] = {
        base: value,
        tiers: [{ start: ANTHROPIC_LONG_CONTEXT_THRESHOLD, price: value * factor }],
      };
    }
  }
  return result;
}

function addMissing(prices: Readonly<Record<string, number>>): (table: PriceTableData) => PriceTableData {
  return (table) => {
    const missing = Object.entries(prices).filter(([key]) => table[key] === undefined);
    return missing.length === 0 ? table : { ...table, ...Object.fromEntries(missing) };
  };
}

/** Fill-ins for prices the bundled dataset (genai-prices 0.1.8) leaves out. */
export const PRICE_PATCHES: readonly PricePatch[] = [
  {
    provider: 'anthropic',
    modelIds: ['claude-sonnet-4-0'],
    source:
      'Claude Sonnet 4 with the 1M context window: prompts over 200K input tokens cost $6 input / $22.50 output ' +
      'per MTok for the whole request, cache prices scale with input (anthropic.com/news/1m-context, ' +
      'platform.claude.com/docs/en/about-claude/pricing#long-context-pricing). The dataset has the band for ' +
      'Sonnet 4.5 but not for Sonnet 4.',
    apply: addAnthropicLongContext,
  },
  {
    provider: 'google',
    modelIds: ['claude-4-sonnet'],
    source: 'Claude Sonnet 4 long context on Vertex AI, same band as the Anthropic API.',
    apply: addAnthropicLongContext,
  },
  {
    provider: 'openrouter',
    modelIds: ['anthropic/claude-sonnet-4'],
    source: 'Claude Sonnet 4 long context through OpenRouter (passes Anthropic prices through).',
    apply: addAnthropicLongContext,
  },
  {
    provider: 'aws',
    modelIds: [
      'global.anthropic.claude-sonnet-4-20250514-v1:0',
      'regional.anthropic.claude-sonnet-4-20250514-v1:0',
      'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'regional.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ],
    source: 'Claude Sonnet 4 / 4.5 long context on Bedrock, same band as the Anthropic API.',
    apply: addAnthropicLongContext,
  },
  {
    provider: 'openai',
    modelIds: ['ft:gpt-4o'],
    source: 'Fine-tuned gpt-4o cached input $1.875/MTok (openai.com/api/pricing, fine-tuning).',
    apply: addMissing({ cache_read_mtok: 1.875 }),
  },
  {
    provider: 'openai',
    modelIds: ['ft:gpt-4o-mini', 'gpt-4o-mini-2024-07-18.ft-'],
    source: 'Fine-tuned gpt-4o-mini cached input $0.15/MTok (openai.com/api/pricing, fine-tuning).',
    apply: addMissing({ cache_read_mtok: 0.15 }),
  },
];

const fineTune = (
  id: string,
  regex: string,
  prices: { input_mtok: number; cache_read_mtok: number; output_mtok: number },
): SupplementalModel => ({
  provider: 'openai',
  model: { id, name: `${id} (fine-tuned inference)`, match: { regex }, prices },
  source: 'openai.com/api/pricing, fine-tuning: inference prices of fine-tuned models.',
});

/** Models the bundled dataset does not list. */
export const SUPPLEMENTAL_MODELS: readonly SupplementalModel[] = [
  fineTune('ft:gpt-4.1-mini', '^ft:gpt-4\\.1-mini', {
    input_mtok: 0.8,
    cache_read_mtok: 0.2,
    output_mtok: 3.2,
  }),
  fineTune('ft:gpt-4.1-nano', '^ft:gpt-4\\.1-nano', {
    input_mtok: 0.2,
    cache_read_mtok: 0.05,
    output_mtok: 0.8,
  }),
  fineTune('ft:gpt-4.1', '^ft:gpt-4\\.1-\\d', { input_mtok: 3, cache_read_mtok: 0.75, output_mtok: 12 }),
  fineTune('ft:o4-mini', '^ft:o4-mini', { input_mtok: 4, cache_read_mtok: 1, output_mtok: 16 }),
];

/** The patches that apply to one dataset model. */
export function patchesFor(provider: string, modelId: string): readonly PricePatch[] {
  return PRICE_PATCHES.filter((patch) => patch.provider === provider && patch.modelIds.includes(modelId));
}
