/**
 * Usage parsers that load on first use. In the published ESM build (sdk/scripts/build.ts), the catalog's
 * Anthropic, Gemini, Bedrock and Ollama entries get these stand-ins instead of their parsers, which are
 * in a file of their own (`dialect-usage.mjs`): an application that calls only OpenAI-dialect providers
 * never loads them (about 2 KB gzipped less at start; docs/sdk.md, "Bundle size").
 *
 * - A call to such a provider starts the load when it begins ({@link usageParserLoading}); the client
 *   reads the call's usage once the load has ended, off the application's path (and, under a `block`
 *   budget, whose count must be exact before the next call, the first call waits for it).
 * - Bytes of a stream that arrive before the load ends are held (up to {@link MAX_HELD_BYTES}) and read
 *   once it has: the result is the parser's own, whatever the timing.
 * - A failed load (a file missing from a broken install): the call's usage cannot be read and is
 *   estimated from the request, as for a response without usage; the next call tries the load again.
 */
import { fail } from '../../core/usage/normalize';
import type { UsageContext, UsageParser, UsageResult, UsageStream } from '../../core/usage/types';
import type * as Dialects from './dialect-usage';
import { settleWithin } from './runtime';

/** Why a call's usage could not be read: its parser's load failed (the client warns with the error). */
const NOT_LOADED = 'usage parser not loaded';

/** Stream bytes held while the parser loads; past this the call's usage is estimated instead. */
export const MAX_HELD_BYTES = 4 * 1024 * 1024;

/** A parser that loads on first use; it answers as the loaded parser does once {@link loading} has ended. */
export class OnDemandParser implements UsageParser {
  #parser: UsageParser | undefined;
  #loading: Promise<unknown> | undefined;
  readonly #load: () => Promise<UsageParser>;

  constructor(load: () => Promise<UsageParser>) {
    this.#load = load;
  }

  /**
   * Starts the load unless it is done. Null once loaded; else a promise that never rejects and settles
   * when the load ends: with undefined, or with the error of a failed load (the next call tries again).
   */
  loading(): Promise<unknown> | null {
    if (this.#parser !== undefined) return null;
    return (this.#loading ??= this.#load().then(
      (parser) => {
        this.#parser = parser;
      },
      (err: unknown) => {
        this.#loading = undefined;
        return err;
      },
    ));
  }

  fromJson(body: unknown, ctx: UsageContext): UsageResult {
    return this.#parser?.fromJson(body, ctx) ?? fail(NOT_LOADED);
  }

  stream(ctx: UsageContext): UsageStream {
    if (this.#parser !== undefined) return this.#parser.stream(ctx);
    void this.loading();
    let parser: UsageStream | undefined;
    let held: Uint8Array[] | null = [];
    let size = 0;
    // The parser's stream, fed what was held, once the parser is there.
    const attached = (): UsageStream | undefined => {
      if (parser === undefined && this.#parser !== undefined && held !== null) {
        parser = this.#parser.stream(ctx);
        for (const chunk of held) parser.push(chunk);
        held = [];
      }
      return parser;
    };
    return {
      push: (chunk) => {
        const p = attached();
        if (p !== undefined) return p.push(chunk);
        if (held === null) return;
        size += chunk.byteLength;
        // A copy: the application owns the chunk it is handed, and may transfer its buffer.
        if (size <= MAX_HELD_BYTES) held.push(chunk.slice());
        else held = null;
      },
      end: () =>
        attached()?.end() ??
        fail(held === null ? 'stream too long to hold while its usage parser loaded' : NOT_LOADED),
    };
  }
}

/**
 * Longest a call waits for a module loaded on demand (its parser; the admission readers): a finished call
 * is held (with its request) until then, and under a `block` budget or a hard cap a call waits before it
 * is sent. Past it the call goes on as if the load had failed.
 */
export const MAX_LOAD_WAIT_MS = 5_000;

/** The error of a load that did not end within {@link MAX_LOAD_WAIT_MS}. */
export const loadTimeout = (): Error => new Error(`not loaded within ${MAX_LOAD_WAIT_MS} ms`);

/**
 * The pending load of `parser`, started now if needed; null when it can answer (loaded, or a parser of
 * the bundle itself). The promise never rejects and settles within {@link MAX_LOAD_WAIT_MS}: with
 * undefined once loaded, else with the error (a failed load, or one that took too long).
 */
export function usageParserLoading(parser: UsageParser): Promise<unknown> | null {
  const loading = parser instanceof OnDemandParser ? parser.loading() : null;
  return loading && settleWithin(loading, MAX_LOAD_WAIT_MS, loadTimeout);
}

let dialects: Promise<typeof Dialects> | undefined;

/** Loads `dialect-usage`, once (a failed load is tried again by the next caller). */
function loadDialects(): Promise<typeof Dialects> {
  return (dialects ??= import('./dialect-usage.js').catch((err: unknown) => {
    dialects = undefined;
    throw err;
  }));
}

const onDemand = (name: keyof typeof Dialects): UsageParser =>
  new OnDemandParser(() => loadDialects().then((m) => m[name]));

// The stand-ins the ESM build gives core/providers for `core/usage/{anthropic,bedrock,gemini,ollama}.ts`.
export const anthropicUsage = onDemand('anthropicUsage');
export const bedrockUsage = onDemand('bedrockUsage');
export const geminiUsage = onDemand('geminiUsage');
export const ollamaUsage = onDemand('ollamaUsage');
