/**
 * Saturating sums for the counters the pipeline adds up (aggregates: nano-USD, calls, tokens).
 *
 * Integers above 2^53 − 1 are no longer exact doubles, and the DynamoDB document marshaller refuses
 * them (it throws, which once failed a Kinesis record until the dead-letter queue and held back its
 * shard: issue 15.2). A sum therefore stops at {@link MAX_SUM} (≈ $9.0M in nano-USD, 9·10^15 tokens):
 * past it the figure reads "at least this much", which is all a budget or a dashboard needs.
 * @module
 */

/** The ceiling of every stored sum: `Number.MAX_SAFE_INTEGER`. */
export const MAX_SUM = Number.MAX_SAFE_INTEGER;

/** `a + b` for non-negative integers, at most {@link MAX_SUM}. */
export function saturatingAdd(a: number, b: number): number {
  const sum = a + b;
  return sum > MAX_SUM ? MAX_SUM : sum;
}
