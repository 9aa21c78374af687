/**
 * Everything that differs between runtimes, feature-detected. No `node:` import anywhere: the same code
 * runs on Node.js, AWS Lambda, Deno, Bun, edge runtimes and browsers.
 */

interface ProcessLike {
  env?: Record<string, string | undefined>;
  on?: (event: string, listener: () => void) => unknown;
  off?: (event: string, listener: () => void) => unknown;
  removeListener?: (event: string, listener: () => void) => unknown;
}

interface EventTargetLike {
  addEventListener?: (type: string, listener: () => void, options?: unknown) => void;
  removeEventListener?: (type: string, listener: () => void) => void;
}

interface DocumentLike extends EventTargetLike {
  visibilityState?: string;
}

/** The WebCrypto members used (typed here: the DOM lib is not assumed). */
interface CryptoLike {
  randomUUID?: () => string;
  getRandomValues?: (array: Uint8Array) => Uint8Array;
}

interface DenoLike {
  unrefTimer?: (id: number) => void;
}

type Global = typeof globalThis & {
  process?: ProcessLike;
  document?: DocumentLike;
  Deno?: DenoLike;
};

const g = globalThis as Global;

/** `process` when the runtime has one with the members we use (Node, Bun, Deno's compat layer). */
function processObject(): ProcessLike | undefined {
  try {
    const p = g.process;
    return typeof p === 'object' && p !== null ? p : undefined;
  } catch {
    return undefined;
  }
}

/** An environment variable, or undefined (no `process`, or access denied as in Deno without --allow-env). */
export function envVar(name: string): string | undefined {
  try {
    const value = processObject()?.env?.[name];
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Lets a timer not keep the process alive (Node, Bun: `unref()`; Deno: `Deno.unrefTimer`). */
export function unrefTimer(timer: unknown): void {
  try {
    if (
      typeof timer === 'object' &&
      timer !== null &&
      typeof (timer as { unref?: unknown }).unref === 'function'
    ) {
      (timer as { unref: () => void }).unref();
    } else if (typeof timer === 'number' && typeof g.Deno?.unrefTimer === 'function') {
      g.Deno.unrefTimer(timer);
    }
  } catch {
    // not supported: the timer stays referenced
  }
}

/** A timer that never keeps the process alive. Returns a cancel function. */
export function setUnrefTimeout(fn: () => void, ms: number): () => void {
  const timer = setTimeout(fn, ms);
  unrefTimer(timer);
  return () => clearTimeout(timer);
}

/**
 * `task`'s outcome, or `late()`'s once `ms` have passed without one. The timer is cleared when `task`
 * settles first (one left behind would keep a process with nothing else to do alive until it fires);
 * `unref`: it never keeps the process alive (a background wait; a caller's wait keeps it).
 */
export function settleWithin<T>(
  task: PromiseLike<T>,
  ms: number,
  late: () => T | PromiseLike<T>,
  unref = false,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late()), Math.max(0, ms));
    if (unref) unrefTimer(timer);
  });
  return Promise.race([task, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs `fn` in a task of its own, as soon as the current one and its promise callbacks are done:
 * `setImmediate` where it exists (Node.js, Bun: no 1 ms timer clamp), else a 0 ms timer.
 */
export const nextTask: (fn: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function'
    ? (fn) => void (globalThis as unknown as { setImmediate: (f: () => void) => unknown }).setImmediate(fn)
    : (fn) => void setTimeout(fn, 0);

/** Monotonic milliseconds (performance.now when available). */
export const monotonicNow: () => number =
  typeof performance === 'object' && performance !== null && typeof performance.now === 'function'
    ? () => performance.now()
    : () => Date.now();

/**
 * Calls `flush` when the runtime is about to end, where it lets us:
 * - Node.js, Bun: `beforeExit` (the event loop is empty; the flush's own I/O keeps it alive until done,
 *   then `beforeExit` fires again and finds nothing to do). Not on `exit`: no I/O is possible there.
 *   AWS Lambda never empties the loop: use `withSpendguard` or `spendguardMiddleware`.
 * - Browsers: `pagehide`, and `visibilitychange` to hidden (the last reliable moment on mobile), with
 *   `keepalive: true` requests.
 * - Deno: `beforeunload` (dispatched when the event loop is empty; scheduled work keeps it running).
 *
 * Returns a function that removes the hooks.
 */
export function onRuntimeExit(flush: (reason: 'exit' | 'pagehide') => void): () => void {
  const removers: Array<() => void> = [];
  try {
    const doc = g.document;
    const target = globalThis as unknown as EventTargetLike;
    if (typeof doc === 'object' && doc !== null && typeof target.addEventListener === 'function') {
      const onHide = (): void => flush('pagehide');
      const onVisibility = (): void => {
        if (doc.visibilityState === 'hidden') flush('pagehide');
      };
      target.addEventListener('pagehide', onHide);
      doc.addEventListener?.('visibilitychange', onVisibility);
      removers.push(() => {
        target.removeEventListener?.('pagehide', onHide);
        doc.removeEventListener?.('visibilitychange', onVisibility);
      });
      return () => removers.forEach((r) => r());
    }
    const proc = processObject();
    if (proc !== undefined && typeof proc.on === 'function') {
      const onBeforeExit = (): void => flush('exit');
      proc.on('beforeExit', onBeforeExit);
      removers.push(() => {
        const off = proc.off ?? proc.removeListener;
        off?.call(proc, 'beforeExit', onBeforeExit);
      });
    } else if (g.Deno !== undefined && typeof target.addEventListener === 'function') {
      const onUnload = (): void => flush('exit');
      target.addEventListener('beforeunload', onUnload);
      removers.push(() => target.removeEventListener?.('beforeunload', onUnload));
    }
  } catch {
    // no exit hook on this runtime
  }
  return () => removers.forEach((r) => r());
}

/** True in a browser-like runtime (pages can disappear; requests then need `keepalive`). */
export function isBrowserLike(): boolean {
  return typeof g.document === 'object' && g.document !== null;
}

/** A UUID v4: `crypto.randomUUID`, else `crypto.getRandomValues`, else Math.random (never throws). */
export function uuidV4(): string {
  try {
    const c = (globalThis as { crypto?: CryptoLike }).crypto;
    if (c !== undefined) {
      if (typeof c.randomUUID === 'function') return c.randomUUID();
      if (typeof c.getRandomValues === 'function') return formatUuid(c.getRandomValues(new Uint8Array(16)));
    }
  } catch {
    // fall through (insecure context, exotic runtime)
  }
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  return formatUuid(bytes);
}

function formatUuid(bytes: Uint8Array): string {
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  let hex = '';
  for (let i = 0; i < 16; i++) hex += (bytes[i] ?? 0).toString(16).padStart(2, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
