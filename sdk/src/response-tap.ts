/**
 * Reading usage from a provider response without changing what the application receives.
 *
 * Streams (SSE, NDJSON): a pull-through stream. The application reads a new `ReadableStream` whose
 * `pull` reads one chunk from the provider's body, hands the same bytes to the usage parser and
 * enqueues them, untouched. Chosen over `response.body.tee()` because:
 * - no extra buffering: a chunk is read from the network only when the application asks for one, so a
 *   slow reader keeps the provider connection's backpressure (with tee the SDK's branch reads at full
 *   speed and the application's branch queues the whole response in memory);
 * - cancellation reaches the provider: when the application cancels (user pressed stop), the
 *   provider connection is cancelled at once (with tee the SDK's branch would keep downloading, and
 *   the provider generating and billing, until the end);
 * - no added time to first byte: each chunk is passed on in the same task it arrives in, after a parse
 *   step of a few microseconds.
 * The cost: a new `Response` (same status, statusText, headers; `url`, `redirected` and `type` are
 * copied onto it as own properties because the constructor cannot set them).
 *
 * JSON: `response.clone()` is read in the background and the ORIGINAL Response object goes to the
 * application (identity, url, redirected, type intact). JSON bodies are small and read whole by the
 * application anyway; above {@link MAX_JSON_BYTES} only a tail window is kept (usage and model are at
 * the end of large OpenAI / Gemini bodies such as batched embeddings).
 */
import { createUsageStream, parseUsageJson } from '../../core/usage/extract';
import type { ProviderEntry } from '../../core/providers/types';
import type { UsageContext, UsageResult } from '../../core/usage/types';

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

/** What the tap reports when the stream ends (fully read, cancelled or errored). */
export interface StreamOutcome {
  readonly usage: UsageResult;
  /** `done` (read to the end), `cancel` (the application cancelled) or `error`. */
  readonly end: 'done' | 'cancel' | 'error';
}

type ResponseExtras = Pick<Response, 'url' | 'redirected' | 'type'>;

/**
 * A Response that streams `response`'s body through the usage parser. Returns the original response
 * (and reports no usage) when it cannot be rebuilt. `onEnd` is called exactly once.
 */
export function tapStream(
  response: Response,
  provider: ProviderEntry,
  ctx: UsageContext,
  onEnd: (outcome: StreamOutcome) => void,
): Response {
  const source = response.body;
  if (source === null) return response;
  const parser = createUsageStream(provider, ctx);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let ended = false;
  const finish = (end: StreamOutcome['end']): void => {
    if (ended) return;
    ended = true;
    let usage: UsageResult;
    try {
      usage = parser.end();
    } catch {
      usage = { ok: false, reason: 'stream parser error' };
    }
    try {
      onEnd({ usage, end });
    } catch {
      // reporting must never disturb the stream
    }
  };
  const getReader = (): ReadableStreamDefaultReader<Uint8Array> => (reader ??= source.getReader());
  const tapped = new ReadableStream<Uint8Array>(
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
        const chunk = result.value;
        if (!ended) {
          try {
            parser.push(chunk);
          } catch {
            // the parser never throws; belt and braces
          }
        }
        controller.enqueue(chunk);
      },
      cancel(reason) {
        finish('cancel');
        return getReader().cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  let wrapped: Response;
  try {
    wrapped = new Response(tapped, { status: response.status, statusText: response.statusText, headers: response.headers });
  } catch {
    return response; // a status or body the constructor refuses: leave the response alone
  }
  copyExtras(wrapped, response);
  return wrapped;
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
 * Reads the usage of a JSON response from a clone, in the background. The clone must be made before
 * the response is handed to the application (`response.clone()` in the same task).
 */
export async function readJsonUsage(clone: Response, provider: ProviderEntry, ctx: UsageContext): Promise<UsageResult> {
  const body = clone.body;
  if (body === null) return { ok: false, reason: 'no body' };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let head: Uint8Array | undefined;
  let overflow = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (!overflow && size > MAX_JSON_BYTES) {
      overflow = true;
      head = concat(chunks).subarray(0, TAIL_BYTES);
    }
    if (overflow) trimToTail(chunks);
  }
  const bytes = concat(chunks);
  if (!overflow) return parseUsageJson(provider, bytes, ctx);
  return parseUsageJson(provider, tailSummary(decode(head), decode(bytes.subarray(Math.max(0, bytes.length - TAIL_BYTES)))), ctx);
}

function trimToTail(chunks: Uint8Array[]): void {
  let kept = 0;
  let i = chunks.length - 1;
  for (; i >= 0; i--) {
    kept += chunks[i]?.byteLength ?? 0;
    if (kept >= TAIL_BYTES) break;
  }
  if (i > 0) chunks.splice(0, i);
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  let total = 0;
  for (const c of chunks) total += c.byteLength;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
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
