/**
 * Reading usage from a provider response without changing what the application receives.
 *
 * Streams (SSE, NDJSON) reach the application through a pull-through stream: it reads a new
 * `ReadableStream` whose `pull` reads one chunk from the provider's body, hands the same bytes to the
 * usage parser and enqueues them, untouched. Chosen over `response.body.tee()` (or `response.clone()`,
 * which tees) because:
 * - no extra buffering: a chunk is read from the network only when the application asks for one, so a
 *   slow reader keeps the provider connection's backpressure (with tee the SDK's branch reads at full
 *   speed and the application's branch queues the whole response in memory);
 * - cancellation reaches the provider: when the application cancels (user pressed stop), the provider
 *   connection is cancelled at once (with tee the SDK's branch would keep downloading — and the
 *   provider generating and billing — until the end);
 * - no added time to first byte: each chunk is passed on in the task it arrives in, after a parse step
 *   of a few microseconds; and one stream costs less than tee's two.
 * The cost: a new `Response` (same status, statusText, headers and bytes; `url`, `redirected` and `type`
 * are copied onto it as own properties because the constructor cannot set them), and a stream the
 * application never reads yields no usage.
 *
 * JSON responses are observed in place, without a new Response ({@link observeJson}).
 */
import { createUsageStream, parseUsageJson } from '../../core/usage/extract';
import type { ProviderEntry } from '../../core/providers/types';
import type { UsageContext, UsageResult, UsageStream } from '../../core/usage/types';

/** JSON bodies up to this size are parsed whole; longer ones by their tail. */
export const MAX_JSON_BYTES = 4 * 1024 * 1024;
/** Tail kept for bodies above {@link MAX_JSON_BYTES}. */
const TAIL_BYTES = 64 * 1024;

/** How a response body is handled. */
export type BodyKind = 'stream' | 'json' | 'none';

const STREAM_TYPE = /text\/event-stream|ndjson|jsonl|json-seq/i;
const JSON_TYPE = /json/i;

/** Chooses the handling from the status and content type. Error responses are never read. */
export function bodyKindOf(response: Response): BodyKind {
  if (response.status < 200 || response.status >= 300 || response.body === null) return 'none';
  const type = response.headers.get('content-type') ?? '';
  if (STREAM_TYPE.test(type)) return 'stream';
  if (JSON_TYPE.test(type)) return 'json';
  return 'none';
}

/** What the tap reports when the body ends (fully read, cancelled or errored). */
export interface StreamOutcome {
  /** Reads the parser's result: called later, off the application's path (or at once for an exact budget). */
  readonly usage: () => UsageResult;
  /** `done` (read to the end), `cancel` (the application cancelled) or `error`. */
  readonly end: 'done' | 'cancel' | 'error';
}

type ResponseExtras = Pick<Response, 'url' | 'redirected' | 'type'>;

/**
 * A Response whose body passes `response`'s bytes, untouched, through `parser` as the application reads
 * them. Returns the original response (and reports no usage) when it cannot be rebuilt. `onEnd` is
 * called exactly once: at the end of the body, on cancel or on error.
 */
export function tapStream(
  response: Response,
  provider: ProviderEntry,
  ctx: UsageContext,
  onEnd: (outcome: StreamOutcome) => void,
): Response {
  const source = response.body;
  if (source === null) return response;
  const tapped = passThrough(source, createUsageStream(provider, ctx), onEnd);
  // a status or body the constructor refuses: leave the response alone
  return rebuild(response, tapped) ?? response;
}

/** A sink for the bytes of a body: the usage parser of a stream, or {@link jsonCollector}. */
type UsageSink = UsageStream;

/**
 * A ReadableStream that reads `source` one chunk per pull, gives each chunk to `sink` and enqueues it
 * unchanged. `onEnd` is called exactly once: at the end, on cancel or on error.
 */
