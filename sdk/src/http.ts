/** The SDK's own HTTP requests (ingest, status, health): through the original fetch, with a timeout. */
import { unrefTimer } from './runtime';
import type { FetchLike } from './types';

/** A timer this late fired after a freeze of the process. */
const LATE_TIMER_MS = 1_000;
/** What an answer that arrived while the process was frozen gets to be read after the thaw. */
const THAW_GRACE_MS = 500;

/**
 * `fetchFn(url, init)` and then `read(response)`, both within `timeoutMs` (the request is aborted, and
 * the race also covers a fetch that ignores its signal). The timer never keeps the process alive.
 */
export async function timedRequest<T>(
  fetchFn: FetchLike,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  read: (response: Response) => T | Promise<T>,
): Promise<T> {
  const controller = typeof AbortController === 'function' ? new AbortController() : undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const started = Date.now();
  let graced = false;
  const timeout = new Promise<never>((_, reject) => {
    const fire = (): void => {
      // Fired long after it was due: the process was frozen (a Lambda environment between invocations)
      // and the answer may be waiting in the socket. Timers run before I/O is read: give it a moment.
      if (!graced && Date.now() - started > timeoutMs + LATE_TIMER_MS) {
        graced = true;
        timer = setTimeout(fire, THAW_GRACE_MS);
        unrefTimer(timer);
        return;
      }
      controller?.abort();
      reject(new Error(`no answer within ${Math.round(timeoutMs)} ms`));
    };
    timer = setTimeout(fire, Math.max(1, timeoutMs));
    unrefTimer(timer);
  });
  try {
    if (controller !== undefined) init.signal = controller.signal;
    const response = await Promise.race([fetchFn(url, init), timeout]);
    return await Promise.race([read(response), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Releases a body we do not read (lets the connection be reused). */
export function drain(response: Response): void {
  try {
    if (response.body && !response.bodyUsed) void response.body.cancel().catch(() => undefined);
  } catch {
    // nothing to release
  }
}

/** The JSON body of a 2xx answer (the SDK's own routes answer small objects), else undefined; the body is always consumed. */
export async function readJson(response: Response): Promise<unknown> {
  if (response.status < 200 || response.status >= 300) {
    drain(response);
    return undefined;
  }
  try {
    return (await response.json()) as unknown;
  } catch {
    return undefined;
  }
}
