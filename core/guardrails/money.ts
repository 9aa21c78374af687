/** Money at the edges: state and sums are integer nano-USD; verdicts speak dollars. */
import { MAX_NANOS } from './limits';
import { nanosToUsd } from '../pricing/money';

// One definition of the nano-USD conversions, shared with pricing (exact decimal scaling).
export { NANOS_PER_USD, nanosToUsd, usdToNanos } from '../pricing/money';

/** `$12.34` (cents, or sub-cent precision for amounts under a dollar). */
export function formatUsd(nanos: number): string {
  const usd = nanosToUsd(nanos);
  return `$${usd >= 1 || usd === 0 ? usd.toFixed(2) : usd.toPrecision(3)}`;
}

/** Sum of two nano amounts, saturating at `Number.MAX_SAFE_INTEGER` (≈ $9.0M) instead of losing precision. */
export function addNanos(a: number, b: number): number {
  const sum = a + b;
  return sum > MAX_NANOS ? MAX_NANOS : sum;
}
