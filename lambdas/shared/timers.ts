/**
 * The timers a request-path component schedules its background work with. In Lambda they are the
 * process's own timers, which do not run while the container is frozen; the local proxy's relay pool
 * passes timers it pauses while a container is idle, so the local stack behaves the same way
 * (design decision 14).
 */
export interface Timers {
  /** Runs `fn` once after `ms` (never keeps the process alive). */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer returned by {@link Timers.setTimeout}; unknown handles are ignored. */
  clearTimeout(handle: unknown): void;
}

/** The process's timers, unref'd. */
export const processTimers: Timers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};
