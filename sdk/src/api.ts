/**
 * The public entry points: `initServiceAuto`, `wrapFetch`, `flush`, `shutdown`. Each one catches
 * everything: a Spendguard problem is logged (with `debug: true`) and never reaches the application.
 */
import { addBedrockMiddleware, isBedrockRuntimeClient } from './aws-client';
import { Client, type Binding } from './client';
import { createLogger, describe } from './log';
import { normalizeOptions, type ClientConfig, type NormalizedOptions } from './options';
import { isBrowserLike, onRuntimeExit } from './runtime';
import { createTrackedFetch, sdkState, unwrapFetch, type SdkState, type TrackedFetch } from './tracked-fetch';
import type {
  ClientStats,
  FetchLike,
  FlushOptions,
  FlushResult,
  InitOptions,
  SpendguardClient,
  WrapFetchOptions,
} from './types';

/** The fetch the SDK's own requests use: the original global fetch, never an instrumented one. */
export function originalFetch(): FetchLike | undefined {
  const state = sdkState();
  if (state.auto !== null) return state.auto.original;
  try {
    return unwrapFetch(globalThis.fetch);
  } catch {
    return undefined;
  }
}

function clientKey(config: ClientConfig): string {
  return `${config.apiKey ?? ''}\u0000${config.endpoint ?? ''}`;
}

/** The client for these settings: an existing one with the same key and endpoint (reconfigured), or a new one. */
function clientFor(normalized: NormalizedOptions, state: SdkState): Client {
  const key = clientKey(normalized.config);
  const existing = state.clients.get(key);
  if (existing !== undefined && !existing.isClosed) {
    existing.configure(normalized.config);
    return existing;
  }
  // The SDK's own requests use the fetch of the moment the client was created, unwrapped: never an
  // instrumented one, and not whatever replaces the global later (a test double, another library).
  const captured = originalFetch();
  const client = new Client(normalized.config, () => captured ?? originalFetch());
  state.clients.set(key, client);
  ensureExitHook(state);
  client.warmUp();
  return client;
}

/**
 * One exit hook for every client of the process. A client whose exit flush delivered nothing is not
 * flushed again until it has new calls: with an unreachable backend, each `beforeExit` would otherwise
 * start another attempt and the process would never end.
 */
function ensureExitHook(state: SdkState): void {
  if (state.removeExitHook !== null) return;
  const failedAt = new WeakMap<Client, number>();
  state.removeExitHook = onRuntimeExit((reason) => {
    for (const client of state.clients.values()) {
      if (reason === 'exit') client.releaseOnExit();
      const { buffered, calls } = client.stats();
      if (buffered === 0 || failedAt.get(client) === calls) continue;
      void client.flushOnExit(reason === 'pagehide' || isBrowserLike()).then((result) => {
        if (result.sent === 0) failedAt.set(client, calls);
      });
    }
  });
}

function report(normalized: NormalizedOptions, client: Client): void {
  for (const problem of normalized.problems) client.log.warn(`option ignored: ${problem}`);
  if (normalized.config.apiKey === null)
    client.log.warn('no apiKey (option or SPENDGUARD_API_KEY): events are not sent');
  if (normalized.config.endpoint === null) {
    client.log.warn('no endpoint (option or SPENDGUARD_ENDPOINT): events are not sent');
  }
}

/** A client that does nothing, returned when even setting up failed. */
const NOOP_CLIENT: SpendguardClient = {
  flush: () => Promise.resolve({ sent: 0, pending: 0, discarded: 0 }),
  shutdown: () => Promise.resolve({ sent: 0, pending: 0, discarded: 0 }),
  stats: (): ClientStats => ({
    calls: 0,
    blocked: 0,
    buffered: 0,
    droppedUnreported: 0,
    droppedTotal: 0,
    sent: 0,
    discarded: 0,
    internalErrors: 0,
    serverSuspended: false,
    suspendedSessions: [],
    failOpen: 0,
    lease: null,
  }),
};

