/**
 * The compact, compiled price of one model: what the hot path reads.
 *
 * A dataset price table (USD per million tokens, optional tiers, optional conditions) is compiled once
 * into integer pico-USD per token for the six token classes we bill, plus long-context bands. Missing
 * prices are filled by the dataset's own rules (a cache read or write without its own price is billed
 * as plain input, a 1-hour write without its own price as a 5-minute write, reasoning as output), except
 * for Anthropic models, where Anthropic's published multipliers apply (see {@link ANTHROPIC_CACHE_RULE}).
 */
import { MoneyRangeError, PriceDataError } from './errors';
import { scaleDecimal, usdPerMTokToPicos } from './money';
import type {
  ConditionalPriceData,
  PriceConstraintData,
  PriceTableData,
  PriceValueData,
} from './snapshot-schema';

/** Integer pico-USD per token for each token class (1 USD/MTok = 1,000,000). */
export interface TokenRates {
  /** Uncached input tokens. */
  readonly input: number;
  /** Generated tokens (reasoning included unless `reasoning` differs). */
  readonly output: number;
  /** Reasoning tokens; equal to `output` unless the dataset prices them separately. */
  readonly reasoning: number;
  /** Input tokens served from the prompt cache. */
  readonly cacheRead: number;
  /** Input tokens written to a 5-minute cache (the default TTL; genai-prices' `cache_write_mtok`). */
  readonly cacheWrite5m: number;
  /** Input tokens written to a 1-hour cache. */
  readonly cacheWrite1h: number;
}

/** Rates that apply when the request's prompt (all input tokens, cached ones included) exceeds a threshold. */
export interface LongContextBand {
  /** The band applies when total input tokens are strictly greater than this. */
  readonly aboveInputTokens: number;
  /** Rates for ALL tokens of the request in this band (the "cliff": not only the tokens above it). */
  readonly rates: TokenRates;
}

/** A model's compiled price: base rates plus long-context bands, ascending by threshold. */
export interface ModelPrice {
  readonly base: TokenRates;
  readonly longContext: readonly LongContextBand[];
  /**
   * Integer nano-USD per server-side web search (genai-prices `web_searches_kcount`, USD per 1,000:
   * $10/1k = 10,000,000 nanos); absent or 0 when the price data has no such fee.
   */
  readonly webSearchNanos?: number;
}

/** Nano-USD per request for a price given in USD per 1,000 requests (`*_kcount`). */
const KCOUNT_DECIMALS = 6;

/** When a price period applies. `null` means always. */
export type PriceConstraint =
  | { readonly kind: 'since'; readonly startMs: number }
  | { readonly kind: 'time-of-day'; readonly startSecond: number; readonly endSecond: number };

/** A price and the condition under which it applies. */
export interface PricePeriod {
  readonly constraint: PriceConstraint | null;
  readonly price: ModelPrice;
}

/** How missing cache prices of a model are derived. */
export type CacheRule = 'dataset' | 'anthropic';

/**
 * Anthropic's published prompt-caching multipliers of the base input price: cache read 0.1×,
 * 5-minute write 1.25×, 1-hour write 2× (platform.claude.com/docs/en/about-claude/pricing). Applied to
 * Claude models (on any provider) only for the prices the dataset does not give.
 */
export const ANTHROPIC_CACHE_RULE = {
  cacheRead: { num: 1, den: 10 },
  cacheWrite5m: { num: 5, den: 4 },
  cacheWrite1h: { num: 2, den: 1 },
} as const;

/** Dataset keys read for each token class, most specific first (text-only keys win over generic ones). */
const PRICE_KEYS = {
  input: ['input_text_mtok', 'input_mtok'],
  output: ['output_text_mtok', 'output_mtok'],
  reasoning: ['output_text_reasoning_mtok', 'output_reasoning_mtok'],
  cacheRead: ['cache_text_read_mtok', 'cache_read_mtok'],
  cacheWrite5m: [
    'cache_text_write_5m_mtok',
    'cache_write_5m_mtok',
    'cache_text_write_mtok',
    'cache_write_mtok',
  ],
  cacheWrite1h: ['cache_text_write_1h_mtok', 'cache_write_1h_mtok'],
} as const satisfies Record<keyof TokenRates, readonly string[]>;

type RateKey = keyof TokenRates;

const RATE_KEYS: readonly RateKey[] = [
  'input',
  'output',
  'reasoning',
  'cacheRead',
  'cacheWrite5m',
  'cacheWrite1h',
];

/** A dataset price converted to picos: base plus ascending tiers. */
interface PicoSchedule {
  readonly base: number;
  readonly tiers: readonly { readonly start: number; readonly picos: number }[];
}