function passThrough(
  source: ReadableStream<Uint8Array>,
  sink: UsageSink,
  onEnd: (outcome: StreamOutcome) => void,
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let ended = false;
  const finish = (end: StreamOutcome['end']): void => {
    if (ended) return;
    ended = true;
    const usage = (): UsageResult => {
      try {
        return sink.end();
      } catch {
        return { ok: false, reason: 'usage parser error' };
      }
    };
    try {
      onEnd({ usage, end });
    } catch {
      // reporting must never disturb the stream
    }
  };
  const getReader = (): ReadableStreamDefaultReader<Uint8Array> => (reader ??= source.getReader());
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;
        try {
          result = await getReader().read();
        } catch (err) {
          finish('error');
          controller.error(err);
          return;
        }
        if (result.done) {
          controller.close();
          finish('done');
          return;
        }
        if (!ended) {
          try {
            sink.push(result.value);
          } catch {
            // the parsers never throw; belt and braces
          }
        }
        controller.enqueue(result.value);
      },
      cancel(reason) {
        finish('cancel');
        return getReader().cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Copies the read-only `url`, `redirected` and `type` onto the rebuilt response as own properties. */
function copyExtras(target: Response, from: ResponseExtras): void {
  try {
    const props: PropertyDescriptorMap = {};
    for (const key of ['url', 'redirected', 'type'] as const) {
      const value = from[key];
      if (target[key] !== value) props[key] = { value, enumerable: true, configurable: true };
    }
    Object.defineProperties(target, props);
  } catch {
    // frozen or exotic response: the properties keep the constructor's values
  }
}

/**
 * Observes a JSON response without replacing it: the application gets the very same Response object
 * (identity, url, redirected, type intact; no stream created on the call path — a web stream costs
 * ~20 µs in Node 20). Its body readers are shadowed by own properties that call the native method and
 * read the usage from what it returns (`json()` → the parsed value, `text()`, `arrayBuffer()`,
 * `bytes()`, `blob()`); results and errors are the native ones, unchanged. Reading `body` directly
 * gets a pull-through stream over the native one (created only then). A body the application never
 * reads yields no usage. `onEnd` is called at most once, with a function that parses the usage later.
 */
export function observeJson(
  response: Response,
  provider: ProviderEntry,
  ctx: UsageContext,
  onEnd: (usage: () => UsageResult) => void,
): Response {
  let reported = false;
  const report = (usage: () => UsageResult): void => {
    if (reported) return;
    reported = true;
    onEnd(usage);
  };
  try {
    OBSERVED.set(response, { provider, ctx, report, body: undefined });
    Object.defineProperties(response, (observers ??= buildObservers()));
  } catch {
    report(() => ({ ok: false, reason: 'response not observable' }));
  }
  return response;
}

interface Observed {
  readonly provider: ProviderEntry;
  readonly ctx: UsageContext;
  readonly report: (usage: () => UsageResult) => void;
  /** The pull-through stream handed out by `body`, once read. */
  body: ReadableStream<Uint8Array> | null | undefined;
}

/** The state of each observed response (the shadowing methods are shared, not per response). */
const OBSERVED = new WeakMap<Response, Observed>();
let observers: PropertyDescriptorMap | undefined;

const FAILED = (): UsageResult => ({ ok: false, reason: 'body read failed' });

/** The own properties that shadow an observed response's body readers (built once). */
function buildObservers(): PropertyDescriptorMap {
  const proto = Response.prototype as unknown as Record<
    string,
    ((this: Response) => Promise<unknown>) | undefined
  >;
  const usageOf = (name: string, value: unknown, o: Observed): (() => UsageResult) => {
    if (name === 'json') return () => parseUsageJson(o.provider, value, o.ctx);
    if (name === 'text') return () => textUsage(value as string, o.provider, o.ctx);
    return () => textUsage(decode(new Uint8Array(value as ArrayBuffer)), o.provider, o.ctx);
  };
  const props: PropertyDescriptorMap = {};
  for (const name of ['json', 'text', 'arrayBuffer', 'bytes', 'blob']) {
    const native = proto[name];
    if (typeof native !== 'function') continue;
    props[name] = {
      configurable: true,
      writable: true,
      value: function (this: Response) {
        const result = native.call(this);
        const o = OBSERVED.get(this);
        if (o === undefined) return result;
        return result.then(
          (value) => {
            if (name === 'blob') {
              (value as Blob).arrayBuffer().then(
                (buffer) => o.report(usageOf(name, buffer, o)),
                () => o.report(FAILED),
              );
            } else o.report(usageOf(name, value, o));
            return value;
          },
          (err: unknown) => {
            o.report(FAILED);
            throw err;
          },
        );
      },
    };
  }
  const nativeBody = Object.getOwnPropertyDescriptor(Response.prototype, 'body')?.get;
  if (nativeBody !== undefined) {
    props.body = {
      configurable: true,
      get(this: Response) {
        const o = OBSERVED.get(this);
        if (o === undefined) return nativeBody.call(this);
        if (o.body === undefined) {
          const source = nativeBody.call(this) as ReadableStream<Uint8Array> | null;
          o.body =
            source === null || source.locked
              ? source
              : passThrough(source, jsonCollector(o.provider, o.ctx), (outcome) => o.report(outcome.usage));
        }
        return o.body;
      },
    };
  }
  return props;
}

/** Usage of a JSON text: parsed whole up to {@link MAX_JSON_BYTES}, else from its head and tail. */
function textUsage(text: string, provider: ProviderEntry, ctx: UsageContext): UsageResult {
  if (text.length <= MAX_JSON_BYTES) return parseUsageJson(provider, text, ctx);
  return parseUsageJson(provider, tailSummary(text.slice(0, TAIL_BYTES), text.slice(-TAIL_BYTES)), ctx);
}

/** Collects a JSON body read through `body` (bounded: beyond {@link MAX_JSON_BYTES}, head and tail only). */
function jsonCollector(provider: ProviderEntry, ctx: UsageContext): UsageSink {
  let chunks: Uint8Array[] = [];
  let size = 0;
  let head: Uint8Array | undefined;
  return {
    push(chunk) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (head === undefined && size > MAX_JSON_BYTES) head = concat(chunks).subarray(0, TAIL_BYTES);
      if (head !== undefined) {
        const all = concat(chunks);
        chunks = [all.subarray(Math.max(0, all.length - TAIL_BYTES))];
      }
    },
    end() {
      const bytes = concat(chunks);
      return head === undefined
        ? parseUsageJson(provider, bytes, ctx)
        : parseUsageJson(provider, tailSummary(decode(head), decode(bytes)), ctx);
    },
  };
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/** A Response like `response` over another body, or null when the constructor refuses it. */
function rebuild(response: Response, body: ConstructorParameters<typeof Response>[0]): Response | null {
  try {
    const copy = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    copyExtras(copy, response);
    return copy;
  } catch {
    return null;
  }
}

function decode(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? '' : new TextDecoder().decode(bytes);
}

/** The last `"usage": {…}` / `"usageMetadata": {…}` object (one nesting level) and the model of a body tail. */
const TAIL_USAGE_RE = /"(usage|usageMetadata)"\s*:\s*(\{(?:[^{}]|\{[^{}]*\})*\})/g;
const TAIL_MODEL_RE = /"(model|modelVersion)"\s*:\s*("(?:[^"\\]|\\.){1,256}")/g;

/**
 * A small JSON object with the usage object and model found in the head and tail of a body too large
 * to parse whole, e.g. `{"model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}`.
 */
export function tailSummary(head: string, tail: string): string {
  const parts: string[] = [];
  const last = (re: RegExp, text: string): RegExpExecArray | undefined => [...text.matchAll(re)].pop();
  const usage = last(TAIL_USAGE_RE, tail);
  if (usage !== undefined) parts.push(`"${usage[1]}":${usage[2]}`);
  const model = last(TAIL_MODEL_RE, tail) ?? last(TAIL_MODEL_RE, head);
  if (model !== undefined) parts.push(`"${model[1]}":${model[2]}`);
  return `{${parts.join(',')}}`;
}
