/**
 * A request Node's HTTP parser refuses before any handler sees it (a header with a control or non-ASCII
 * byte, a malformed request line, headers past the size limit) got Node's bare `400` with no body. The
 * local gateway and proxy answer it as their handlers answer bad input: a JSON error that says what is
 * wrong. (In AWS, CloudFront and API Gateway refuse such requests themselves.)
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** Answers requests the HTTP parser refuses with a JSON 400 (431 for headers that are too large). */
export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      error: {
        message: tooLarge
          ? 'the request headers are too large'
          : `the HTTP request is malformed (${err.code ?? 'parse error'}): header names and values must be visible ASCII, the request line METHOD /path HTTP/1.1`,
        type: 'invalid_request_error',
        code: tooLarge ? 'headers_too_large' : 'malformed_request',
      },
    });
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
        'content-type: application/json\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        'connection: close\r\n\r\n' +
        body,
    );
  });
}
