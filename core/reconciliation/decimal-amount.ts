/** Exact conversion of the providers' decimal money strings to integer nano-USD (no float on the way). */

const DECIMAL_RE = /^(\d+)(?:\.(\d+))?$/;

/**
 * A non-negative decimal string scaled by 10^`shift` and rounded half-up, computed on the digits.
 *
 * @example decimalStringToNanos('123.45', 7) // Anthropic cents → nanos: 1_234_500_000 ($1.2345)
 * @throws RangeError for a string that is not a plain decimal or a result beyond a safe integer
 */
export function decimalStringToNanos(amount: string, shift: number): number {
  const m = DECIMAL_RE.exec(amount);
  if (!m) throw new RangeError(`not a decimal amount: ${JSON.stringify(amount.slice(0, 40))}`);
  const whole = m[1] ?? '0';
  const frac = m[2] ?? '';
  const kept = frac.slice(0, shift).padEnd(shift, '0');
  const roundUp = (frac[shift] ?? '0') >= '5';
  const digits = BigInt(whole + kept) + (roundUp ? 1n : 0n);
  if (digits > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(`amount too large: ${amount.slice(0, 40)}`);
  return Number(digits);
}

/** Anthropic's cost report amounts are in cents: 1 cent = 10^7 nano-USD. */
export const CENT_DECIMALS_TO_NANOS = 7;
