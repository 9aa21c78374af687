/**
 * The API Gateway HTTP API stand-in: a node:http server that turns each request into the payload
 * format 2.0 event API Gateway sends a Lambda proxy integration, calls the same handler, and maps its
 * result back the way API Gateway does. JWT-protected routes are checked first, like API Gateway's
 * JWT authorizer, so an unauthenticated request never reaches the handler.
 *
 * Differences from AWS, on purpose: one stage (`$default`), no CORS configuration (the dashboard is
 * served from the same origin), no throttling, no 30-second integration timeout, and only loopback
 * `Host` values are answered (421 otherwise: DNS rebinding, see ./loopback-host).
 */
import { answerMalformedRequests } from './client-error';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';

import { InvalidOptionsError } from './errors';
import { createLambdaContext, LOCAL_ACCOUNT_ID } from './lambda-context';
import { createConsoleLogger, type RuntimeLogger } from './logger';
import { allowedHosts, hostAllowed, misdirectedMessage } from './loopback-host';
import { createStaticSite, type StaticSite, type StaticSiteOptions } from './static-site';

/** HTTP methods a route can match; `ANY` matches all of them, as in API Gateway. */
export type GatewayMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS' | 'ANY';

/** A handler of a public route (a Middy-wrapped handler fits as it is). */
export type PublicRouteHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyResultV2> | APIGatewayProxyResultV2;

/** A handler of a JWT-protected route: the event carries the verified claims. */
export type JwtRouteHandler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => Promise<APIGatewayProxyResultV2> | APIGatewayProxyResultV2;

interface RouteBase {
  readonly method: GatewayMethod;
  /**
   * `/v1/orgs/{orgId}/budgets`, `/files/{proxy+}` (greedy, last segment only) or `$default`
   * (matches what no other route does).
   */
  readonly path: string;
  /**
   * Function name in the handler's Lambda context.
   * @default derived from the route, e.g. `GET-v1-orgs-orgId`
   */
  readonly functionName?: string;
}

/** One API route: method + path → handler, public or behind the JWT authorizer. */
export type GatewayRoute =
  | (RouteBase & { readonly auth: 'none'; readonly handler: PublicRouteHandler })
  | (RouteBase & { readonly auth: 'jwt'; readonly handler: JwtRouteHandler });

/** A route answered by plain node:http code (JWKS, OpenAPI document): exact path, no event. */
export interface RawRoute {
  readonly method: GatewayMethod;
  readonly path: string;
  readonly handler: (request: IncomingMessage, response: ServerResponse) => Promise<void> | void;
}

/**
 * What the gateway needs from a JWT verifier. An `aws-jwt-verify` verifier created with issuer and
 * audience (see `LocalIssuer.createVerifier`, or a `CognitoJwtVerifier`) satisfies it.
 */
export interface JwtVerifierLike {
  /** Resolves with the token's claims; rejects if the signature, issuer, audience or expiry is wrong. */
  verify(token: string): Promise<Readonly<Record<string, unknown>>>;
}

/** Options of {@link startHttpGateway}. */
export interface HttpGatewayOptions {
  /** @default 0 (a free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  readonly routes?: readonly GatewayRoute[];
  readonly rawRoutes?: readonly RawRoute[];
  /** Required before a request reaches a JWT route (may also be set later with `setJwtVerifier`). */
  readonly jwtVerifier?: JwtVerifierLike;
  /** Serve a built single-page app (the dashboard) for GET/HEAD requests no route matched. */
  readonly static?: StaticSiteOptions;
  /**
   * Request body limit; API Gateway's is 10 MB.
   * @default 10485760
   */
  readonly maxPayloadBytes?: number;
  /** @default console logger */
  readonly logger?: RuntimeLogger;
}

/** A running gateway. */
export interface HttpGateway {
  /** For example `http://127.0.0.1:3000` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  addRoute(route: GatewayRoute): void;
  addRawRoute(route: RawRoute): void;
  /** Sets (or replaces) the JWT authorizer's verifier, e.g. once the issuer knows the gateway's URL. */
  setJwtVerifier(verifier: JwtVerifierLike): void;
  /** Stops listening; open keep-alive connections are closed, busy ones get a second to finish. */
  close(): Promise<void>;
}

/** API Gateway's payload limit for HTTP APIs. */
export const API_GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

const CLOSE_GRACE_MS = 1000;