function toSchedule(value: PriceValueData): PicoSchedule {
  if (typeof value === 'number') return { base: usdPerMTokToPicos(value), tiers: [] };
  const tiers = [...value.tiers]
    .sort((a, b) => a.start - b.start)
    .map((tier) => ({ start: tier.start, picos: usdPerMTokToPicos(tier.price) }));
  return { base: usdPerMTokToPicos(value.base), tiers };
}

/** The price of a schedule for requests with more than `above` input tokens (`-1` = the base price). */
function scheduleAt(schedule: PicoSchedule, above: number): number {
  let picos = schedule.base;
  for (const tier of schedule.tiers) if (above >= tier.start) picos = tier.picos;
  return picos;
}

function scaleRational(picos: number, ratio: { readonly num: number; readonly den: number }): number {
  return Math.floor((picos * ratio.num * 2 + ratio.den) / (ratio.den * 2));
}

/** Whether a price table prices text tokens at all (an empty table means the model is free). */
export function isTokenPriced(table: PriceTableData): boolean {
  const keys = Object.keys(table).filter((key) => table[key] !== undefined);
  if (keys.length === 0) return true;
  return [...PRICE_KEYS.input, ...PRICE_KEYS.output].some((key) => table[key] !== undefined);
}

/**
 * Compiles one dataset price table into a {@link ModelPrice}.
 *
 * @throws PriceDataError (via MoneyRangeError) for negative or non-finite prices.
 */
export function compilePriceTable(table: PriceTableData, cacheRule: CacheRule): ModelPrice {
  const schedules: Partial<Record<RateKey, PicoSchedule>> = {};
  const thresholds = new Set<number>();
  for (const rateKey of RATE_KEYS) {
    for (const datasetKey of PRICE_KEYS[rateKey]) {
      const value = table[datasetKey];
      if (value === undefined) continue;
      const schedule = toSchedule(value);
      schedules[rateKey] = schedule;
      for (const tier of schedule.tiers) thresholds.add(tier.start);
      break;
    }
  }
  const ratesAt = (above: number): TokenRates => {
    const explicit = (key: RateKey): number | undefined => {
      const schedule = schedules[key];
      return schedule === undefined ? undefined : scheduleAt(schedule, above);
    };
    const input = explicit('input') ?? 0;
    const output = explicit('output') ?? 0;
    const anthropic = cacheRule === 'anthropic';
    const cacheRead =
      explicit('cacheRead') ?? (anthropic ? scaleRational(input, ANTHROPIC_CACHE_RULE.cacheRead) : input);
    const cacheWrite5m =
      explicit('cacheWrite5m') ??
      (anthropic ? scaleRational(input, ANTHROPIC_CACHE_RULE.cacheWrite5m) : input);
    const cacheWrite1h =
      explicit('cacheWrite1h') ??
      (anthropic ? scaleRational(input, ANTHROPIC_CACHE_RULE.cacheWrite1h) : cacheWrite5m);
    const reasoning = explicit('reasoning') ?? output;
    return { input, output, reasoning, cacheRead, cacheWrite5m, cacheWrite1h };
  };
  const longContext = [...thresholds]
    .sort((a, b) => a - b)
    .map((above) => ({ aboveInputTokens: above, rates: ratesAt(above) }));
  const webSearch = table.web_searches_kcount;
  const webSearchUsdPerK = typeof webSearch === 'number' ? webSearch : webSearch?.base;
  return {
    base: ratesAt(-1),
    longContext,
    ...(webSearchUsdPerK !== undefined &&
      webSearchUsdPerK > 0 && { webSearchNanos: perRequestNanos(webSearchUsdPerK) }),
  };
}

/**
 * Integer nano-USD per request for a price in USD per 1,000 requests, read from its shortest decimal
 * form (exact for ≤ 6 decimals).
 *
 * @throws MoneyRangeError for negative or non-finite prices.
 */
export function perRequestNanos(usdPerThousand: number): number {
  if (!(usdPerThousand >= 0)) {
    throw new MoneyRangeError(`A price must be a non-negative number, got ${String(usdPerThousand)}`);
  }
  return scaleDecimal(usdPerThousand, KCOUNT_DECIMALS);
}

/** Seconds after UTC midnight for a genai-prices time of day (`HH:MM:SS[.fff](Z|±HH:MM)`). */
export function parseTimeOfDay(value: string): number {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/.exec(value);
  if (m === null) throw new PriceDataError(`Invalid time of day: ${value}`);
  const local = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(`0.${m[4] ?? '0'}`);
  const offset = m[5] === 'Z' ? 0 : (m[6] === '+' ? 1 : -1) * (Number(m[7]) * 3600 + Number(m[8]) * 60);
  return (((local - offset) % 86400) + 86400) % 86400;
}

