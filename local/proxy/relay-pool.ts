/**
 * The relay as Lambda runs it (design decision 14): a pool of containers, each serving one invocation at a
 * time, created on demand up to the reserved concurrency, frozen between invocations (its timers do not
 * run), reused most-recently-used first, recycled after an idle time. Every container is its own lease
 * holder with its own caches, as in AWS, so the local stack, the demo, the benchmarks and the tests see
 * as many holders as the deployment would.
 *
 * Beyond the concurrency, invocations wait in order for a container (`overflow: 'queue'`, the default) or
 * are refused the way Lambda throttles (`'throttle'`: 429 `TooManyRequestsException`); see docs/local.md.
 */
import type { Timers } from '../../lambdas/shared/timers';
import { FreezableTimers } from './freezable-timers';

/** The relay's reserved concurrency in the CDK stack (`DEFAULT_RELAY_RESERVED_CONCURRENCY`, lib/edge.ts) and the pool's default size. */
export const DEFAULT_RELAY_CONCURRENCY = 100;

/** Lambda recycles idle containers after minutes (not documented; 5–15 minutes observed). @default 10 min */
export const DEFAULT_RELAY_IDLE_MS = 600_000;

/** What one container runs: built per container, with the container's timers. */
export interface ContainerParts<R> {
  /** What an invocation is given (the relay). */
  readonly relay: R;
  /** Work that must finish before the container is frozen (pending lease operations). Never rejects. */
  beforeFreeze?(): Promise<void>;
  /** Whether the container holds something it would lose if recycled now (spooled events). */
  busy?(): boolean;
  /** Shutdown of the whole stack: return what it holds (lease slices), flush spools. Never rejects. */
  shutdown?(): Promise<void>;
  /** The container is recycled (Lambda drops it: slices it holds lapse at their expiry). */
  dispose?(): void;
}

export interface RelayPoolOptions<R> {
  /** Builds a container's parts over its timers. */
  readonly build: (timers: Timers, containerId: number) => ContainerParts<R>;
  /** Containers at most (the relay's reserved concurrency). @default 100 */
  readonly concurrency?: number;
  /** An idle container is recycled after this long. @default 10 min */
  readonly idleMs?: number;
  /** Beyond the concurrency: wait for a container, or refuse as Lambda throttles. @default 'queue' */
  readonly overflow?: 'queue' | 'throttle';
  readonly now?: () => number;
}

/** A container of the pool (read-only view for tests and the CLI). */
export interface RelayContainer<R> {
  readonly id: number;
  readonly relay: R;
  readonly timers: FreezableTimers;
  readonly invocations: number;
}

interface Slot<R> {
  readonly id: number;
  readonly parts: ContainerParts<R>;
  readonly timers: FreezableTimers;
  invocations: number;
  idleSinceMs: number;
}

/** What {@link RelayPool.invoke} answers when throttled. */
export const THROTTLED: unique symbol = Symbol('throttled');

/** Lambda's answer to an invocation over the reserved concurrency (Function URL: 429, retryable). */
export const THROTTLED_RESPONSE = {
  status: 429,
  headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' },
  body: JSON.stringify({
    Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded',
    Type: 'User',
    message: 'Rate Exceeded.',
  }),
} as const;

export class RelayPool<R> {
  readonly concurrency: number;
  private readonly idleMs: number;
  private readonly overflow: 'queue' | 'throttle';
  private readonly now: () => number;
  /** Idle (frozen) containers, most recently used last. */
  private readonly idle: Slot<R>[] = [];
  private readonly all = new Set<Slot<R>>();
  private readonly waiting: Array<(slot: Slot<R>) => void> = [];
  private nextId = 1;
  private created = 0;
  private recycled = 0;
  private last: Slot<R> | undefined;
  private readonly sweeper: ReturnType<typeof setInterval>;
  private closed = false;

