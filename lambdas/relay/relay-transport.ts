/**
 * The seam between the relay and the transports that run it (Lambda response streaming, a Node HTTP
 * server): the request as received, how a response is sent, and what became of the request. Its own
 * module so that the relay's answer builders depend on it, not on the relay.
 */
import type { EventEnvelope } from '../../core/events/telemetry-event';
import type { HeaderBag } from './headers';

/** One request as the adapter received it. Header names are lowercase. */
export interface RelayRequest {
  readonly method: string;
  /** `/<provider slug>/<provider path>[?query]` */
  readonly url: string;
  readonly headers: HeaderBag;
  /** The whole request body. */
  readonly body: Buffer;
  /**
   * Registers `listener` for a client that goes away before the response is complete (the upstream
   * call is then aborted); returns a function that unregisters it. A plain callback rather than an
   * AbortSignal: EventTarget costs several µs per request on the hot path.
   */
  readonly onClientGone?: (listener: () => void) => () => void;
}

/** The body half of a response: a Node Writable (ServerResponse, Lambda's response stream) fits. */
export interface ResponseBody {
  write(chunk: Buffer): boolean;
  end(chunk?: Buffer | string): unknown;
  once(event: 'drain', listener: () => void): unknown;
  destroy(error?: Error): unknown;
}

/** How a transport sends a response. */
export interface RelayResponder {
  /** Sends status and headers; the body follows through the returned writer. */
  start(status: number, headers: Record<string, string | string[]>): ResponseBody;
  /** Whether the provider's `content-length` may be passed on (false when the transport re-chunks). */
  readonly keepsContentLength: boolean;
}

/** What happened to one request (for adapters, metrics and tests). */
export interface RelayOutcome {
  /** Status sent to the client (499: the client left before a response). */
  readonly status: number;
  readonly kind: 'forwarded' | 'rejected' | 'upstream_error' | 'cut';
  /** The envelope put on the sink, if any. */
  readonly envelope?: EventEnvelope;
  /** Whether the envelope reached the sink. */
  readonly recorded: boolean;
}
