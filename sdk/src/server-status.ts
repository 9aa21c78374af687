/**
 * The SDK's own requests to the Spendguard API besides event delivery: the lease routes
 * (`POST /v1/budget/lease`, `POST /v1/budget/lease/release`) and `GET /v1/budget` (the organization's
 * state: the fallback read of the kill flag, and `verifyService`). Through the original fetch, with a
 * timeout; never rejects.
 */
import { drain, readJson, timedRequest } from './http';
import type { LeaseFailure } from './lease';
import type { FetchLike, OrgStatus } from './types';

/** The outcome of one API request. */
export type ApiResult =
  | { readonly kind: 'ok'; readonly body: unknown }
  /** `retryAfter`: the answer asked to be retried (a `Retry-After` header came with it). */
  | { readonly kind: 'http'; readonly status: number; readonly retryAfter?: boolean }
  | { readonly kind: 'error'; readonly reason: string };

/** `GET` (no body) or `POST` (JSON body) `url` with the key; resolves with the parsed 2xx body. Never rejects. */
export function callApi(
  fetchFn: FetchLike,
  url: string,
  apiKey: string,
  body: unknown,
  timeoutMs: number,
): Promise<ApiResult> {
  const init: RequestInit =
    body === undefined
      ? { method: 'GET', headers: { 'Service-API-Key': apiKey } }
      : {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'Service-API-Key': apiKey },
          body: JSON.stringify(body),
        };
  return timedRequest(fetchFn, url, init, timeoutMs, async (r): Promise<ApiResult> => {
    if (r.status < 200 || r.status >= 300) {
      drain(r);
      return r.headers.has('retry-after')
        ? { kind: 'http', status: r.status, retryAfter: true }
        : { kind: 'http', status: r.status };
    }
    return { kind: 'ok', body: await readJson(r) };
  }).catch((err: unknown) => ({
    kind: 'error',
    reason: err instanceof Error ? err.message : 'request failed',
  }));
}

/** The parsed answer of `GET /v1/budget`. */
export type OrgStatusResult =
  | {
      readonly kind: 'ok';
      readonly status: OrgStatus;
      /** `SUSPENDED`, `THROTTLED` or null when no flag is set. */
      readonly flagState: string | null;
      readonly flagExpiresAtMs: number | null;
    }
  /** `retryAfter`: the answer asked to be retried (a `Retry-After` header came with it). */
  | { readonly kind: 'http'; readonly status: number; readonly retryAfter?: boolean }
  | { readonly kind: 'error'; readonly reason: string };

/** Why a lease request failed: the backend down or overloaded, the key refused, or no lease routes. */
export function leaseFailureOf(result: ApiResult): LeaseFailure {
  if (result.kind !== 'http') return 'unreachable';
  const { status } = result;
  if (status >= 500 || status === 429 || status === 408) return 'unreachable';
  return status === 401 || status === 403 ? 'refused' : 'unsupported';
}

/** A failed result for a debug line. */
export function describeResult(result: ApiResult): string {
  return result.kind === 'http'
    ? `HTTP ${result.status}`
    : result.kind === 'error'
      ? result.reason
      : 'unexpected body';
}

/** Calls `GET <url>` with the key and reads the answer. Never rejects. */
export async function fetchOrgStatus(
  fetchFn: FetchLike,
  url: string,
  apiKey: string,
  timeoutMs: number,
): Promise<OrgStatusResult> {
  const result = await callApi(fetchFn, url, apiKey, undefined, timeoutMs);
  return result.kind === 'ok' ? readOrgStatus(result.body) : result;
}

/**
 * Reads a `GET /v1/budget` body: `flag` is null or `{ state: 'SUSPENDED' | 'THROTTLED', expiresAt }`
 * (ISO time), `status` is `ok`, `soft_cap`, `over_budget`, `throttled` or `suspended`.
 */
export function readOrgStatus(body: unknown): OrgStatusResult {
  const b = (typeof body === 'object' && body !== null ? body : {}) as {
    status?: unknown;
    flag?: { state?: unknown; expiresAt?: unknown } | null;
    spend?: { todayUsd?: unknown; monthUsd?: unknown };
  };
  const status = typeof b.status === 'string' ? b.status : 'unknown';
  const flag = typeof b.flag === 'object' && b.flag !== null ? b.flag : null;
  const state =
    typeof flag?.state === 'string'
      ? flag.state.toUpperCase()
      : status.toLowerCase() === 'suspended'
        ? 'SUSPENDED'
        : null;
  const expires = typeof flag?.expiresAt === 'string' ? Date.parse(flag.expiresAt) : NaN;
  const org: OrgStatus = { status };
  const spend = b.spend;
  if (typeof spend?.todayUsd === 'number' && typeof spend.monthUsd === 'number') {
    org.spend = { todayUsd: spend.todayUsd, monthUsd: spend.monthUsd };
  }
  return {
    kind: 'ok',
    status: org,
    flagState: state,
    flagExpiresAtMs: Number.isNaN(expires) ? null : expires,
  };
}
