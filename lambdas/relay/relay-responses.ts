/**
 * The relay's own answers (no provider contact, no event): OpenAI's error shape, so every official client
 * surfaces the message; `budget_exceeded` with its retry headers (spec 1.5, design decisions 7 and 11).
 */
import { nanosToUsd } from '../../core/pricing';
import type { GuardResponse } from '../edge-guard/decide';
import type { DeferredBilling } from '../../core/providers/request-shape';
import type { AdmissionDecision } from './budget-admission';
import type { RelayOutcome, RelayResponder } from './relay-transport';

export const JSON_TYPE = 'application/json';

/**
 * 429 for a call whose worst case does not fit (spec 1.5, design decisions 7 and 11): `budget_exceeded`,
 * not retried, when settled spend leaves no room; `budget_busy`, retryable, when the room is only held by
 * other slices or calls in flight (issue 18.7).
 */
export function refuseOverBudget(
  res: RelayResponder,
  d: Extract<AdmissionDecision, { kind: 'refused' }>,
): RelayOutcome {
  const label = d.period === 'day' ? 'daily' : 'monthly';
  const cap = d.capNanos === null ? '' : ` ($${nanosToUsd(d.capNanos)})`;
  const body = JSON.stringify({
    error: d.retryable
      ? {
          // Room is only held by other slices or calls in flight (or the budget store is unreachable).
          message:
            `Budget busy: what is left under the organization's ${label} hard cap${cap} is held by other ` +
            `containers' slices and calls in flight; retry in ${d.retryAfterSeconds} s.`,
          type: 'budget_busy',
          code: `budget_${label}_held`,
        }
      : {
          message:
            `Budget Exceeded: this call's worst-case cost does not fit under the organization's ${label} ` +
            `hard cap${cap}. Calls resume when the ${d.period === 'day' ? 'UTC day' : 'UTC month'} ends ` +
            `(in ${d.retryAfterSeconds} s) or when the cap is raised.`,
          type: 'budget_exceeded',
          code: `budget_${label}_hard`,
        },
  });
  const headers: Record<string, string> = {
    'content-type': JSON_TYPE,
    'cache-control': 'no-store',
    'retry-after': String(d.retryAfterSeconds),
    'x-should-retry': d.retryable ? 'true' : 'false',
  };
  if (res.keepsContentLength) headers['content-length'] = String(Buffer.byteLength(body));
  try {
    res.start(429, headers).end(body);
  } catch {
    // the client is gone
  }
  return { status: 429, kind: 'rejected', recorded: false };
}

/**
 * OpenAI's error shape; `type` as OpenAI uses it: `api_error` for a 5xx, `invalid_request_error`
 * otherwise, unless the caller names a finer one (`permission_error`).
 */
export function errorBody(status: number, code: string, message: string, type?: string): string {
  return JSON.stringify({
    error: { message, type: type ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), code },
  });
}

/** A response of the relay's own (no provider contact, no event). */
export function reject(
  res: RelayResponder,
  status: number,
  code: string,
  message: string,
  extra: { readonly type?: string; readonly headers?: Record<string, string> } = {},
): RelayOutcome {
  const body = errorBody(status, code, message, extra.type);
  const headers: Record<string, string> = {
    'content-type': JSON_TYPE,
    'x-should-retry': 'false',
    ...extra.headers,
  };
  if (res.keepsContentLength) headers['content-length'] = String(Buffer.byteLength(body));
  try {
    res.start(status, headers).end(body);
  } catch {
    // headers were already sent, or the client is gone
  }
  return { status, kind: 'rejected', recorded: false };
}

/**
 * 403 for a batch, fine-tuning or background call under a hard cap: it bills after the call returns, so
 * no reservation can bound it (issue 18.6). Allowed per organization (docs/proxy.md).
 */
export function refuseDeferred(res: RelayResponder, kind: DeferredBilling): RelayOutcome {
  const what =
    kind === 'background' ? 'Background responses' : kind === 'batch' ? 'Batch jobs' : 'Fine-tuning jobs';
  return reject(
    res,
    403,
    'deferred_billing_refused',
    `${what} bill after the call returns, so Spendguard cannot hold them under the organization's hard cap. ` +
      'Ask an admin to allow deferred billing for the organization, or call without a hard cap.',
    { type: 'permission_error' },
  );
}

/** The edge guard's own answer (a kill flag's 429, a malformed key's 401), sent by the relay unchanged. */
export function respondAsGuard(res: RelayResponder, r: GuardResponse): RelayOutcome {
  const headers: Record<string, string> = { ...r.headers };
  if (res.keepsContentLength) headers['content-length'] = String(Buffer.byteLength(r.body));
  try {
    res.start(r.status, headers).end(r.body);
  } catch {
    // the client is gone
  }
  return { status: r.status, kind: 'rejected', recorded: false };
}
