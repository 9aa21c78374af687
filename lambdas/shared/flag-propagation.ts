/**
 * How long a new kill flag takes to be in force at every guard (the edge's and the relay's own), and
 * the wait that makes `POST /api/guardrails/enforce` answer only once it is: a caller that pushes a
 * kill and then makes a call meets the kill (spec 3: "edge rejects subsequent calls").
 *
 * Guards keep "no flag" for {@link FLAG_CACHE_TTL_MS} (edge-guard/flag-cache.ts), so a warm container
 * sees a new flag that long after it is written at the latest, plus the flags table's replication to
 * the guard's nearest replica in AWS. Flags themselves are read again on every call they meet, so a
 * Resume needs no wait.
 */

/** Lifetime of a guard's cached "no flag" (and of a cached store failure). */
export const FLAG_CACHE_TTL_MS = 1000;

/**
 * Allowance for the flags table's replication to another region (DynamoDB global tables replicate
 * within about a second; their `ReplicationLatency` metric watches it, docs/operations.md).
 */
export const FLAG_REPLICATION_ALLOWANCE_MS = 1000;

/** What the enforcement call waits after writing a kill, with or without replica regions. */
export function flagPropagationMs(replicated: boolean): number {
  return FLAG_CACHE_TTL_MS + (replicated ? FLAG_REPLICATION_ALLOWANCE_MS : 0);
}
