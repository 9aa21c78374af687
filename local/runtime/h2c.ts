/**
 * HTTP/1.1 and HTTP/2 without TLS (h2c, "prior knowledge": RFC 9113 §3.3) on one port. The AWS SDK's
 * Bedrock Runtime client speaks only HTTP/2 (its default handler is NodeHttp2Handler); CloudFront takes
 * HTTP/2 from clients, so the local stack must too, on the same port as every HTTP/1.1 client.
 *
 * `http2.createServer` alone cannot share a port with HTTP/1.1 for prior-knowledge clients, so a plain
 * `net` server reads the first bytes of each connection: the HTTP/2 connection preface
 * (`PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`) hands the socket to an http2 server, anything else to the http1
 * server (`emit('connection', socket)`, the bytes put back with `unshift`). Both run the same request
 * handler through Node's compatibility API.
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { Duplex } from 'node:stream';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/**
 * The socket as a stream that first replays the bytes already read. The http2 session reads a native
 * socket's handle directly, past anything `unshift` put back; over a plain Duplex Node wraps the stream
 * itself (JSStreamSocket) and sees the replayed preface.
 */
function replayed(socket: net.Socket, head: Buffer): Duplex {
  const stream = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _enc, cb) {
      socket.write(chunk, cb);
    },
    final(cb) {
      socket.end(cb);
    },
    destroy(err, cb) {
      socket.destroy(err ?? undefined);
      cb(err);
    },
  });
  stream.push(head);
  socket.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.once('end', () => stream.push(null));
  socket.once('close', () => stream.destroy());
  return stream;
}

/** A request handler both protocols can run (Node's HTTP/2 compatibility objects fit the http1 shapes). */
export type DualHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** The front server and the two protocol servers behind it. */
export interface DualServer {
  /** Listen / close / address on this one. */
  readonly front: net.Server;
  readonly http1: http.Server;
  readonly http2: http2.Http2Server;
}

/**
 * Puts `http1` (already created with its handler) and a new h2c server running `handler` behind one
 * listening socket.
 */
export function dualProtocolServer(http1: http.Server, handler: DualHandler): DualServer {
  const h2 = http2.createServer(
    {},
    handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
  );
  const front = net.createServer((socket) => {
    let seen: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      seen = seen.byteLength === 0 ? chunk : Buffer.concat([seen, chunk]);
      const n = Math.min(seen.byteLength, PREFACE.byteLength);
      const isH2 = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (isH2 && seen.byteLength < PREFACE.byteLength) return; // wait for the whole preface
      socket.off('data', onData);
      if (isH2) {
        h2.emit('connection', replayed(socket, seen));
        return;
      }
      socket.pause();
      socket.unshift(seen);
      http1.emit('connection', socket);
      socket.resume();
    };
    socket.on('data', onData);
    socket.on('error', () => undefined);
  });
  return { front, http1, http2: h2 };
}
