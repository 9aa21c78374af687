/**
 * A short-lived, bounded cache of flag lookups in front of the flag store. Negative answers (no flag)
 * and failures are kept for the TTL, so a busy key costs one read per TTL and an unreachable store is
 * asked once per TTL per key rather than on every request: a new flag reaches a warm container within
 * the TTL (the enforcement call waits that long before it answers, lambdas/shared/flag-propagation.ts).
 *
 * Positive answers (a flag) are read again on every request that would meet them, so a Resume is seen
 * by the very next call (spec 1.5: "cleared at once"): only flagged keys pay that read, and their calls
 * are refused or throttled anyway. A re-read that fails keeps the flag for the rest of its TTL (a store
 * hiccup does not lift a kill). Concurrent misses for one key share one read.
 */
import type { FlagLookup } from './decide';

interface Entry {
  readonly value: FlagLookup;
  readonly at: number;
}

/** A lookup that found a flag record (not "no flag", not a failure, not an unreadable item). */
function isFlag(value: FlagLookup): boolean {
  return typeof value === 'object' && !('invalid' in value);
}

export class FlagCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<FlagLookup>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /**
   * The cached lookup for `key` if it is younger than the TTL at `nowMs` and may be used without a read
   * (no flag, or a failure); else undefined.
   */
  peek(key: string, nowMs: number): { value: FlagLookup } | undefined {
    const hit = this.fresh(key, nowMs);
    return hit === undefined || isFlag(hit.value) ? undefined : hit;
  }

  /** The cached lookup, or `load()`'s answer (shared by concurrent callers, then cached). */
  get(key: string, nowMs: number, load: () => Promise<FlagLookup>): FlagLookup | Promise<FlagLookup> {
    const hit = this.fresh(key, nowMs);
    if (hit !== undefined && !isFlag(hit.value)) return hit.value;
    const inflight = this.pending.get(key);
    if (inflight !== undefined) return inflight;
    const kept = hit;
    const failed = (): FlagLookup => {
      this.pending.delete(key);
      if (kept !== undefined) return kept.value;
      this.set(key, 'error', nowMs);
      return 'error';
    };
    const p = load().then((value) => {
      if (value === 'error') return failed();
      this.set(key, value, nowMs);
      this.pending.delete(key);
      return value;
    }, failed);
    this.pending.set(key, p);
    return p;
  }

  /** Forgets every entry (tests; a pepper change). */
  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private fresh(key: string, nowMs: number): Entry | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined || nowMs - hit.at >= this.ttlMs || nowMs < hit.at) return undefined;
    return hit;
  }

  private set(key: string, value: FlagLookup, at: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, at });
  }
}
