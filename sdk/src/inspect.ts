/**
 * What the interceptor reads from a fetch call's arguments, without consuming or changing anything:
 * the URL, the method, the signal and — when it is a string or bytes — the body. Anything unusual
 * (an input that is neither a string, a URL nor a Request; an init that is not an object; a getter
 * that throws) makes the call pass through untracked, so the raw fetch handles it exactly as it would.
 */

/** The parts of a call the SDK uses. */
export interface RequestTarget {
  /** Absolute (or, for a forced provider, possibly relative) URL. */
  readonly url: string;
  /** Path without query string or fragment. */
  readonly path: string;
  /** Upper-case method. */
  readonly method: string;
  /** Body text or a private copy of its bytes; undefined for streams, forms, blobs and Request bodies. */
  readonly body: string | Uint8Array | undefined;
  readonly aborted: boolean;
}

const RequestCtor: typeof Request | undefined = typeof Request === 'function' ? Request : undefined;
const URLCtor: typeof URL | undefined = typeof URL === 'function' ? URL : undefined;

/** Reads the target of `fetch(input, init)`; undefined when the call must pass through untouched. */
export function inspectRequest(args: readonly unknown[]): RequestTarget | undefined {
  const input = args[0];
  const init = args[1];
  if (init !== undefined && init !== null && typeof init !== 'object') return undefined;
  const options = (init ?? undefined) as RequestInit | undefined;
  let url: string;
  let request: Request | undefined;
  if (typeof input === 'string') url = input;
  else if (URLCtor !== undefined && input instanceof URLCtor) url = input.href;
  else if (RequestCtor !== undefined && input instanceof RequestCtor) {
    request = input;
    url = input.url;
  } else return undefined;

  const rawMethod = options?.method ?? request?.method ?? 'GET';
  if (typeof rawMethod !== 'string') return undefined;
  const signal = options?.signal ?? request?.signal;
  const aborted = typeof signal === 'object' && signal !== null && signal.aborted === true;
  let body: string | Uint8Array | undefined;
  if (options !== undefined && 'body' in options) body = readableBody(options.body);
  return { url, path: pathOf(url), method: rawMethod.toUpperCase(), body, aborted };
}

/** A string body as is; binary bodies copied (fetch has copied them already; the caller may reuse its buffer). */
function readableBody(body: unknown): string | Uint8Array | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body.slice();
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength).slice();
  if (body instanceof ArrayBuffer) return new Uint8Array(body.slice(0));
  return undefined;
}

const PATH_RE = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i;

/** The path of a URL string without query or fragment (`/` when empty). */
export function pathOf(url: string): string {
  const match = PATH_RE.exec(url);
  const path = match !== null ? (match[1] ?? '') : (url.split(/[?#]/, 1)[0] ?? '');
  return path.length === 0 ? '/' : path;
}
