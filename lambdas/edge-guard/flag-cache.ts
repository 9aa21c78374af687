/**
 * A short-lived, bounded cache of flag lookups in front of the flag store. Positive answers (a flag),
 * negative answers (no flag) and failures are all kept for the TTL, so a busy key costs one read per
 * TTL and an unreachable store is asked once per TTL per key rather than on every request.
 * Concurrent misses for one key share one read.
 */
import type { FlagLookup } from './decide';

interface Entry {
  readonly value: FlagLookup;
  readonly at: number;
}

export class FlagCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<FlagLookup>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The cached lookup for `key` if it is younger than the TTL at `nowMs`, else undefined. */
  peek(key: string, nowMs: number): { value: FlagLookup } | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined || nowMs - hit.at >= this.ttlMs || nowMs < hit.at) return undefined;
    return hit;
  }

  /** The cached lookup, or `load()`'s answer (shared by concurrent callers, then cached). */
  get(key: string, nowMs: number, load: () => Promise<FlagLookup>): FlagLookup | Promise<FlagLookup> {
    const hit = this.peek(key, nowMs);
    if (hit !== undefined) return hit.value;
    const inflight = this.pending.get(key);
    if (inflight !== undefined) return inflight;
    const p = load().then(
      (value) => {
        this.set(key, value, nowMs);
        this.pending.delete(key);
        return value;
      },
      () => {
        this.set(key, 'error', nowMs);
        this.pending.delete(key);
        return 'error' as const;
      },
    );
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

  private set(key: string, value: FlagLookup, at: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, at });
  }
}
