/**
 * Service tiers and their price multipliers (the dataset only has standard prices).
 *
 * Multipliers are exact rationals, applied to every token class of the request (input, cache reads
 * and writes, output), on top of long-context bands and before negotiated org multipliers:
 *
 * | tier       | openai | anthropic | gemini | groq | bedrock | others |
 * |------------|--------|-----------|--------|------|---------|--------|
 * | `batch`    | 1/2    | 1/2       | 1/2    | 1/2  | 1/2     | 1/2    |
 * | `flex`     | 1/2    | 1         | 1/2    | 1    | 1/2     | 1      |
 * | `priority` | table, else 2 | 1  | 2      | 1    | 7/4     | 1      |
 *
 * - Batch: every provider with a batch API bills it at 50 % (OpenAI, Anthropic, Gemini, Groq, Mistral,
 *   Together, xAI). A provider without one never reports `batch`.
 * - Flex: OpenAI's flex processing is billed at batch prices (50 %); Gemini's Flex tier is 50 % off;
 *   Groq's `flex` is priced as on-demand (console.groq.com/docs/flex-processing). Elsewhere: no discount.
 * - Priority: OpenAI publishes per-model priority prices (openai.com/api-priority-processing); each is a
 *   constant multiple of the standard price for all token classes, kept here as an exact rational
 *   (gpt-4o $4.25/$2.125/$17 = 17/10 × $2.50/$1.25/$10). Other OpenAI models: 2×, the highest multiple
 *   in that table. Gemini's Priority tier is priced 75–100 % above standard: 2× (the high side).
 *   Anthropic's Priority Tier is a capacity commitment that burns down at standard relative rates: 1×.
 *   Groq's `performance` tier is enterprise-negotiated: 1× (use org rates).
 * - Amazon Bedrock (aws.amazon.com/bedrock/pricing, "Priority" and "Flex" columns; service tiers since
 *   2025-11-18): Priority is the Standard price +75 % (7/4: Nova Pro $1.40 / $5.60 vs $0.80 / $3.20
 *   per MTok), Flex −50 % (1/2), Batch inference −50 % (1/2). `reserved` (Reserved capacity) is billed
 *   by the commitment, not per token: priced as standard.
 */

/** The normalized service tier of a call. */
export type ServiceTier = 'standard' | 'batch' | 'flex' | 'priority';

/** An exact non-negative rational number; `den > 0`. */
export interface Rational {
  readonly num: number;
  readonly den: number;
}

/** Multiplier 1. */
export const ONE: Rational = { num: 1, den: 1 };
const HALF: Rational = { num: 1, den: 2 };
const TWO: Rational = { num: 2, den: 1 };
/** Standard + 75 %: Bedrock's Priority tier, and several OpenAI models' priority prices. */
const SEVEN_FOURTHS: Rational = { num: 7, den: 4 };

/** Tier strings as providers report them → normalized tier. Other values are normalized first. */
const TIER_BY_RAW = new Map<string, ServiceTier>([
  ['batch', 'batch'],
  ['flex', 'flex'],
  ['priority', 'priority'],
  ['performance', 'priority'],
  ['default', 'standard'],
  ['auto', 'standard'],
  ['standard', 'standard'],
  ['standard_only', 'standard'],
  ['on_demand', 'standard'],
  ['scale', 'standard'],
  ['reserved', 'standard'],
]);

/**
 * Normalizes a provider-reported or requested service tier (case-insensitive). Unknown values are
 * `standard`: the dataset's list price, which is the right price for OpenAI's `default`/`scale`,
 * Anthropic's `standard`, Groq's `on_demand` and for any tier a provider introduces before we know
 * its price.
 */
export function normalizeServiceTier(raw: string | null | undefined): ServiceTier {
  if (raw === null || raw === undefined) return 'standard';
  return TIER_BY_RAW.get(raw) ?? TIER_BY_RAW.get(raw.trim().toLowerCase()) ?? 'standard';
}

