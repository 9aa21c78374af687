/**
 * CloudFront origin-request adapter: reads `Service-API-Key` and `x-spendguard-session`, asks the guard, and either returns the
 * request unchanged (forward to the relay origin) or a generated response (429 / 401) so that the
 * provider is never contacted.
 */
import type {
  CloudFrontHeaders,
  CloudFrontRequestEvent,
  CloudFrontRequestResult,
  CloudFrontResultResponse,
} from 'aws-lambda';
import type { GuardResponse } from './decide';
import type { EdgeGuard } from './guard';
import { noopMetrics, type MetricsSink } from './metrics';
import { isBedrockUrl } from '../relay/bedrock-route';
import { toBedrockError } from '../relay/bedrock-refusal';

/** Canonical casing CloudFront expects in the `key` of a generated response header. */
const HEADER_CASE: Readonly<Record<string, string>> = {
  'content-type': 'Content-Type',
  'cache-control': 'Cache-Control',
  'retry-after': 'Retry-After',
  'x-should-retry': 'x-should-retry',
  'x-amzn-errortype': 'x-amzn-ErrorType',
};

/** A guard response as a CloudFront generated response. */
export function toCloudFrontResponse(response: GuardResponse): CloudFrontResultResponse {
  const headers: CloudFrontHeaders = {};
  for (const [name, value] of Object.entries(response.headers)) {
    headers[name] = [{ key: HEADER_CASE[name] ?? name, value }];
  }
  return {
    status: String(response.status),
    statusDescription: response.statusDescription,
    headers,
    bodyEncoding: 'text',
    body: response.body,
  };
}

/** 400 for a request with more than one `x-spendguard-session` value (the relay answers the same). */
export const DUPLICATE_SESSION_RESPONSE: GuardResponse = Object.freeze({
  status: 400,
  statusDescription: 'Bad Request',
  headers: { 'content-type': 'application/json', 'x-should-retry': 'false' },
  body: JSON.stringify({
    error: {
      message:
        'Send one x-spendguard-session header with one value (no commas): repeated session headers are read differently by each hop.',
      type: 'invalid_request_error',
      code: 'invalid_request',
    },
  }),
});

/**
 * The origin-request handler over a guard. `getGuard` builds the guard lazily (first request of the
 * container); if that throws (no baked config), every request is forwarded and counted as a fail-open.
 */
export function createOriginRequestHandler(
  getGuard: () => EdgeGuard,
  metrics: MetricsSink = noopMetrics,
): (event: CloudFrontRequestEvent) => Promise<CloudFrontRequestResult> {
  return async (event) => {
    const request = event.Records[0]?.cf.request;
    if (request === undefined) return undefined;
    let guard: EdgeGuard;
    try {
      guard = getGuard();
    } catch {
      metrics.count('GuardFailOpen', { Reason: 'config_error' });
      return request;
    }
    const header = request.headers['service-api-key'];
    const session = request.headers['x-spendguard-session'];
    // Repeated session headers: CloudFront hands over each, the Function URL joins them with commas, so
    // the edge and the relay would read different sessions (issue 19.6). Refused at both.
    if (session !== undefined && (session.length > 1 || session.some((h) => h.value.includes(',')))) {
      return toCloudFrontResponse(DUPLICATE_SESSION_RESPONSE);
    }
    const decision = await guard.check(header?.[0]?.value, session?.[0]?.value);
    if (decision.action === 'forward') return request;
    // On Bedrock routes the refusal is shaped for the AWS SDK, which would retry a 429 (bedrock-refusal.ts).
    if (!isBedrockUrl(request.uri)) return toCloudFrontResponse(decision.response);
    const shaped = toBedrockError(decision.response);
    return toCloudFrontResponse({
      ...shaped,
      statusDescription:
        shaped.status === 403 ? 'Forbidden' : shaped.status === 404 ? 'Not Found' : 'Bad Request',
    });
  };
}