  constructor(private readonly opts: RelayPoolOptions<R>) {
    const c = opts.concurrency ?? DEFAULT_RELAY_CONCURRENCY;
    if (!Number.isInteger(c) || c < 1)
      throw new Error(`relay concurrency must be a whole number ≥ 1, got ${c}`);
    this.concurrency = c;
    this.idleMs = opts.idleMs ?? DEFAULT_RELAY_IDLE_MS;
    this.overflow = opts.overflow ?? 'queue';
    this.now = opts.now ?? Date.now;
    this.sweeper = setInterval(() => this.recycleIdle(), Math.max(50, Math.min(this.idleMs, 30_000)));
    this.sweeper.unref();
  }

  /**
   * Runs one invocation on a container: an idle one (thawed first: its due timers run), a new one while
   * under the concurrency, else the first one freed (or {@link THROTTLED}). The container is frozen once
   * `fn` has settled AND its pending lease work has finished, as Lambda freezes it right after the
   * response.
   */
  async invoke<T>(fn: (relay: R) => Promise<T>): Promise<T | typeof THROTTLED> {
    const slot = this.acquire();
    const s = slot instanceof Promise ? await slot : slot;
    if (s === undefined) return THROTTLED;
    this.last = s;
    s.invocations++;
    try {
      return await fn(s.parts.relay);
    } finally {
      await s.parts.beforeFreeze?.();
      this.release(s);
    }
  }

  /** Containers alive now (busy and idle). */
  get size(): number {
    return this.all.size;
  }

  /** Containers created since start, and recycled since start. */
  stats(): { created: number; recycled: number; live: number; idle: number; waiting: number } {
    return {
      created: this.created,
      recycled: this.recycled,
      live: this.all.size,
      idle: this.idle.length,
      waiting: this.waiting.length,
    };
  }

  /** Every live container (tests). */
  containers(): RelayContainer<R>[] {
    return [...this.all].map((s) => ({
      id: s.id,
      relay: s.parts.relay,
      timers: s.timers,
      invocations: s.invocations,
    }));
  }

  /** The container that served the latest invocation (single-caller tests). */
  lastUsed(): RelayContainer<R> | undefined {
    const s = this.last;
    return s === undefined
      ? undefined
      : { id: s.id, relay: s.parts.relay, timers: s.timers, invocations: s.invocations };
  }

  /** Recycles containers idle for longer than the idle time (also run by a timer). */
  recycleIdle(): void {
    const cutoff = this.now() - this.idleMs;
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const s = this.idle[i] as Slot<R>;
      if (s.idleSinceMs > cutoff || s.parts.busy?.() === true) continue;
      this.idle.splice(i, 1);
      this.all.delete(s);
      this.recycled++;
      s.timers.dispose();
      s.parts.dispose?.();
    }
  }

  /**
   * Stack shutdown: no new containers; every container is thawed (its due work runs) and shut down once
   * its invocation has ended. Call after the server stopped taking requests.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    await Promise.all(
      [...this.all].map(async (s) => {
        s.timers.thaw();
        await s.parts.beforeFreeze?.();
        await s.parts.shutdown?.();
        s.timers.dispose();
        s.parts.dispose?.();
      }),
    );
  }

  private acquire(): Slot<R> | Promise<Slot<R>> | undefined {
    const warm = this.idle.pop();
    if (warm !== undefined) {
      warm.timers.thaw();
      return warm;
    }
    if (this.all.size < this.concurrency) return this.create();
    if (this.overflow === 'throttle') return undefined;
    return new Promise<Slot<R>>((resolve) => this.waiting.push(resolve));
  }

  private create(): Slot<R> {
    const id = this.nextId++;
    const timers = new FreezableTimers();
    const slot: Slot<R> = { id, timers, parts: this.opts.build(timers, id), invocations: 0, idleSinceMs: 0 };
    this.all.add(slot);
    this.created++;
    return slot;
  }

  private release(s: Slot<R>): void {
    const next = this.waiting.shift();
    if (next !== undefined) {
      next(s); // straight to the next invocation: frozen and thawed at once, nothing falls due between
      return;
    }
    s.timers.freeze();
    s.idleSinceMs = this.now();
    this.idle.push(s);
  }
}