/**
 * Request content types API Gateway passes as text; any other body (including none declared,
 * form-encoded and octet-stream) reaches the handler base64-encoded with `isBase64Encoded: true`.
 */
function isTextContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const mime = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return (
    mime.startsWith('text/') ||
    mime === 'application/json' ||
    mime.endsWith('+json') ||
    mime === 'application/xml' ||
    mime.endsWith('+xml') ||
    mime === 'application/javascript'
  );
}

type Segment =
  | { readonly kind: 'literal'; readonly value: string }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'greedy'; readonly name: string };

interface CompiledRoute {
  readonly route: GatewayRoute;
  readonly routeKey: string;
  /** `undefined` for `$default`. */
  readonly segments: readonly Segment[] | undefined;
  readonly functionName: string;
}

interface RouteMatch {
  readonly compiled: CompiledRoute;
  readonly pathParameters: Record<string, string> | undefined;
}

/**
 * Starts the gateway.
 *
 * Order of matching: raw routes, API routes (most specific first: literal segments beat
 * `{param}`, which beats `{proxy+}`; a method beats `ANY`), the static site, the `$default` route, then
 * 404 `{"message":"Not Found"}`.
 *
 * @example
 * const gateway = await startHttpGateway({
 *   port: 3000,
 *   routes: [{ method: 'POST', path: '/v1/events', auth: 'none', handler: ingestHandler }],
 *   static: { dir: 'dashboard/dist' },
 * });
 * // curl -X POST http://127.0.0.1:3000/v1/events -d '{…}'
 */
export async function startHttpGateway(options: HttpGatewayOptions = {}): Promise<HttpGateway> {
  const host = options.host ?? '127.0.0.1';
  const maxPayloadBytes = options.maxPayloadBytes ?? API_GATEWAY_MAX_PAYLOAD_BYTES;
  const logger = options.logger ?? createConsoleLogger('http-gateway');
  const routes: CompiledRoute[] = [];
  const rawRoutes: RawRoute[] = [];
  let verifier = options.jwtVerifier;
  const staticSite: StaticSite | undefined =
    options.static === undefined ? undefined : createStaticSite(options.static);

  const addRoute = (route: GatewayRoute): void => {
    const compiled = compileRoute(route);
    if (routes.some((existing) => existing.routeKey === compiled.routeKey)) {
      throw new InvalidOptionsError(`Route ${compiled.routeKey} is defined twice`);
    }
    routes.push(compiled);
  };
  const addRawRoute = (route: RawRoute): void => {
    rawRoutes.push(route);
  };
  for (const route of options.routes ?? []) addRoute(route);
  for (const route of options.rawRoutes ?? []) addRawRoute(route);

  const server = createServer((request, response) => {
    handleRequest(request, response).catch((error: unknown) => {
      logger.error('http gateway: request failed', { error: describeError(error), url: request.url });
      sendJson(response, 500, { message: 'Internal Server Error' });
    });
  });

  answerMalformedRequests(server);

  // Set once listening; every request arrives after that.
  let hosts: ReadonlySet<string> = new Set();
  let boundPort = 0;

  async function handleRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Before anything else, raw routes (config.json and its ID token) and the static site included.
    if (!hostAllowed(request.headers.host, hosts)) {
      request.resume();
      sendJson(response, 421, { message: misdirectedMessage(boundPort) }, { connection: 'close' });
      return;
    }
    const requestId = newRequestId();
    const receivedAt = Date.now();
    response.setHeader('apigw-requestid', requestId);
    const method = (request.method ?? 'GET').toUpperCase();
    const url = request.url ?? '/';
    const queryStart = url.indexOf('?');
    const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
    const rawQueryString = queryStart === -1 ? '' : url.slice(queryStart + 1);

    const raw = rawRoutes.find((route) => route.path === rawPath && methodMatches(route.method, method));
    if (raw !== undefined) {
      await raw.handler(request, response);
      return;
    }

    const match = matchRoute(routes, method, rawPath);
    // The static site comes after the routes and before `$default` (locally one origin serves both;
    // in AWS the dashboard has its own distribution).
    if (match === undefined || match.compiled.segments === undefined) {
      if (staticSite !== undefined && (await staticSite(request, response, rawPath))) return;
    }
    if (match === undefined) {
      request.resume();
      sendJson(response, 404, { message: 'Not Found' });
      return;
    }

    const body = await readBody(request, maxPayloadBytes);
    if (body === 'too-large') {
      sendJson(response, 413, { message: 'Request Entity Too Large' }, { connection: 'close' });
      return;
    }

    const event = buildEvent({
      request,
      method,
      rawPath,
      rawQueryString,
      body,
      requestId,
      receivedAt,
      routeKey: match.compiled.routeKey,
      pathParameters: match.pathParameters,
    });
    const context = createLambdaContext({ functionName: match.compiled.functionName });

    let result: APIGatewayProxyResultV2;
    const { route } = match.compiled;
    try {
      if (route.auth === 'jwt') {
        const authorizer = await authorize(request.headers.authorization, verifier);
        if ('rejection' in authorizer) {
          sendJson(
            response,
            401,
            { message: 'Unauthorized' },
            {
              'www-authenticate': `Bearer scope="" error="invalid_token" error_description="${authorizer.rejection}"`,
            },
          );
          return;
        }
        result = await route.handler(
          { ...event, requestContext: { ...event.requestContext, authorizer: authorizer.authorizer } },
          context,
        );
      } else {
        result = await route.handler(event, context);
      }
    } catch (error) {
      // API Gateway answers a failed invocation with a bare 500; the details stay in the function's log.
      logger.error('http gateway: handler threw', {
        routeKey: match.compiled.routeKey,
        error: describeError(error),
      });
      sendJson(response, 500, { message: 'Internal Server Error' });
      return;
    }
    writeResult(response, result, logger, match.compiled.routeKey);
  }

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
  hosts = allowedHosts(host, port);
  boundPort = port;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    addRoute,
    addRawRoute,
    setJwtVerifier: (next) => {
      verifier = next;
    },
    close: () => {
      closing ??= closeServer(server);
      return closing;
    },
  };
}