function compileConstraint(constraint: PriceConstraintData | undefined): PriceConstraint | null {
  if (constraint === undefined) return null;
  if ('start_date' in constraint) {
    const startMs = Date.parse(`${constraint.start_date}T00:00:00Z`);
    if (Number.isNaN(startMs)) throw new PriceDataError(`Invalid start_date: ${constraint.start_date}`);
    return { kind: 'since', startMs };
  }
  return {
    kind: 'time-of-day',
    startSecond: parseTimeOfDay(constraint.start_time),
    endSecond: parseTimeOfDay(constraint.end_time),
  };
}

/** Whether a model's prices are a list of conditional prices (rather than one table). */
export function isConditionalPrices(
  prices: PriceTableData | readonly ConditionalPriceData[],
): prices is readonly ConditionalPriceData[] {
  return Array.isArray(prices);
}

/** Compiles a model's (possibly conditional) prices into periods, in dataset order. */
export function compilePeriods(
  prices: PriceTableData | readonly ConditionalPriceData[],
  cacheRule: CacheRule,
): readonly PricePeriod[] {
  const entries: readonly ConditionalPriceData[] = isConditionalPrices(prices) ? prices : [{ prices }];
  return entries.map((entry) => ({
    constraint: compileConstraint(entry.constraint),
    price: compilePriceTable(entry.prices, cacheRule),
  }));
}

const MS_PER_DAY = 86_400_000;

function constraintHolds(constraint: PriceConstraint, atMs: number): boolean {
  if (constraint.kind === 'since') return atMs >= constraint.startMs;
  const second = (((atMs % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY) / 1000;
  const { startSecond, endSecond } = constraint;
  return endSecond < startSecond
    ? second >= startSecond || second < endSecond
    : second >= startSecond && second < endSecond;
}

/**
 * The price in force at `atMs` (epoch milliseconds): periods are tried last to first and the first
 * whose constraint holds wins; when none holds, the first period applies (genai-prices semantics).
 */
export function selectPeriodPrice(periods: readonly PricePeriod[], atMs: number): ModelPrice {
  for (let i = periods.length - 1; i >= 0; i--) {
    const period = periods[i] as PricePeriod;
    if (period.constraint === null || constraintHolds(period.constraint, atMs)) return period.price;
  }
  const first = periods[0];
  if (first === undefined) throw new PriceDataError('A model has no prices');
  return first.price;
}

/** The rates that apply to a request with `promptTokens` input tokens (cached ones included). */
export function ratesForPrompt(price: ModelPrice, promptTokens: number): TokenRates {
  let rates = price.base;
  for (const band of price.longContext) {
    if (promptTokens > band.aboveInputTokens) rates = band.rates;
    else break;
  }
  return rates;
}

/** Hand-written prices in USD per million tokens (fallback families, negotiated rates). */
export interface UsdRates {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite5m?: number;
  readonly cacheWrite1h?: number;
  readonly reasoning?: number;
}

/**
 * Compiles {@link UsdRates} (plus optional long-context bands) into a {@link ModelPrice}. Unset cache
 * prices default to the input price (the conservative choice), the 1-hour write to the 5-minute write,
 * reasoning to output. The SDK decodes its generated price table with it too.
 */
export function modelPriceFromUsd(
  base: UsdRates,
  longContext: readonly { readonly aboveInputTokens: number; readonly rates: UsdRates }[] = [],
): ModelPrice {
  const toRates = (usd: UsdRates): TokenRates => {
    const input = usdPerMTokToPicos(usd.input);
    const output = usdPerMTokToPicos(usd.output);
    const cacheWrite5m = usd.cacheWrite5m === undefined ? input : usdPerMTokToPicos(usd.cacheWrite5m);
    return {
      input,
      output,
      reasoning: usd.reasoning === undefined ? output : usdPerMTokToPicos(usd.reasoning),
      cacheRead: usd.cacheRead === undefined ? input : usdPerMTokToPicos(usd.cacheRead),
      cacheWrite5m,
      cacheWrite1h: usd.cacheWrite1h === undefined ? cacheWrite5m : usdPerMTokToPicos(usd.cacheWrite1h),
    };
  };
  return {
    base: toRates(base),
    longContext: [...longContext]
      .sort((a, b) => a.aboveInputTokens - b.aboveInputTokens)
      .map((band) => ({ aboveInputTokens: band.aboveInputTokens, rates: toRates(band.rates) })),
  };
}