/**
 * Replaces `globalThis.fetch` with a tracking fetch: calls to auto-detected providers (OpenAI,
 * Anthropic, OpenRouter, Gemini, Groq, Together, Mistral, DeepSeek, xAI) are recorded; everything
 * else passes through untouched. Call it once, before creating provider clients (they capture `fetch`
 * when constructed) and before the first AI call.
 *
 * Idempotent: a second call never wraps twice; it applies the new options to the same client and
 * returns it.
 *
 * @example
 * import { initServiceAuto } from '@service/sdk';
 * initServiceAuto({ apiKey: process.env.SPENDGUARD_API_KEY, endpoint: 'https://api.example.com',
 *   budget: { dailyLimitUsd: 50, action: 'block' } });
 * const openai = new OpenAI(); // created after init: uses the tracking fetch
 */
export function initServiceAuto(options?: InitOptions): SpendguardClient {
  try {
    const state = sdkState();
    if (state.auto !== null) {
      // Options it leaves out keep their earlier values (a library's bare `initServiceAuto()` must not
      // drop the application's key and endpoint); one given as `undefined` goes back to its default.
      const merged = { ...state.auto.options, ...options };
      state.auto.options = merged;
      const normalized = normalizeOptions(merged);
      const { client, binding } = state.auto;
      const oldKey = clientKey(client.config);
      client.configure(normalized.config);
      const newKey = clientKey(normalized.config);
      if (oldKey !== newKey) {
        if (state.clients.get(oldKey) === client) state.clients.delete(oldKey);
        state.clients.set(newKey, client);
      }
      binding.labels = normalized.labels;
      report(normalized, client);
      client.log.debug('initServiceAuto called again: options updated, fetch not wrapped twice');
      return client;
    }
    const normalized = normalizeOptions(options);
    const current: unknown = globalThis.fetch;
    if (typeof current !== 'function') {
      const client = clientFor(normalized, state);
      client.log.warn('no global fetch in this runtime: use wrapFetch');
      return client;
    }
    const original = unwrapFetch(current) ?? (current as FetchLike);
    const client = clientFor(normalized, state);
    const binding: Binding = { labels: normalized.labels, provider: undefined };
    const wrapper = createTrackedFetch(original, () => {
      const auto = sdkState().auto;
      return auto === null ? undefined : { client: auto.client, binding: auto.binding };
    });
    state.auto = { client, binding, original, wrapper, options: { ...options } };
    globalThis.fetch = wrapper;
    report(normalized, client);
    client.log.debug('global fetch instrumented');
    return client;
  } catch (err) {
    try {
      createLogger(() => (options as { debug?: unknown } | undefined)?.debug === true).warn(
        'initServiceAuto failed; fetch left unchanged',
        describe(err),
      );
    } catch {
      // nothing more to do
    }
    return NOOP_CLIENT;
  }
}

/**
 * Returns a tracking fetch around `fetchFn`, for frameworks with their own HTTP client and for
 * providers that are not auto-detected. With `provider`, every POST through it is recorded as a call
 * to that provider (`'llama'` for open-weight models on custom endpoints).
 *
 * @example
 * const openai = new OpenAI({ fetch: wrapFetch(fetch, { apiKey, endpoint, featureId: 'search' }) });
 * const ollama = new OpenAI({ baseURL: 'http://gpu-box:11434/v1', apiKey: 'unused',
 *   fetch: wrapFetch(fetch, { apiKey, endpoint, provider: 'llama' }) });
 */
export function wrapFetch(fetchFn: FetchLike, options?: WrapFetchOptions): FetchLike {
  let inner: FetchLike;
  try {
    inner =
      typeof fetchFn === 'function'
        ? (unwrapFetch(fetchFn) ?? fetchFn)
        : (input: string | URL | Request, init?: RequestInit) => globalThis.fetch(input, init);
  } catch {
    inner = (input: string | URL | Request, init?: RequestInit) => globalThis.fetch(input, init);
  }
  try {
    const state = sdkState();
    const normalized = normalizeOptions(options);
    const client = clientFor(normalized, state);
    report(normalized, client);
    const binding: Binding = { labels: normalized.labels, provider: normalized.provider };
    const bound = { client, binding };
    return createTrackedFetch(inner, () => (bound.client.isClosed ? undefined : bound));
  } catch {
    return inner;
  }
}

