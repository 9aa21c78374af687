/**
 * Exact money arithmetic for pricing.
 *
 * Units:
 * - **Costs** are integer **nano-USD** (1 USD = 1,000,000,000 nanos). A JavaScript number holds every
 *   integer up to `Number.MAX_SAFE_INTEGER` (2^53 − 1) exactly, so one cost value is exact up to
 *   9,007,199,254,740,991 nanos ≈ **$9,007,199.25**. Sums beyond that (monthly totals of a very large
 *   organization) must be kept as `bigint` or in DynamoDB numbers (38 significant digits, `ADD` is exact).
 * - **Prices** are integer **pico-USD per token** (1 USD per million tokens = 1,000,000 pico-USD per token).
 *   Every published list price has at most 6 decimals in USD/MTok (e.g. $0.003625/MTok = 3,625 pico-USD
 *   per token), so the conversion is exact; a price with more decimals (OpenRouter publishes
 *   0.08333333333333334) is rounded half-up to the nearest pico-USD per token (error < 5e-13 USD/token).
 *
 * Rounding: a cost component (uncached input, cache reads, cache writes, output) is computed exactly as
 * a rational number of nano-USD and rounded **half-up once**, at the end of that component. The total is
 * the exact integer sum of the rounded components, so `total === Σ components` always holds.
 */
import { MoneyRangeError } from './errors';

/** Nano-USD in one US dollar. */
export const NANOS_PER_USD = 1_000_000_000;

/** Pico-USD in one nano-USD. */
export const PICOS_PER_NANO = 1_000;

/** Pico-USD per token that correspond to a price of 1 USD per million tokens. */
export const PICOS_PER_TOKEN_PER_USD_PER_MTOK = 1_000_000;

/** Decimal places kept when converting USD to nanos. */
const NANO_DECIMALS = 9;

/** Decimal places kept when converting USD/MTok to pico-USD per token. */
const PICO_PER_TOKEN_DECIMALS = 6;

const DECIMAL_RE = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * Scales a finite decimal number by 10^decimals and rounds half away from zero, working on the
 * shortest decimal representation of the number (what `String(x)` prints) rather than on its binary
 * approximation, so `0.1 → 100_000_000` nanos exactly and `2.675 → 2_675_000_000`.
 *
 * @throws MoneyRangeError when the value is not finite or the result is not a safe integer.
 */
export function scaleDecimal(value: number, decimals: number): number {
  if (!Number.isFinite(value)) {
    throw new MoneyRangeError(`Expected a finite amount, got ${String(value)}`);
  }
  const negative = value < 0;
  const match = DECIMAL_RE.exec(String(Math.abs(value)));
  if (match === null) {
    throw new MoneyRangeError(`Cannot read the decimal amount ${String(value)}`);
  }
  const intDigits = match[1] ?? '0';
  const fracDigits = match[2] ?? '';
  const exponent = Number(match[3] ?? '0');
  const digits = intDigits + fracDigits;
  // Position of the decimal point inside `digits` once the value is multiplied by 10^decimals.
  const point = intDigits.length + exponent + decimals;
  let magnitude: number;
  if (point >= digits.length) {
    magnitude = Number(digits + '0'.repeat(point - digits.length));
  } else if (point <= 0) {
    magnitude = point === 0 && (digits[0] ?? '0') >= '5' ? 1 : 0;
  } else {
    magnitude = Number(digits.slice(0, point)) + ((digits[point] ?? '0') >= '5' ? 1 : 0);
  }
  if (!Number.isSafeInteger(magnitude)) {
    throw new MoneyRangeError(`${String(value)} × 10^${decimals} exceeds the exact integer range`);
  }
  return negative && magnitude !== 0 ? -magnitude : magnitude;
}

/**
 * Converts US dollars to integer nano-USD (half away from zero at the 9th decimal).
 *
 * @example usdToNanos(2.5) === 2_500_000_000
 * @throws MoneyRangeError for non-finite amounts or |usd| above ≈ $9.007 million.
 */
export function usdToNanos(usd: number): number {
  return scaleDecimal(usd, NANO_DECIMALS);
}

