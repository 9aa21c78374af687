/**
 * The local transport: a node:http request/response pair driven through the relay core. The response
 * is the ServerResponse itself, so every upstream chunk is written (and flushed) as it arrives.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Relay, RelayOutcome, RelayRequest, RelayResponder } from './relay';

/** Request bodies above this are refused with 413 (the Function URL limit is 6 MB). @default 32 MiB */
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** Reads a request body whole: the bytes, `too_large` past `maxBytes`, or `aborted` if the client left. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | 'too_large' | 'aborted'): void => {
      if (done) return;
      done = true;
      resolve(value);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > maxBytes) {
        chunks.length = 0;
        finish('too_large');
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => finish(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    req.once('error', () => finish('aborted'));
    req.once('close', () => finish('aborted')); // no-op after 'end'
  });
}

/** A responder over a ServerResponse: the provider's exact bytes, `content-length` included. */
export function nodeResponder(res: ServerResponse): RelayResponder {
  return {
    keepsContentLength: true,
    start(status, headers) {
      res.writeHead(status, headers);
      return res;
    },
  };
}

/** The relay's client-gone hook over a ServerResponse: `close` before the response finished. */
export function clientGoneHook(res: ServerResponse): (listener: () => void) => () => void {
  return (listener) => {
    if (res.destroyed && !res.writableFinished) {
      listener();
      return () => undefined;
    }
    const onClose = (): void => {
      if (!res.writableFinished) listener();
    };
    res.once('close', onClose);
    return () => res.off('close', onClose);
  };
}

/** Relays one node:http request whose body has been read. */
export function relayNodeRequest(
  relay: Relay,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
): Promise<RelayOutcome> {
  const request: RelayRequest = {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: req.headers,
    body,
    onClientGone: clientGoneHook(res),
  };
  return relay.handle(request, nodeResponder(res));
}
