/** Money at the edges: state and sums are integer nano-USD; verdicts speak dollars. */
import { MAX_NANOS } from './limits';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { round } = Math;

export const NANOS_PER_USD = 1_000_000_000;

/** Dollars of an integer nano-USD amount (for verdicts and messages only). */
export function nanosToUsd(nanos: number): number {
  return nanos / NANOS_PER_USD;
}

/** Integer nano-USD of a dollar amount, rounded to the nearest nano. */
export function usdToNanos(usd: number): number {
  return round(usd * NANOS_PER_USD);
}

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
