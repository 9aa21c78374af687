/**
 * Which headers cross the relay. Requests: everything the client sent except Spendguard's own headers,
 * hop-by-hop headers and headers the AWS front door adds; responses: everything the provider sent
 * except hop-by-hop headers. Names are compared in lowercase (Node and Function URLs deliver them so).
 */

/** Header with the CloudFront origin secret (a custom origin header; checked in constant time). */
export const ORIGIN_SECRET_HEADER = 'x-spendguard-origin-secret';
/** Header with the Spendguard API key. */
export const API_KEY_HEADER = 'service-api-key';
/** Optional attribution headers, recorded on the event and never forwarded. */
export const CONTEXT_HEADERS = {
  sessionId: 'x-spendguard-session',
  projectId: 'x-spendguard-project',
  environment: 'x-spendguard-environment',
  featureId: 'x-spendguard-feature',
} as const;

/** RFC 9110 §7.6.1 connection-specific headers (plus the de-facto `proxy-connection`). */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Request headers that are never forwarded (a provider's own may be kept by prefix:
 * Bedrock's `x-amzn-bedrock-*`): ours, hop-by-hop, `host` (set from the upstream URL),
 * `content-length` (recomputed from the body bytes) and `expect` (the relay has the whole body already).
 */
const DROPPED_REQUEST: ReadonlySet<string> = new Set([
  ...HOP_BY_HOP,
  API_KEY_HEADER,
  'host',
  'content-length',
  'expect',
  'via',
]);

/**
 * Prefixes of headers that are never forwarded: Spendguard's own (`x-spendguard-*`, the origin secret
 * among them) and those the AWS front door adds (CloudFront's `cloudfront-*`, `x-amz-cf-*`, Function
 * URLs' `x-amzn-*`, and `x-forwarded-*`, which would hand the client's address to the provider).
 */
const DROPPED_REQUEST_PREFIXES = [
  'x-spendguard-',
  'x-amzn-',
  'x-amz-cf-',
  'cloudfront-',
  'x-forwarded-',
] as const;

export type HeaderValue = string | readonly string[] | undefined;
export type HeaderBag = Readonly<Record<string, HeaderValue>>;

/** Names listed in a `Connection` header are hop-by-hop for that message too. */
function connectionTokens(connection: HeaderValue): ReadonlySet<string> | undefined {
  if (connection === undefined) return undefined;
  const text = typeof connection === 'string' ? connection : connection.join(',');
  const names = text
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t.length > 0 && t !== 'close' && t !== 'keep-alive');
  return names.length === 0 ? undefined : new Set(names);
}

function droppedRequestHeader(name: string): boolean {
  if (DROPPED_REQUEST.has(name)) return true;
  // Cheap first-character test before the prefix scan: most headers start with other letters.
  const c = name.charCodeAt(0);
  if (c === 58 /* : */) return true; // HTTP/2 pseudo-headers (`:method`, `:path`, `:authority`)
  if (c !== 120 /* x */ && c !== 99 /* c */) return false;
  for (const prefix of DROPPED_REQUEST_PREFIXES) if (name.startsWith(prefix)) return true;
  return false;
}

/**
 * The headers to send upstream: the client's, minus the dropped ones, values untouched (multi-valued
 * headers stay arrays). Names must be lowercase.
 *
 * @example
 * upstreamRequestHeaders({ authorization: 'Bearer sk-…', 'service-api-key': 'abn_…', host: 'proxy' })
 * // { authorization: 'Bearer sk-…' }
 */
export function upstreamRequestHeaders(
  headers: HeaderBag,
  keepPrefixes?: readonly string[],
): Record<string, string | string[]> {
  const extra = connectionTokens(headers.connection);
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || extra?.has(name)) continue;
    if (droppedRequestHeader(name) && !keepPrefixes?.some((p) => name.startsWith(p))) continue;
    out[name] = value as string | string[];
  }
  return out;
}

/**
 * The provider's response headers for the client, minus hop-by-hop ones. `content-length` is kept
 * when `keepContentLength` (the local proxy sends the same bytes) and dropped otherwise (a Lambda
 * streamed response is chunked by the Function URL).
 */
export function clientResponseHeaders(
  headers: HeaderBag,
  keepContentLength: boolean,
): Record<string, string | string[]> {
  const extra = connectionTokens(headers.connection);
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || extra?.has(name)) continue;
    if (!keepContentLength && name === 'content-length') continue;
    out[name] = value as string | string[];
  }
  return out;
}

/** The first value of a header, or undefined. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  return typeof v === 'string' ? v : v?.[0];
}