function compileRoute(route: GatewayRoute): CompiledRoute {
  if (route.path === '$default') {
    return {
      route,
      routeKey: '$default',
      segments: undefined,
      functionName: route.functionName ?? 'default',
    };
  }
  if (!route.path.startsWith('/')) {
    throw new InvalidOptionsError(`Route path must start with "/" or be "$default", got "${route.path}"`);
  }
  const parts = route.path.split('/').slice(1);
  const segments = parts.map((part, index): Segment => {
    const param = /^\{([A-Za-z0-9_.-]+)(\+?)\}$/.exec(part);
    if (param === null) {
      if (part.includes('{') || part.includes('}')) {
        throw new InvalidOptionsError(`Route ${route.path}: a path parameter must be a whole segment`);
      }
      return { kind: 'literal', value: part };
    }
    const name = param[1] ?? '';
    if (param[2] === '+') {
      if (index !== parts.length - 1) {
        throw new InvalidOptionsError(`Route ${route.path}: a greedy parameter must be the last segment`);
      }
      return { kind: 'greedy', name };
    }
    return { kind: 'param', name };
  });
  const routeKey = `${route.method} ${route.path}`;
  const functionName =
    route.functionName ??
    `${route.method}${route.path.replace(/[{}+]/g, '').replace(/[^A-Za-z0-9]+/g, '-')}`.replace(/-$/, '');
  return { route, routeKey, segments, functionName };
}

function methodMatches(routeMethod: GatewayMethod, method: string): boolean {
  return routeMethod === 'ANY' || routeMethod === method;
}

/** Specificity, compared as a tuple: no greedy > more literal segments > a named method. */
function specificity(compiled: CompiledRoute): [number, number, number] {
  const segments = compiled.segments ?? [];
  return [
    segments.some((segment) => segment.kind === 'greedy') ? 0 : 1,
    segments.filter((segment) => segment.kind === 'literal').length,
    compiled.route.method === 'ANY' ? 0 : 1,
  ];
}

function matchRoute(
  routes: readonly CompiledRoute[],
  method: string,
  rawPath: string,
): RouteMatch | undefined {
  const parts = rawPath.split('/').slice(1);
  let best: { match: RouteMatch; rank: [number, number, number] } | undefined;
  let fallback: RouteMatch | undefined;
  for (const compiled of routes) {
    if (!methodMatches(compiled.route.method, method)) continue;
    if (compiled.segments === undefined) {
      fallback ??= { compiled, pathParameters: undefined };
      continue;
    }
    const pathParameters = matchSegments(compiled.segments, parts);
    if (pathParameters === undefined) continue;
    const rank = specificity(compiled);
    if (best === undefined || compareRank(rank, best.rank) > 0) {
      best = {
        match: {
          compiled,
          pathParameters: Object.keys(pathParameters).length === 0 ? undefined : pathParameters,
        },
        rank,
      };
    }
  }
  return best?.match ?? fallback;
}

