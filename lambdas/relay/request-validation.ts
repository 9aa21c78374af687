/**
 * What Node's HTTP client would refuse to send, found before admission (issue 19.3): a header value
 * outside Latin-1 or with a control character, a header name that is not a token, a path with a space,
 * a control or a non-Latin-1 character. Found after admission, `http.request` throws and the reservation
 * must be released; found here, the client gets a 400 that names the problem and nothing is reserved.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { HeaderBag } from './headers';

/** What is wrong with a request, for a 400 `invalid_request` answer. */
export interface RequestProblem {
  readonly message: string;
}

/** Node's own rule for a request path (`INVALID_PATH_REGEX` in `_http_client.js`). */
const INVALID_PATH = /[^\u0021-\u00ff]/;

/**
 * Checks the headers that will be forwarded and the path that will be requested upstream; undefined when
 * Node will send both as given.
 *
 * @example requestProblem({ 'x-note': 'café ☕' }, '/v1/chat/completions')
 * // { message: "Header 'x-note' has a value Node cannot send (outside Latin-1 or a control character)." }
 */
export function requestProblem(
  forwarded: Readonly<Record<string, string | readonly string[]>>,
  path: string,
): RequestProblem | undefined {
  if (INVALID_PATH.test(path)) {
    return {
      message:
        'The request path has a space, a control character or a character outside Latin-1; percent-encode it.',
    };
  }
  for (const name in forwarded) {
    try {
      validateHeaderName(name);
    } catch {
      return { message: `Header name '${printable(name)}' is not a valid HTTP token.` };
    }
    const value = forwarded[name] as string | readonly string[];
    const values = typeof value === 'string' ? [value] : value;
    for (const v of values) {
      try {
        validateHeaderValue(name, v);
      } catch {
        return {
          message: `Header '${printable(name)}' has a value Node cannot send (outside Latin-1 or a control character).`,
        };
      }
    }
  }
  return undefined;
}

/** A header name as it may appear in an error message (no control characters, bounded length). */
function printable(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f\u007f-\uffff]/g, '?').slice(0, 64);
}

/**
 * Duplicate `x-spendguard-session` values (issue 19.6): a Function URL joins repeated headers with commas
 * while the edge reads the first one, so the two would attribute the call to different sessions.
 * True when the header arrived more than once (an array, or a comma-joined value).
 */
export function duplicateHeader(headers: HeaderBag, name: string): boolean {
  const v = headers[name];
  if (v === undefined) return false;
  if (typeof v !== 'string') return v.length > 1;
  return v.includes(',');
}
