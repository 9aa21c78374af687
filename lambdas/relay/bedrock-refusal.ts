/**
 * Spendguard's own refusals on Bedrock routes, shaped for the AWS SDK: the error type in
 * `x-amzn-errortype`, `{"message": "…"}` as the body, and a status the SDK does NOT retry. The AWS SDK
 * retries 429, throttling error names (`ThrottlingException`, `TooManyRequestsException`, …) and
 * 500/502/503/504 (@smithy/core retry: THROTTLING_ERROR_CODES, TRANSIENT_ERROR_STATUS_CODES), three
 * attempts by default; a refusal in that shape would be sent three times. So a final refusal is shaped
 * as one the SDK does not retry, and only a refusal that says a retry can succeed (`x-should-retry: true`:
 * `budget_busy`, the room held by calls in flight, issue 18.7) keeps a retried shape:
 *
 * | Spendguard refusal                          | status | x-amzn-errortype                |
 * |---------------------------------------------|--------|---------------------------------|
 * | budget busy (429, x-should-retry: true)     | 429    | ThrottlingException (retried, after Retry-After) |
 * | budget exceeded, suspended, throttled (429) | 400    | ServiceQuotaExceededException   |
 * | unknown or revoked key (401), scope (403)   | 403    | AccessDeniedException           |
 * | unknown route (404)                         | 404    | ResourceNotFoundException       |
 * | bad request, body too large (400, 413)      | 400    | ValidationException             |
 * | 5xx (key store unavailable…)                | kept   | kept: those are worth a retry   |
 *
 * The Spendguard code (`budget_daily_hard`, `killed`, …) stays readable in `x-spendguard-error-code`.
 */

import type { RelayResponder } from './relay-transport';

/** One response of Spendguard's own. */
export interface OwnResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

function awsType(status: number, retryable: boolean): { status: number; type: string } | undefined {
  if (status === 429 && retryable) return { status: 429, type: 'ThrottlingException' };
  if (status === 429 || status === 402) return { status: 400, type: 'ServiceQuotaExceededException' };
  if (status === 401 || status === 403) return { status: 403, type: 'AccessDeniedException' };
  if (status === 404) return { status: 404, type: 'ResourceNotFoundException' };
  if (status >= 400 && status < 500) return { status: 400, type: 'ValidationException' };
  return undefined;
}

function readError(body: string): { message: string; code: string | undefined } {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown; code?: unknown; type?: unknown } };
    const e = parsed.error;
    const message = typeof e?.message === 'string' ? e.message : body;
    const code = typeof e?.code === 'string' ? e.code : typeof e?.type === 'string' ? e.type : undefined;
    return { message, code };
  } catch {
    return { message: body, code: undefined };
  }
}

/**
 * The AWS-shaped form of one of Spendguard's own responses (a 2xx or 5xx is returned as it is).
 *
 * @example
 * toBedrockError({ status: 429, headers: { 'retry-after': '30' }, body: '{"error":{"message":"Budget Exceeded…","code":"budget_daily_hard"}}' })
 * // { status: 400, headers: { 'x-amzn-errortype': 'ServiceQuotaExceededException', … }, body: '{"message":"Budget Exceeded…"}' }
 */
export function toBedrockError(response: OwnResponse): OwnResponse {
  const retryable = Object.entries(response.headers).some(
    ([name, value]) => name.toLowerCase() === 'x-should-retry' && value === 'true',
  );
  const mapped = awsType(response.status, retryable);
  if (mapped === undefined) return response;
  const { message, code } = readError(response.body);
  const body = JSON.stringify({ message });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (name.toLowerCase() !== 'content-length') headers[name] = value;
  }
  headers['content-type'] = 'application/json';
  headers['x-amzn-errortype'] = mapped.type;
  if (code !== undefined) headers['x-spendguard-error-code'] = code;
  if ('content-length' in response.headers) headers['content-length'] = String(Buffer.byteLength(body));
  return { status: mapped.status, headers, body };
}

/**
 * A responder whose responses are the relay's own refusals, rewritten for the AWS SDK (bedrock-refusal.ts):
 * the body is held until `end` so that status and headers can follow from it.
 */
export function awsShaped(res: RelayResponder): RelayResponder {
  return {
    keepsContentLength: res.keepsContentLength,
    start(status, headers) {
      const flat: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers)) flat[k] = Array.isArray(v) ? v.join(', ') : (v as string);
      return {
        write: () => true,
        once: () => undefined,
        destroy: (error?: Error) => res.start(status, headers).destroy(error),
        end(chunk?: Buffer | string) {
          const body = chunk === undefined ? '' : chunk.toString();
          const shaped = toBedrockError({ status, headers: flat, body });
          return res.start(shaped.status, shaped.headers).end(shaped.body);
        },
      };
    },
  };
}
