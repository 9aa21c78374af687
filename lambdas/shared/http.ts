import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** One problem in a request: where (a path such as `events[3].usage.prompt_tokens`) and what. */
export interface Problem {
  path: string;
  message: string;
}

/**
 * An error the caller can act on. Handlers throw it; `toResponse` maps it to its status with a JSON body
 * `{ error: { code, message, problems? } }`. Anything else becomes a generic 500 that leaks nothing.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly problems?: Problem[],
    readonly headers?: Record<string, string>,
    /** A finer class of error in the body (`permission_error` for a key without the scope a route needs). */
    readonly type?: string,
  ) {
    super(message);
  }
}

export const httpErrors = {
  badRequest: (message: string, problems?: Problem[]) =>
    new HttpError(400, 'invalid_request', message, problems),
  unauthorized: (message = 'missing or invalid credentials') => new HttpError(401, 'unauthorized', message),
  forbidden: (message = 'not allowed for this organization') => new HttpError(403, 'forbidden', message),
  /** A valid key that lacks the scope the route needs (core/keys/scopes). */
  scopeMissing: (message: string) =>
    new HttpError(403, 'scope_missing', message, undefined, undefined, 'permission_error'),
  /** A person whose role may not do this (core/roles): `… needs the admin role`. */
  roleRequired: (message: string) =>
    new HttpError(403, 'role_required', message, undefined, undefined, 'forbidden'),
  notFound: (message = 'not found') => new HttpError(404, 'not_found', message),
  /** The request contradicts a state someone else holds (another organization's claim). */
  conflict: (message: string) => new HttpError(409, 'conflict', message),
  tooLarge: (message: string) => new HttpError(413, 'payload_too_large', message),
  tooManyRequests: (message: string, retryAfterSeconds: number) =>
    new HttpError(429, 'rate_limited', message, undefined, { 'retry-after': String(retryAfterSeconds) }),
  unavailable: (message: string, retryAfterSeconds: number) =>
    new HttpError(503, 'unavailable', message, undefined, { 'retry-after': String(retryAfterSeconds) }),
} as const;

export function json(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

export function errorResponse(err: HttpError): APIGatewayProxyStructuredResultV2 {
  return json(
    err.statusCode,
    {
      error: {
        ...(err.type !== undefined ? { type: err.type } : {}),
        code: err.code,
        message: err.message,
        ...(err.problems ? { problems: err.problems } : {}),
      },
    },
    err.headers,
  );
}

export const INTERNAL_ERROR = json(500, { error: { code: 'internal_error', message: 'internal error' } });

/** The request body as text; API Gateway base64-encodes binary bodies. */
export function bodyText(event: { body?: string; isBase64Encoded?: boolean }): string {
  if (event.body === undefined) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** Parses a JSON request body, or throws a 400 that says why. */
export function parseJsonBody(event: { body?: string; isBase64Encoded?: boolean }): unknown {
  return parseJsonText(bodyText(event));
}

/** {@link parseJsonBody} of a body already decoded (a handler that measured it first). */
export function parseJsonText(text: string): unknown {
  if (text.length === 0)
    throw httpErrors.badRequest('request body is empty; expected JSON', [{ path: '', message: 'required' }]);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw httpErrors.badRequest('request body is not valid JSON', [
      { path: '', message: err instanceof Error ? err.message : 'invalid JSON' },
    ]);
  }
  // A `__proto__` member is an own key after JSON.parse, but any copy or schema that assigns it sets the
  // object's prototype instead: it vanished without a word (a budget PUT answered 200 and audited nothing
  // changed). Refused where it is; the scan runs only for a body that names it.
  if (text.includes('__proto__')) {
    const path = protoMemberPath(value, '', 0);
    if (path !== undefined)
      throw httpErrors.badRequest('request body names __proto__', [{ path, message: 'unknown field' }]);
  }
  return value;
}

/** The path of the first own `__proto__` member in parsed JSON, or undefined (depth bounded). */
function protoMemberPath(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value !== 'object' || value === null || depth > 64) return undefined;
  const list = Array.isArray(value);
  for (const key of Object.keys(value)) {
    // Paths as the schema problems write them: `events[0].usage.__proto__`.
    const at = list ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
    if (key === '__proto__') return at;
    const inner = protoMemberPath((value as Record<string, unknown>)[key], at, depth + 1);
    if (inner !== undefined) return inner;
  }
  return undefined;
}