/**
 * OpenAI priority processing as multiples of the standard price, by dataset model id
 * (openai.com/api-priority-processing: price per 1M input / cached input / output tokens).
 */
export const OPENAI_PRIORITY_MULTIPLIERS: Readonly<Record<string, Rational>> = {
  'gpt-5.4': TWO, // $5.00 / $0.50 / $30.00 vs $2.50 / $0.25 / $15.00
  'gpt-5.4-mini': TWO, // $1.50 / $0.15 / $9.00 vs $0.75 / $0.075 / $4.50
  'gpt-5.2': TWO, // $3.50 / $0.35 / $28.00 vs $1.75 / $0.175 / $14.00
  'gpt-5.1': TWO, // $2.50 / $0.25 / $20.00 (gpt-5.1 and gpt-5.1-codex)
  'gpt-5': TWO, // $2.50 / $0.25 / $20.00 (gpt-5 and gpt-5-codex)
  'gpt-5-mini': { num: 9, den: 5 }, // $0.45 / $0.045 / $3.60 vs $0.25 / $0.025 / $2.00
  'gpt-4.1': SEVEN_FOURTHS, // $3.50 / $0.875 / $14.00 vs $2.00 / $0.50 / $8.00
  'gpt-4.1-mini': SEVEN_FOURTHS, // $0.70 / $0.175 / $2.80
  'gpt-4.1-nano': TWO, // $0.20 / $0.05 / $0.80
  'gpt-4o': { num: 17, den: 10 }, // $4.25 / $2.125 / $17.00 (2024-08-06, 2024-11-20)
  'gpt-4o-2024-05-13': SEVEN_FOURTHS, // $8.75 / $26.25 vs $5.00 / $15.00
  'gpt-4o-mini': { num: 5, den: 3 }, // $0.25 / $0.125 / $1.00 vs $0.15 / $0.075 / $0.60
  o3: SEVEN_FOURTHS, // $3.50 / $0.875 / $14.00 vs $2.00 / $0.50 / $8.00
  'o4-mini': { num: 20, den: 11 }, // $2.00 / $0.50 / $8.00 vs $1.10 / $0.275 / $4.40
};

/** Multipliers for one (provider, model): what the hot path reads. */
export interface TierMultipliers {
  readonly standard: Rational;
  readonly batch: Rational;
  readonly flex: Rational;
  readonly priority: Rational;
}

/**
 * The tier multipliers for a call to `provider` (Spendguard id: the API that was called) whose price
 * came from dataset model `matchedModel` (or a fallback family id).
 */
export function tierMultipliersFor(provider: string, matchedModel: string): TierMultipliers {
  const id = provider.trim().toLowerCase();
  switch (id) {
    case 'openai':
    case 'azure':
      return {
        standard: ONE,
        batch: HALF,
        flex: HALF,
        priority: id === 'openai' ? (OPENAI_PRIORITY_MULTIPLIERS[matchedModel] ?? TWO) : TWO,
      };
    case 'gemini':
    case 'google':
      return { standard: ONE, batch: HALF, flex: HALF, priority: TWO };
    case 'bedrock':
    case 'aws':
      return { standard: ONE, batch: HALF, flex: HALF, priority: SEVEN_FOURTHS };
    default:
      return { standard: ONE, batch: HALF, flex: ONE, priority: ONE };
  }
}

/** Multiplies two rationals and reduces the result to lowest terms. */
export function multiplyRationals(a: Rational, b: Rational): Rational {
  return reduceRational({ num: a.num * b.num, den: a.den * b.den });
}

function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

/** Reduces a rational to lowest terms. */
export function reduceRational(r: Rational): Rational {
  if (r.num === 0) return { num: 0, den: 1 };
  const g = gcd(r.num, r.den);
  return { num: r.num / g, den: r.den / g };
}
