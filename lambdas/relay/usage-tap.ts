/**
 * The relay's copy of a response: every chunk the client receives is also fed here, decompressed when
 * the provider compressed it (the client gets the compressed bytes untouched), and read for usage —
 * incrementally for SSE / NDJSON streams (memory bounded by one frame), whole for JSON bodies (bounded
 * by {@link UsageTapOptions.maxJsonBytes}).
 */
import { Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { ProviderEntry } from '../../core/providers';
import { MAX_RESPONSE_PARSE_BYTES, usageEssentials } from './large-response';
import { readBedrockEventStream } from '../../core/usage/bedrock-event-stream';
import {
  createUsageStream,
  usageFromResponse,
  type NormalizedUsage,
  type TokenCounter,
  type TypicalReasoning,
  type UsageResult,
  type UsageStream,
} from '../../core/usage';

export interface UsageTapOptions {
  readonly provider: ProviderEntry;
  /** The upstream URL (Gemini and Ollama read the model / dialect from it). */
  readonly url: string;
  /**
   * The request body for the model fallback and the prompt estimate, as `UsageContext.requestBody` takes
   * it: the relay passes its one parse as a thunk (run only if a parser asks; undefined for a body it does
   * not parse: not JSON, over the parse bound).
   */
  readonly requestBody: unknown;
  readonly tokenCounter?: TokenCounter;
  /** Learned typical reasoning of the caller's organization (the estimate's floor for reasoning streams). */
  readonly typicalReasoning?: TypicalReasoning;
  /** A JSON body larger than this is not kept, and its usage is unknown. @default 16 MiB */
  readonly maxJsonBytes?: number;
  /** The service tier a response header reports (Bedrock `x-amzn-bedrock-service-tier`), used when the body names none. */
  readonly serviceTier?: string | undefined;
  /** Usage read from the response headers (Bedrock InvokeModel's token counts), when the body has none. */
  readonly headerUsage?: () => NormalizedUsage | undefined;
}

const STREAM_TYPES = /text\/event-stream|ndjson|jsonl|json-seq|vnd\.amazon\.eventstream/i;
/** Bodies worth keeping for usage: JSON, or no declared type (sniffed). Audio, images, files are not. */
const JSON_TYPES = /json/i;
export const DEFAULT_MAX_JSON_BYTES = 16 * 1024 * 1024;

/** The outcome of a tap: the usage (or why there is none) and whether the body was a stream. */
export interface TapResult {
  readonly usage: UsageResult;
  readonly stream: boolean;
}

function decompressor(encoding: string | undefined): Transform | null | undefined {
  if (encoding === undefined) return undefined;
  const e = encoding.trim().toLowerCase();
  if (e === '' || e === 'identity') return undefined;
  if (e === 'gzip' || e === 'x-gzip') return zlib.createGunzip();
  if (e === 'br') return zlib.createBrotliDecompress();
  if (e === 'deflate') return zlib.createInflate();
  return null; // zstd, stacked encodings: passed through, usage unknown
}

export class UsageTap {
  readonly stream: boolean;
  private readonly parser: UsageStream | undefined;
  private readonly unzip: Transform | undefined;
  private readonly maxJson: number;
  private json: Buffer[] | undefined;
  private jsonBytes = 0;
  private failure: string | undefined;
  private unzipDone: Promise<void> | undefined;

  constructor(
    private readonly status: number,
    private readonly contentType: string | undefined,
    contentEncoding: string | undefined,
    private readonly opts: UsageTapOptions,
  ) {
    this.stream = contentType !== undefined && STREAM_TYPES.test(contentType);
    this.maxJson = opts.maxJsonBytes ?? DEFAULT_MAX_JSON_BYTES;
    if (status >= 400) {
      this.failure = `HTTP ${status}`;
      return;
    }
    const unzip = decompressor(contentEncoding);
    if (unzip === null) {
      this.failure = `unsupported content-encoding: ${contentEncoding ?? ''}`;
      return;
    }
    if (!this.stream && contentType !== undefined && !JSON_TYPES.test(contentType)) {
      this.failure = `no usage in a ${contentType.split(';', 1)[0] ?? ''} response`;
      return;
    }
    if (this.stream) {
      this.parser = createUsageStream(opts.provider, {
        url: opts.url,
        requestBody: opts.requestBody,
        bedrockEventStream: readBedrockEventStream,
        ...(opts.tokenCounter ? { tokenCounter: opts.tokenCounter } : {}),
        ...(opts.typicalReasoning ? { typicalReasoning: opts.typicalReasoning } : {}),
      });
    } else {
      this.json = [];
    }
    if (unzip !== undefined) {
      this.unzip = unzip;
      unzip.on('data', (chunk: Buffer) => this.consume(chunk));
      this.unzipDone = new Promise<void>((resolve) => {
        unzip.once('end', resolve);
        unzip.once('error', (err: Error) => {
          this.failure ??= `cannot decompress the response: ${err.message}`;
          resolve();
        });
      });
    }
  }

  /** A chunk of the response body exactly as the client receives it. */
  push(chunk: Buffer): void {
    if (this.failure !== undefined) return;
    if (this.unzip !== undefined) this.unzip.write(chunk);
    else this.consume(chunk);
  }

  /** The usage, once the body has ended (or was cut short). Never rejects. */
  async finish(): Promise<TapResult> {
    if (this.unzip !== undefined && this.unzipDone !== undefined) {
      if (this.failure === undefined) this.unzip.end();
      else this.unzip.destroy();
      if (this.failure === undefined) await this.unzipDone;
    }
    let usage = this.result();
    if (!usage.ok && this.status < 400) {
      const fromHeaders = this.opts.headerUsage?.();
      if (fromHeaders !== undefined) usage = { ok: true, usage: fromHeaders };
    }
    const tier = this.opts.serviceTier;
    if (usage.ok && usage.usage.serviceTier === null && tier !== undefined && tier.length > 0) {
      return { usage: { ok: true, usage: { ...usage.usage, serviceTier: tier } }, stream: this.stream };
    }
    return { usage, stream: this.stream };
  }

  private consume(chunk: Buffer): void {
    if (this.parser !== undefined) {
      this.parser.push(chunk);
      return;
    }
    if (this.json === undefined) return;
    this.jsonBytes += chunk.byteLength;
    if (this.jsonBytes > this.maxJson) {
      this.json = undefined;
      this.failure = `response body over ${this.maxJson} bytes; usage not read`;
      return;
    }
    this.json.push(chunk);
  }

  private result(): UsageResult {
    if (this.failure !== undefined) return { ok: false, reason: this.failure };
    if (this.parser !== undefined) return this.parser.end();
    const parts = this.json ?? [];
    const whole = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
    // A large body is never parsed whole on the shared event loop: only its usage-bearing ends are.
    const body = whole.byteLength > MAX_RESPONSE_PARSE_BYTES ? usageEssentials(whole) : whole;
    if (body === null) {
      return {
        ok: false,
        reason: `response over ${MAX_RESPONSE_PARSE_BYTES} bytes with no usage at its end`,
      };
    }
    return usageFromResponse({
      provider: this.opts.provider,
      body,
      contentType: this.contentType ?? null,
      status: this.status,
      url: this.opts.url,
      requestBody: this.opts.requestBody,
      ...(this.opts.tokenCounter ? { tokenCounter: this.opts.tokenCounter } : {}),
    });
  }
}