function compareRank(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

function matchSegments(
  segments: readonly Segment[],
  parts: readonly string[],
): Record<string, string> | undefined {
  const parameters: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    const part = parts[index];
    if (segment.kind === 'greedy') {
      const rest = parts.slice(index).join('/');
      if (rest === '') return undefined;
      parameters[segment.name] = safeDecode(rest);
      return parameters;
    }
    if (part === undefined) return undefined;
    if (segment.kind === 'literal') {
      if (part !== segment.value) return undefined;
    } else {
      if (part === '') return undefined;
      parameters[segment.name] = safeDecode(part);
    }
  }
  return parts.length === segments.length ? parameters : undefined;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Reads the whole body, or reports that it exceeds the limit. An oversized body is still read to
 * its end (up to a hard cap) before the 413 goes out, so the client sees the answer rather than a
 * reset connection.
 */
async function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | 'too-large'> {
  const declared = Number(request.headers['content-length'] ?? '0');
  const hardCap = maxBytes * 4;
  if (Number.isFinite(declared) && declared > hardCap) {
    request.destroy();
    return 'too-large';
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let tooLarge = Number.isFinite(declared) && declared > maxBytes;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > hardCap) {
      request.destroy();
      return 'too-large';
    }
    if (total > maxBytes) tooLarge = true;
    if (!tooLarge) chunks.push(chunk);
  }
  return tooLarge ? 'too-large' : Buffer.concat(chunks);
}

interface EventInput {
  readonly request: IncomingMessage;
  readonly method: string;
  readonly rawPath: string;
  readonly rawQueryString: string;
  readonly body: Buffer;
  readonly requestId: string;
  readonly receivedAt: number;
  readonly routeKey: string;
  readonly pathParameters: Record<string, string> | undefined;
}