/** Flushes every client of the process (the automatic one and every wrapFetch's). Never rejects. */
export async function flush(options?: FlushOptions): Promise<FlushResult> {
  const total: FlushResult = { sent: 0, pending: 0, discarded: 0 };
  try {
    const results = await Promise.all([...sdkState().clients.values()].map((c) => c.flush(options)));
    for (const r of results) {
      total.sent += r.sent;
      total.pending += r.pending;
      total.discarded += r.discarded;
    }
  } catch {
    // flush never rejects
  }
  return total;
}

/**
 * Reports every client's lease spend and waits for its lease requests in flight: the end of a Lambda
 * invocation, after which the environment may freeze. The slices are kept. Never rejects.
 */
export async function reportLeases(timeoutMs?: number): Promise<void> {
  try {
    await Promise.all([...sdkState().clients.values()].map((c) => c.reportLease(timeoutMs)));
  } catch {
    // never rejects
  }
}

/**
 * Flushes and stops every client, and restores the original `globalThis.fetch` when it is still ours.
 * A later `initServiceAuto` starts afresh. Never rejects.
 */
export async function shutdown(options?: FlushOptions): Promise<FlushResult> {
  const state = sdkState();
  const clients = [...state.clients.values()];
  const auto = state.auto;
  try {
    if (auto !== null) {
      if (globalThis.fetch === (auto.wrapper as unknown)) globalThis.fetch = auto.original;
      state.auto = null;
    }
  } catch {
    // fetch not writable: the wrapper stays and passes calls through (its client is closed)
  }
  state.clients.clear();
  const total: FlushResult = { sent: 0, pending: 0, discarded: 0 };
  try {
    const results = await Promise.all(clients.map((c) => c.shutdown(options)));
    for (const r of results) {
      total.sent += r.sent;
      total.pending += r.pending;
      total.discarded += r.discarded;
    }
  } catch {
    // never rejects
  }
  state.removeExitHook?.();
  state.removeExitHook = null;
  return total;
}

/** The client of `initServiceAuto`, or undefined before it (or after `shutdown`). */
export function getServiceClient(): SpendguardClient | undefined {
  return sdkState().auto?.client;
}

/** @internal for tests: the Client behind a handle. */
export function internalClient(handle: SpendguardClient): Client | undefined {
  return handle instanceof Client ? handle : undefined;
}

export type { TrackedFetch };

/**
 * Adds Spendguard to an AWS SDK v3 client through its middleware stack: every Bedrock Runtime call
 * (Converse, ConverseStream, InvokeModel, InvokeModelWithResponseStream) is recorded with its exact
 * usage, and the server's flags, the budget lease and the local budget are applied before the call (a
 * refusal rejects with a `ServiceQuotaExceededException` the AWS SDK does not retry). Any other client
 * is returned untouched. Without options the calls go through `initServiceAuto`'s pipeline (one client,
 * one budget); with options, as `wrapFetch`'s (`sessionId`, labels, its own key and endpoint).
 * The request, its SigV4 signature and the output are never changed.
 *
 * @example
 * initServiceAuto({ apiKey, endpoint });
 * const bedrock = instrumentAwsClient(new BedrockRuntimeClient({ region: 'us-east-1' }));
 * const agent = instrumentAwsClient(new BedrockRuntimeClient({}), { apiKey, endpoint, sessionId: 'run-42' });
 */
export function instrumentAwsClient<T>(client: T, options?: WrapFetchOptions): T {
  try {
    if (!isBedrockRuntimeClient(client)) return client;
    const state = sdkState();
    if (options === undefined) {
      return addBedrockMiddleware(client, () => {
        const auto = sdkState().auto;
        return auto === null || auto.client.isClosed
          ? undefined
          : { client: auto.client, binding: auto.binding };
      });
    }
    const normalized = normalizeOptions(options);
    const bound = {
      client: clientFor(normalized, state),
      binding: { labels: normalized.labels, provider: 'bedrock' },
    };
    report(normalized, bound.client);
    return addBedrockMiddleware(client, () => (bound.client.isClosed ? undefined : bound));
  } catch {
    return client;
  }
}
