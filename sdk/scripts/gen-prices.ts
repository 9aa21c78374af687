/**
 * Generates `sdk/src/prices.generated.ts`: the compact price table the SDK ships for the most used
 * models, from core/pricing's registry (genai-prices data plus Spendguard's supplements). Never copy
 * prices by hand: edit {@link MODELS} and run `npm run gen:prices -w sdk` (or `npx tsx sdk/scripts/gen-prices.ts`).
 * `sdk/test/pricing.test.ts` fails when the committed file differs from what this script generates.
 *
 * Each row is `[provider, model name as sent, matched dataset model (0: the same as sent), periods]`
 * (most names are the dataset's own: the 0 keeps the bundle from carrying each twice); a period is
 * `[constraint, base rates, long-context bands?]`, rates as described at {@link compactRates}.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getDefaultPriceRegistry, type TokenRates } from '../../core/pricing';
import type { PricePeriod } from '../../core/pricing/model-price';

/** The most used (provider, model) pairs, as applications send them. */
export const MODELS: ReadonlyArray<readonly [string, string]> = [
  ['openai', 'gpt-4o'],
  ['openai', 'gpt-4o-mini'],
  ['openai', 'gpt-4o-2024-05-13'],
  ['openai', 'chatgpt-4o-latest'],
  ['openai', 'gpt-4.1'],
  ['openai', 'gpt-4.1-mini'],
  ['openai', 'gpt-4.1-nano'],
  ['openai', 'gpt-5'],
  ['openai', 'gpt-5-mini'],
  ['openai', 'gpt-5-nano'],
  ['openai', 'gpt-5.1'],
  ['openai', 'gpt-5.2'],
  ['openai', 'gpt-5.4'],
  ['openai', 'gpt-5.4-mini'],
  ['openai', 'o1'],
  ['openai', 'o3'],
  ['openai', 'o3-mini'],
  ['openai', 'o4-mini'],
  ['openai', 'gpt-4-turbo'],
  ['openai', 'gpt-4'],
  ['openai', 'gpt-3.5-turbo'],
  ['openai', 'text-embedding-3-small'],
  ['openai', 'text-embedding-3-large'],
  ['anthropic', 'claude-opus-4-5'],
  ['anthropic', 'claude-opus-4-1'],
  ['anthropic', 'claude-opus-4-0'],
  ['anthropic', 'claude-sonnet-4-5'],
  ['anthropic', 'claude-sonnet-4-0'],
  ['anthropic', 'claude-haiku-4-5'],
  ['anthropic', 'claude-3-7-sonnet'],
  ['anthropic', 'claude-3-5-sonnet'],
  ['anthropic', 'claude-3-5-haiku'],
  ['anthropic', 'claude-3-haiku'],
  ['gemini', 'gemini-3-pro-preview'],
  ['gemini', 'gemini-2.5-pro'],
  ['gemini', 'gemini-2.5-flash'],
  ['gemini', 'gemini-2.5-flash-lite'],
  ['gemini', 'gemini-2.0-flash'],
  ['gemini', 'gemini-2.0-flash-lite'],
  ['gemini', 'gemini-1.5-pro'],
  ['gemini', 'gemini-1.5-flash'],
  ['openrouter', 'openai/gpt-4o'],
  ['openrouter', 'openai/gpt-4o-mini'],
  ['openrouter', 'anthropic/claude-sonnet-4.5'],
  // Amazon Bedrock (instrumentAwsClient): the profiles agents call most, regional and global
  ['bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
  ['bedrock', 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0'],
  ['bedrock', 'global.anthropic.claude-sonnet-4-5-20250929-v1:0'],
  ['bedrock', 'us.anthropic.claude-haiku-4-5-20251001-v1:0'],
  ['bedrock', 'global.anthropic.claude-haiku-4-5-20251001-v1:0'],
  ['bedrock', 'us.amazon.nova-pro-v1:0'],
  ['bedrock', 'us.amazon.nova-lite-v1:0'],
  ['bedrock', 'us.amazon.nova-micro-v1:0'],
  ['openrouter', 'anthropic/claude-sonnet-4'],
  ['openrouter', 'google/gemini-2.5-flash'],
  ['openrouter', 'google/gemini-2.5-pro'],
  ['openrouter', 'deepseek/deepseek-chat'],
  ['openrouter', 'meta-llama/llama-3.3-70b-instruct'],
  ['groq', 'llama-3.3-70b-versatile'],
  ['groq', 'llama-3.1-8b-instant'],
  ['groq', 'openai/gpt-oss-120b'],
  ['groq', 'openai/gpt-oss-20b'],
  ['mistral', 'mistral-large-latest'],
  ['mistral', 'mistral-medium-latest'],
  ['mistral', 'mistral-small-latest'],
  ['mistral', 'codestral-latest'],
  ['deepseek', 'deepseek-chat'],
  ['deepseek', 'deepseek-reasoner'],
  ['xai', 'grok-4'],
  ['xai', 'grok-3'],
  ['xai', 'grok-3-mini'],
  ['together', 'meta-llama/llama-3.3-70b-instruct-turbo'],
];

/**
 * Rates in USD per million tokens (exact: every price has at most 6 decimals), in the order input,
 * output, cache read, 5-minute write, 1-hour write, reasoning; trailing values equal to their default
 * (cache read and 5-minute write: input; 1-hour write: 5-minute write; reasoning: output) are left out.
 */
function compactRates(r: TokenRates): number[] {
  const usd = (picos: number): number => picos / 1e6;
  const values = [r.input, r.output, r.cacheRead, r.cacheWrite5m, r.cacheWrite1h, r.reasoning];
  const defaults = [NaN, NaN, r.input, r.input, r.cacheWrite5m, r.output];
  let length = values.length;
  while (length > 2 && values[length - 1] === defaults[length - 1]) length--;
  return values.slice(0, length).map(usd);
}

/** One generated row: `[provider, model as sent (lower case), matched dataset model or 0, periods]`. */
export type GeneratedRow = [string, string, string | 0, unknown[][]];

function compactPeriod(p: PricePeriod): unknown[] {
  const c = p.constraint;
  const constraint =
    c === null ? null : c.kind === 'since' ? ['s', c.startMs] : ['t', c.startSecond, c.endSecond];
  const out: unknown[] = [constraint, compactRates(p.price.base)];
  if (p.price.longContext.length > 0) {
    out.push(p.price.longContext.map((band) => [band.aboveInputTokens, compactRates(band.rates)]));
  }
  return out;
}

/** The rows of the table, from core/pricing. Throws when a listed model is not priced by the registry. */
export function buildPriceRows(): GeneratedRow[] {
  const registry = getDefaultPriceRegistry();
  return MODELS.map(([provider, model]) => {
    const resolution = registry.resolve(provider, model);
    if (resolution.costSource !== 'PROVIDER_REGISTRY') {
      throw new Error(
        `${provider}/${model} is not in PROVIDER_REGISTRY (${resolution.matchedModel}); fix MODELS`,
      );
    }
    const name = model.toLowerCase();
    const matched = resolution.matchedModel === name ? 0 : resolution.matchedModel;
    return [provider, name, matched, resolution.periods.map(compactPeriod)];
  });
}

/** The generated module's text (unformatted; the CLI runs Prettier over it). */
export function generatePriceModule(): string {
  const rows = buildPriceRows().map((row) => `  ${JSON.stringify(row)},`);
  return `// GENERATED FILE — DO NOT EDIT. Source: core/pricing (genai-prices data + supplements),
// generator: sdk/scripts/gen-prices.ts. Regenerate with \`npx tsx sdk/scripts/gen-prices.ts\`.

/**
 * USD per million tokens: input, output, then optionally cache read (default: input), 5-minute write
 * (default: input), 1-hour write (default: 5-minute write), reasoning (default: output).
 */
export type CompactRates = readonly number[];

/** \`[constraint, base, long-context bands?]\`; constraint \`['s', startMs]\` or \`['t', startSecond, endSecond]\`. */
export type CompactPeriod = readonly [
  readonly [string, number, number?] | null,
  CompactRates,
  (readonly (readonly [number, CompactRates])[])?,
];

/** \`[provider, model as sent (lower case), matched dataset model (0: the same as sent), periods]\`. */
export type PriceRow = readonly [string, string, string | 0, readonly CompactPeriod[]];

export const PRICE_ROWS: readonly PriceRow[] = [
${rows.join('\n')}
];
`;
}

/** Path of the generated module. */
export const GENERATED_PATH = join(__dirname, '..', 'src', 'prices.generated.ts');

if (require.main === module) {
  (async () => {
    const prettier = await import('prettier');
    const options = (await prettier.resolveConfig(GENERATED_PATH)) ?? {};
    writeFileSync(
      GENERATED_PATH,
      await prettier.format(generatePriceModule(), { ...options, filepath: GENERATED_PATH }),
    );
    console.log(`wrote ${GENERATED_PATH} (${MODELS.length} models)`);
  })().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
