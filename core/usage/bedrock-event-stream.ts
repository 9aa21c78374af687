/**
 * AWS event-stream framing (`application/vnd.amazon.eventstream`) for Bedrock's streamed responses,
 * decoded with the AWS codec (`@smithy/eventstream-codec`: prelude and message CRC32 checks, typed
 * headers). Only the message boundary is read here, from the prelude's total-length field, so that
 * chunks cut anywhere are reassembled; everything else is the codec's.
 *
 * Memory is bounded by one message ({@link MAX_EVENT_MESSAGE_BYTES}); a longer or corrupt message stops
 * the decoder (its `error` says why) and the bytes that follow are ignored.
 *
 * {@link readBedrockEventStream} feeds the decoded events to a `BedrockEventTally` (`bedrock.ts`). The
 * relay passes it as `UsageContext.bedrockEventStream`; the SDK, which sees events the AWS client has
 * already decoded, bundles neither the codec nor this reader.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { BedrockEventTally } from './bedrock';
import { fail, failedWith } from './normalize';
import type { BedrockStreamEvent, EventStreamDecoder, UsageContext, UsageResult, UsageStream } from './types';

/** Largest message accepted (Bedrock's chunks are a few kB; the AWS SDK's own limit is 16 MiB). */
export const MAX_EVENT_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Prelude (total length, headers length, prelude CRC) plus the message CRC. */
const MIN_MESSAGE_BYTES = 16;

const utf8Decoder = new TextDecoder();
const utf8Encoder = new TextEncoder();
const codec = new EventStreamCodec(
  (bytes: Uint8Array) => utf8Decoder.decode(bytes),
  (text: string) => utf8Encoder.encode(text),
);

function headerString(value: { type: string; value: unknown } | undefined): string {
  return value !== undefined && value.type === 'string' ? String(value.value) : '';
}

class CodecDecoder implements EventStreamDecoder {
  private buffer: Uint8Array = new Uint8Array(0);
  private failure: string | undefined;

  get error(): string | undefined {
    return this.failure;
  }

  get pending(): number {
    return this.buffer.byteLength;
  }

  push(chunk: Uint8Array): readonly BedrockStreamEvent[] {
    if (this.failure !== undefined || chunk.byteLength === 0) return [];
    this.buffer = this.buffer.byteLength === 0 ? chunk : concat(this.buffer, chunk);
    const events: BedrockStreamEvent[] = [];
    let offset = 0;
    while (this.buffer.byteLength - offset >= 4) {
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset + offset);
      const total = view.getUint32(0, false);
      if (total < MIN_MESSAGE_BYTES || total > MAX_EVENT_MESSAGE_BYTES) {
        this.stop(
          `event-stream message of ${total} bytes (bounds ${MIN_MESSAGE_BYTES}..${MAX_EVENT_MESSAGE_BYTES})`,
        );
        return events;
      }
      if (this.buffer.byteLength - offset < total) break;
      try {
        const message = codec.decode(this.buffer.subarray(offset, offset + total));
        const messageType = headerString(message.headers[':message-type']) || 'event';
        const eventType =
          messageType === 'event'
            ? headerString(message.headers[':event-type'])
            : headerString(message.headers[':exception-type']) ||
              headerString(message.headers[':error-code']) ||
              messageType;
        events.push({ messageType, eventType, payload: message.body });
      } catch (err) {
        this.stop(`corrupt event-stream message: ${err instanceof Error ? err.message : String(err)}`);
        return events;
      }
      offset += total;
    }
    // Keep only the incomplete tail (copied, so the caller's chunk is not retained whole).
    this.buffer = offset === 0 ? this.buffer : this.buffer.slice(offset);
    return events;
  }

  private stop(reason: string): void {
    this.failure = reason;
    this.buffer = new Uint8Array(0);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

/** A fresh decoder for one response. */
export function createEventStreamDecoder(): EventStreamDecoder {
  return new CodecDecoder();
}

/** A Bedrock runtime stream's usage: the codec's events, fed to a {@link BedrockEventTally}. */
class BedrockByteStream implements UsageStream {
  readonly #decoder = createEventStreamDecoder();
  readonly #tally: BedrockEventTally;
  #result: UsageResult | undefined;

  constructor(ctx: UsageContext) {
    this.#tally = new BedrockEventTally(ctx);
  }

  push(chunk: Uint8Array): void {
    if (this.#result !== undefined) return;
    try {
      for (const e of this.#decoder.push(chunk)) this.#tally.event(e.eventType, e.payload, e.messageType);
    } catch (err) {
      this.#result = failedWith('stream parser error', err);
    }
  }

  end(): UsageResult {
    if (this.#result !== undefined) return this.#result;
    const result = this.#tally.end();
    if (this.#decoder.error !== undefined && !result.ok) return fail(this.#decoder.error);
    return result;
  }
}

/**
 * Reads the usage of a Bedrock runtime stream (`application/vnd.amazon.eventstream` bytes: ConverseStream,
 * InvokeModelWithResponseStream); pass as `UsageContext.bedrockEventStream`.
 */
export function readBedrockEventStream(ctx: UsageContext): UsageStream {
  return new BedrockByteStream(ctx);
}
