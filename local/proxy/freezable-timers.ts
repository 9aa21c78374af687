/**
 * A container's timers, as Lambda runs them (design decision 14): they run while the container serves an
 * invocation and not while it is frozen; what fell due while frozen runs when it is thawed, before the
 * next invocation is handled (a frozen Lambda container's timers fire late, at its next invocation).
 */
import type { Timers } from '../../lambdas/shared/timers';

interface Pending {
  readonly fn: () => void;
  /** The process timer while it has not fired; undefined once due. */
  handle: ReturnType<typeof setTimeout> | undefined;
}

export class FreezableTimers implements Timers {
  private frozen = false;
  private disposed = false;
  private readonly pending = new Set<Pending>();
  /** Callbacks that fell due while frozen, in the order they fell due. */
  private readonly due: Pending[] = [];

  setTimeout(fn: () => void, ms: number): unknown {
    const p: Pending = { fn, handle: undefined };
    if (this.disposed) return p;
    p.handle = setTimeout(() => {
      p.handle = undefined;
      if (this.frozen) {
        this.due.push(p);
        return;
      }
      this.pending.delete(p);
      p.fn();
    }, ms);
    p.handle.unref?.();
    this.pending.add(p);
    return p;
  }

  clearTimeout(handle: unknown): void {
    const p = handle as Pending;
    if (!this.pending.delete(p)) return;
    if (p.handle !== undefined) clearTimeout(p.handle);
    const i = this.due.indexOf(p);
    if (i >= 0) this.due.splice(i, 1);
  }

  /** Whether the container is frozen now. */
  get isFrozen(): boolean {
    return this.frozen;
  }

  /** Callbacks waiting for the thaw. */
  get dueCount(): number {
    return this.due.length;
  }

  /** From now on, timers that fall due wait for {@link thaw}. */
  freeze(): void {
    this.frozen = true;
  }

  /** Runs what fell due while frozen (in order), then lets timers run again. */
  thaw(): void {
    this.frozen = false;
    for (const p of this.due.splice(0)) {
      if (!this.pending.delete(p)) continue;
      try {
        p.fn();
      } catch {
        // a timer callback's error must not stop the thaw (the process timer would have reported it)
      }
    }
  }

  /** The container is gone: nothing scheduled runs any more. */
  dispose(): void {
    this.disposed = true;
    for (const p of this.pending) if (p.handle !== undefined) clearTimeout(p.handle);
    this.pending.clear();
    this.due.length = 0;
  }
}
