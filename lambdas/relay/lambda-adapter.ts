/**
 * The Lambda transport: a Function URL in RESPONSE_STREAM mode. The runtime's `awslambda` global
 * exists only inside Lambda, so it is looked up at run time and can be injected in tests.
 */
import type { Context, LambdaFunctionURLEvent } from 'aws-lambda';
import type { HeaderBag } from './headers';
import type { Relay, RelayOutcome, RelayRequest, RelayResponder, ResponseBody } from './relay';

/** The writable stream the runtime hands a streaming handler. */
export interface LambdaResponseStream extends ResponseBody {
  on(event: 'close' | 'error', listener: () => void): unknown;
  readonly writableFinished?: boolean;
}

/** Status, headers and cookies sent before the body (`HttpResponseStream.from`). */
export interface HttpResponseMetadata {
  statusCode: number;
  headers: Record<string, string>;
  cookies?: string[];
}

/** The part of the runtime's `awslambda` global the relay uses. */
export interface AwsLambdaRuntime {
  streamifyResponse<T>(handler: T): T;
  HttpResponseStream: {
    from(stream: LambdaResponseStream, metadata: HttpResponseMetadata): LambdaResponseStream;
  };
}

export type StreamingHandler = (
  event: LambdaFunctionURLEvent,
  responseStream: LambdaResponseStream,
  context?: Context,
) => Promise<void>;

/** The runtime's `awslambda` global, or undefined outside Lambda. */
export function lambdaRuntime(): AwsLambdaRuntime | undefined {
  const g = (globalThis as unknown as { awslambda?: AwsLambdaRuntime }).awslambda;
  return typeof g?.streamifyResponse === 'function' ? g : undefined;
}

/** A Function URL event as a relay request (cookies travel in `event.cookies`, not in the headers). */
export function toRelayRequest(
  event: LambdaFunctionURLEvent,
  onClientGone?: (listener: () => void) => () => void,
): RelayRequest {
  const headers: Record<string, string | undefined> = { ...event.headers };
  if (event.cookies !== undefined && event.cookies.length > 0) headers.cookie = event.cookies.join('; ');
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const body =
    event.body === undefined || event.body === null
      ? Buffer.alloc(0)
      : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  return {
    method: event.requestContext.http.method,
    url: `${event.rawPath}${query}`,
    headers: headers as HeaderBag,
    body,
    ...(onClientGone ? { onClientGone } : {}),
  };
}

/**
 * A responder over the runtime's stream: status and headers go in the prelude
 * (`HttpResponseStream.from`), `set-cookie` in its `cookies`, other repeated headers joined with `, `.
 * `content-length` is dropped: the Function URL re-chunks the stream.
 */
export function lambdaResponder(
  responseStream: LambdaResponseStream,
  from: AwsLambdaRuntime['HttpResponseStream']['from'],
): RelayResponder {
  return {
    keepsContentLength: false,
    start(status, headers) {
      const flat: Record<string, string> = {};
      let cookies: string[] | undefined;
      for (const [name, value] of Object.entries(headers)) {
        if (name === 'set-cookie') cookies = Array.isArray(value) ? value : [value as string];
        else flat[name] = Array.isArray(value) ? value.join(', ') : (value as string);
      }
      return from(responseStream, { statusCode: status, headers: flat, ...(cookies ? { cookies } : {}) });
    },
  };
}

/**
 * A call still running this long before the invocation's timeout is cut by the relay itself, as if the
 * client had left: its reservation settles (at the worst case: its usage is only partly read) and its
 * event is recorded, marked estimated, before Lambda kills the invocation — which would lose both
 * (issue 18.2: a 64k–128k-token output outlasts a 5-minute relay). Room for the event put and one lease
 * write at their store timeouts.
 */
export const RELAY_DEADLINE_MARGIN_MS = 10_000;

/** Options of {@link createStreamingHandler}. */
export interface StreamingHandlerOptions {
  /**
   * Awaited after each invocation, before it returns: work that must not be frozen half-way, such as
   * lease operations in flight (`LeaseAdmission.settled`). Lambda freezes the container right after
   * the response; a lease write pending then lands, or times out, only at the next thaw. Never rejects.
   */
  readonly beforeFreeze?: () => Promise<void>;
}

/**
 * The streaming handler over a relay. `handle` resolves after the last byte AND the event put, so the
 * invocation lasts until the event is on the stream while the client already has the whole response.
 */
export function createStreamingHandler(
  getRelay: () => Relay | Promise<Relay>,
  runtime: AwsLambdaRuntime | undefined = lambdaRuntime(),
  options: StreamingHandlerOptions = {},
): StreamingHandler {
  const handler: StreamingHandler = async (event, responseStream, context) => {
    let gone: (() => void) | undefined;
    const onGone = (): void => {
      if (responseStream.writableFinished !== true) gone?.();
    };
    responseStream.on('close', onGone);
    responseStream.on('error', onGone);
    const remainingMs = context?.getRemainingTimeInMillis?.();
    const deadline =
      remainingMs === undefined
        ? undefined
        : setTimeout(onGone, Math.max(0, remainingMs - RELAY_DEADLINE_MARGIN_MS));
    const hook = (listener: () => void): (() => void) => {
      gone = listener;
      return () => {
        gone = undefined;
      };
    };
    const from = runtime?.HttpResponseStream.from ?? fallbackFrom;
    const relay = await getRelay();
    try {
      const outcome: RelayOutcome = await relay.handle(
        toRelayRequest(event, hook),
        lambdaResponder(responseStream, from),
      );
      void outcome;
    } finally {
      if (deadline !== undefined) clearTimeout(deadline);
      await options.beforeFreeze?.().catch(() => undefined);
    }
  };
  return runtime === undefined ? handler : runtime.streamifyResponse(handler);
}

/** Outside Lambda (tests): the metadata is dropped and the body goes to the stream as is. */
const fallbackFrom = (stream: LambdaResponseStream): LambdaResponseStream => stream;