/** The payload format 2.0 event for a request. */
function buildEvent(input: EventInput): APIGatewayProxyEventV2 {
  const { request } = input;
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, values] of Object.entries(request.headersDistinct)) {
    if (values === undefined) continue;
    if (name === 'cookie') {
      // Format 2.0 moves cookies out of the headers into `cookies`, one entry per cookie.
      for (const value of values) {
        for (const cookie of value.split(';')) {
          const trimmed = cookie.trim();
          if (trimmed !== '') cookies.push(trimmed);
        }
      }
      continue;
    }
    headers[name] = values.join(',');
  }
  const sourceIp = (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const localPort = request.socket.localPort ?? 0;
  headers['x-forwarded-for'] ??= sourceIp;
  headers['x-forwarded-port'] ??= String(localPort);
  headers['x-forwarded-proto'] ??= 'http';
  headers['x-amzn-trace-id'] ??=
    `Root=1-${Math.floor(input.receivedAt / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;

  const queryStringParameters = parseQuery(input.rawQueryString);
  const domainName = headers.host ?? `127.0.0.1:${localPort}`;
  const hasBody = input.body.length > 0;
  const textBody = isTextContentType(headers['content-type']);

  return {
    version: '2.0',
    routeKey: input.routeKey,
    rawPath: input.rawPath,
    rawQueryString: input.rawQueryString,
    ...(cookies.length === 0 ? {} : { cookies }),
    headers,
    ...(queryStringParameters === undefined ? {} : { queryStringParameters }),
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0] ?? domainName,
      http: {
        method: input.method,
        path: input.rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: input.requestId,
      routeKey: input.routeKey,
      stage: '$default',
      time: formatRequestTime(input.receivedAt),
      timeEpoch: input.receivedAt,
    },
    ...(input.pathParameters === undefined ? {} : { pathParameters: input.pathParameters }),
    ...(hasBody ? { body: textBody ? input.body.toString('utf8') : input.body.toString('base64') } : {}),
    isBase64Encoded: hasBody && !textBody,
  };
}

/** Query parameters, decoded, duplicates joined with commas (format 2.0); `undefined` when there are none. */
function parseQuery(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const parameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    parameters[name] = parameters[name] === undefined ? value : `${parameters[name]},${value}`;
  }
  return Object.keys(parameters).length === 0 ? undefined : parameters;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's `requestContext.time` format: `12/Mar/2020:19:03:58 +0000`. */
function formatRequestTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number): string => String(value).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()] ?? ''}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

/** A request id shaped like API Gateway's (`Mc7UVioPPHcEKPA=`). */
function newRequestId(): string {
  return randomBytes(10).toString('base64');
}

type Authorization =
  | { readonly authorizer: APIGatewayProxyEventV2WithJWTAuthorizer['requestContext']['authorizer'] }
  | { readonly rejection: string };

/**
 * The JWT authorizer: the token may come with or without the `Bearer ` prefix; the verifier checks
 * signature, issuer, audience and expiry. Claims reach the handler as API Gateway's HTTP API passes
 * them: every value a string (numbers and booleans stringified, arrays as `[a b]`), and `scopes`
 * from the `scope` claim, or null.
 */
async function authorize(
  header: string | undefined,
  verifier: JwtVerifierLike | undefined,
): Promise<Authorization> {
  const token = header?.replace(/^Bearer\s+/i, '').trim();
  if (token === undefined || token === '') return { rejection: 'the token is missing' };
  // Fail closed: a JWT route without a verifier must not become a public route.
  if (verifier === undefined) return { rejection: 'no JWT verifier is configured' };
  let payload: Readonly<Record<string, unknown>>;
  try {
    payload = await verifier.verify(token);
  } catch (error) {
    // The message helps whoever debugs a 401, but it may quote the token's bytes: keep it to
    // printable ASCII without double quotes, or it breaks (or cannot be put in) the header.
    const message = error instanceof Error ? error.message : 'invalid token';
    return {
      rejection: message
        .replaceAll('"', "'")
        .replace(/[^\x20-\x7e]/g, '?')
        .slice(0, 200),
    };
  }
  const claims: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) claims[name] = claimToString(value);
  const scope = payload.scope;
  const scopes = typeof scope === 'string' && scope.trim() !== '' ? scope.trim().split(/\s+/) : null;
  return { authorizer: { jwt: { claims, scopes } } };
}

function claimToString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map((item) => claimToString(item)).join(' ')}]`;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/**
 * Maps a handler result onto the HTTP response as API Gateway (format 2.0) does: an object with a
 * `statusCode` is a structured response; a string is a 200 JSON response with that body; any other
 * value is serialized to JSON as the body of a 200 response.
 */
function writeResult(
  response: ServerResponse,
  result: APIGatewayProxyResultV2,
  logger: RuntimeLogger,
  routeKey: string,
): void {
  if (typeof result === 'object' && result !== null && 'statusCode' in result) {
    const structured: APIGatewayProxyStructuredResultV2 = result;
    const statusCode = structured.statusCode;
    if (
      typeof statusCode !== 'number' ||
      !Number.isInteger(statusCode) ||
      statusCode < 100 ||
      statusCode > 599
    ) {
      logger.error('http gateway: handler returned an invalid statusCode', { routeKey, statusCode });
      sendJson(response, 500, { message: 'Internal Server Error' });
      return;
    }
    response.statusCode = statusCode;
    for (const [name, value] of Object.entries(structured.headers ?? {})) {
      response.setHeader(name, String(value));
    }
    if (structured.cookies !== undefined && structured.cookies.length > 0) {
      response.setHeader('set-cookie', structured.cookies);
    }
    const body =
      structured.body === undefined
        ? Buffer.alloc(0)
        : structured.isBase64Encoded === true
          ? Buffer.from(structured.body, 'base64')
          : Buffer.from(structured.body, 'utf8');
    response.setHeader('content-length', body.length);
    response.end(body);
    return;
  }
  const body = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
  sendText(response, 200, body, 'application/json');
}

function sendJson(
  response: ServerResponse,
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  sendText(response, statusCode, JSON.stringify(body), 'application/json');
}

function sendText(response: ServerResponse, statusCode: number, body: string, contentType: string): void {
  const bytes = Buffer.from(body, 'utf8');
  response.statusCode = statusCode;
  response.setHeader('content-type', contentType);
  response.setHeader('content-length', bytes.length);
  response.end(bytes);
}

async function closeServer(server: Server): Promise<void> {
  const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
  try {
    await new Promise<void>((resolve, reject) => {
      server.close((error) => (error === undefined ? resolve() : reject(error)));
      server.closeIdleConnections();
    });
  } finally {
    clearTimeout(grace);
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