/**
 * Converts integer nano-USD to US dollars as a float, for display and JSON at the edges only.
 * Never add the returned floats up; add nanos.
 *
 * @example nanosToUsd(2_500_000_000) === 2.5
 */
export function nanosToUsd(nanos: number): number {
  return nanos / NANOS_PER_USD;
}

/**
 * Formats integer nano-USD as an exact decimal string with 9 decimals (no float rounding).
 *
 * @example formatNanosAsUsd(2_500_000_001) === '2.500000001'
 */
export function formatNanosAsUsd(nanos: number): string {
  if (!Number.isSafeInteger(nanos)) {
    throw new MoneyRangeError(`Expected a safe integer amount of nanos, got ${String(nanos)}`);
  }
  const negative = nanos < 0;
  const digits = String(Math.abs(nanos)).padStart(NANO_DECIMALS + 1, '0');
  const whole = digits.slice(0, digits.length - NANO_DECIMALS);
  const fraction = digits.slice(digits.length - NANO_DECIMALS);
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/**
 * Converts a price in USD per million tokens to integer pico-USD per token.
 *
 * @example usdPerMTokToPicos(2.5) === 2_500_000   // gpt-4o input
 * @example usdPerMTokToPicos(0.075) === 75_000    // gpt-4o-mini cached input
 * @throws MoneyRangeError for negative or non-finite prices.
 */
export function usdPerMTokToPicos(usdPerMTok: number): number {
  if (!(usdPerMTok >= 0)) {
    throw new MoneyRangeError(`A price must be a non-negative number, got ${String(usdPerMTok)}`);
  }
  return scaleDecimal(usdPerMTok, PICO_PER_TOKEN_DECIMALS);
}

/** Converts integer pico-USD per token back to USD per million tokens (for display). */
export function picosToUsdPerMTok(picos: number): number {
  return picos / PICOS_PER_TOKEN_PER_USD_PER_MTOK;
}

/** Largest dividend for which {@link divRoundHalfUp} is exact on plain numbers (2^52). */
export const MAX_EXACT_DIVIDEND = 2 ** 52;

/**
 * `x / d` rounded half-up, for a non-negative integer `x ≤ 2^52` and a positive integer `d ≤ 2^40`.
 * The float quotient is corrected by the exact remainder `x − q·d` (exact: below 2^53), so the result
 * is exact where `Math.round(x / d)` would not be; it also avoids `%` on doubles, a slow runtime call.
 */
export function divRoundHalfUp(x: number, d: number): number {
  let q = Math.floor(x / d);
  let r = x - q * d;
  if (r < 0) {
    q -= 1;
    r += d;
  } else if (r >= d) {
    q += 1;
    r -= d;
  }
  return r * 2 >= d ? q + 1 : q;
}

/**
 * The nano-USD cost of up to two (tokens × price) terms scaled by the rational multiplier `num/den`,
 * rounded half-up once:
 *
 *   round( (tokensA × picosA + tokensB × picosB) × num / (den × 1000) )
 *
 * All arguments are non-negative safe integers, `den > 0`. Runs in plain number arithmetic when the
 * intermediate product fits 2^52 (every realistic call) and falls back to `bigint` otherwise. A result
 * above `Number.MAX_SAFE_INTEGER` (≈ $9.0 million for one component) saturates at that value.
 */
export function picoTermsToNanos(
  tokensA: number,
  picosA: number,
  tokensB: number,
  picosB: number,
  num: number,
  den: number,
): number {
  if (num === 0) return 0;
  // With num ≥ 1 every intermediate is ≤ x, and IEEE rounding is monotone: if the float x is within
  // 2^52, every intermediate product and sum was exact.
  const x = (tokensA * picosA + tokensB * picosB) * num;
  const d = den * PICOS_PER_NANO;
  if (x <= MAX_EXACT_DIVIDEND) return divRoundHalfUp(x, d);
  const bx = (BigInt(tokensA) * BigInt(picosA) + BigInt(tokensB) * BigInt(picosB)) * BigInt(num);
  const bd = BigInt(d);
  let q = bx / bd;
  if ((bx % bd) * 2n >= bd) q += 1n;
  return q > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(q);
}
