/**
 * The tracking fetch and the process-wide state it shares.
 *
 * The state lives on `globalThis` under a registered symbol, so that two copies of the SDK in one
 * process (the ESM and the CommonJS build, or two versions) still install the global fetch once,
 * never count a call twice and share one exit hook.
 */
import type { Binding, Call, Client } from './client';
import type { FetchLike } from './types';

/** Marks our wrappers and keeps what they wrap. */
export const WRAPPED = Symbol.for('@service/sdk.wrapped');

/** A tracking fetch. */
export type TrackedFetch = FetchLike & { readonly [WRAPPED]: { readonly inner: FetchLike } };

/** The installation of `initServiceAuto`. */
export interface AutoInstall {
  readonly client: Client;
  readonly binding: Binding;
  /** The global fetch before we replaced it. */
  readonly original: FetchLike;
  /** What we put in its place. */
  readonly wrapper: TrackedFetch;
  /** The options given so far (a later `initServiceAuto` changes only what it names). */
  options?: object;
}

export interface SdkState {
  /** Tracked fetches currently inside their inner fetch's synchronous call (nesting guard). */
  depth: number;
  /**
   * `init` objects of calls in flight through a tracking fetch: an inner tracking fetch reached through
   * an asynchronous wrapper sees the same object and lets the call through (no double count).
   */
  readonly claimed: WeakSet<object>;
  auto: AutoInstall | null;
  /** Clients by `apiKey \0 endpoint`. */
  readonly clients: Map<string, Client>;
  removeExitHook: (() => void) | null;
}

const STATE = Symbol.for('@service/sdk.state');

/** The process-wide state, created on first use. */
export function sdkState(): SdkState {
  const holder = globalThis as unknown as Record<symbol, SdkState | undefined>;
  let state = holder[STATE];
  if (state === undefined) {
    state = { depth: 0, claimed: new WeakSet(), auto: null, clients: new Map(), removeExitHook: null };
    Object.defineProperty(globalThis, STATE, {
      value: state,
      configurable: true,
      enumerable: false,
      writable: false,
    });
  }
  return state;
}

/** The innermost non-tracking fetch under any number of our wrappers. */
export function unwrapFetch(fn: unknown): FetchLike | undefined {
  let current = fn;
  for (let i = 0; i < 16 && typeof current === 'function'; i++) {
    const inner = (current as Partial<TrackedFetch>)[WRAPPED]?.inner;
    if (inner === undefined) return current as FetchLike;
    current = inner;
  }
  return typeof current === 'function' ? (current as FetchLike) : undefined;
}

/** True for a fetch made by {@link createTrackedFetch}. */
export function isTrackedFetch(fn: unknown): fn is TrackedFetch {
  return typeof fn === 'function' && (fn as Partial<TrackedFetch>)[WRAPPED] !== undefined;
}

/**
 * A fetch that behaves exactly like `inner` and records the provider calls that go through it.
 * `resolve` returns the client and binding at call time (so a second `initServiceAuto` takes effect
 * without re-wrapping).
 *
 * Guarantees: arguments, `this`, the returned promise's settlement and the host's own errors (sync
 * throws, rejections, aborts) are those of `inner`; SDK errors are swallowed and the call proceeds.
 */
export function createTrackedFetch(
  inner: FetchLike,
  resolve: () => { client: Client; binding: Binding } | undefined,
): TrackedFetch {
  const tracked = function (this: unknown, ...args: unknown[]): Promise<Response> {
    const state = sdkState();
    let call: Call | Response | undefined | Promise<Call | Response | undefined>;
    if (state.depth === 0) {
      try {
        const init = args[1];
        if (typeof init !== 'object' || init === null || !state.claimed.has(init)) {
          const target = resolve();
          call = target?.client.begin(args, target.binding);
          if (call !== undefined && typeof init === 'object' && init !== null) state.claimed.add(init);
        }
      } catch {
        call = undefined;
      }
    }
    if (call === undefined) return Reflect.apply(inner, this, args) as Promise<Response>;
    if (call instanceof Response) return Promise.resolve(call);
    if (call instanceof Promise) {
      // The call waits for its budget reservation (a hard cap applies); then it goes, or is refused.
      return call.then(
        (c) => proceed(state, this, args, c),
        () => proceed(state, this, args, undefined),
      );
    }
    return proceed(state, this, args, call);
  } as TrackedFetch;
  /** Makes the call through `inner` (`handle` undefined: untracked; a Response: answered locally). */
  const proceed = (
    state: SdkState,
    self: unknown,
    args: unknown[],
    handle: Call | Response | undefined,
  ): Promise<Response> => {
    const claimed = args[1];
    const release = (): void => {
      if (typeof claimed === 'object' && claimed !== null) state.claimed.delete(claimed);
    };
    if (handle instanceof Response) {
      release();
      return Promise.resolve(handle);
    }
    if (handle === undefined) {
      release();
      return Reflect.apply(inner, self, args) as Promise<Response>;
    }
    let result: unknown;
    state.depth++;
    try {
      result = Reflect.apply(inner, self, args);
    } catch (err) {
      release();
      handle.onFailure(err);
      throw err;
    } finally {
      state.depth--;
    }
    try {
      if (result === null || typeof (result as { then?: unknown }).then !== 'function') {
        release();
        return result as Promise<Response>;
      }
      return (result as Promise<Response>).then(
        (response) => {
          release();
          return handle.onResponse(response);
        },
        (err: unknown) => {
          release();
          handle.onFailure(err);
          throw err;
        },
      );
    } catch {
      release();
      return result as Promise<Response>;
    }
  };
  try {
    Object.defineProperty(tracked, WRAPPED, { value: { inner }, enumerable: false });
    Object.defineProperty(tracked, 'name', { value: 'fetch', configurable: true });
  } catch {
    // exotic function objects
  }
  return tracked;
}
