/**
 * The legacy client-side budget (spec 1.4, "Auto Kill"): spend of this process counted per UTC day and
 * UTC calendar month in integer nano-USD, compared with the configured limits before every call.
 *
 * It is superseded by the server-side guardrails (spec 1.5), which see every process of the
 * organization; this one sees only its own process and is kept for simple local caps.
 */
import { usdToNanos } from '../../core/pricing/money';
import type { DeferredBilling } from '../../core/providers/request-shape/types';
import type { FlagRefusal } from './enforcement';
import type { BudgetAction, BudgetOptions } from './types';

const MS_PER_DAY = 86_400_000;

/** A budget with validated limits in nano-USD. */
export interface NormalizedBudget {
  readonly dailyLimitNanos: number | null;
  readonly monthlyLimitNanos: number | null;
  readonly action: BudgetAction;
}

/** Validates a budget option; returns null when it sets no usable limit. `problems` lists what was ignored. */
export function normalizeBudget(
  budget: BudgetOptions | undefined,
  problems: string[],
): NormalizedBudget | null {
  if (budget === undefined || budget === null) return null;
  const b = (typeof budget === 'object' ? budget : {}) as Record<string, unknown>;
  const limit = (name: string): number | null => {
    const value = b[name];
    if (value === undefined) return null;
    try {
      if (typeof value === 'number' && value > 0) return usdToNanos(value);
    } catch {
      // out of range
    }
    problems.push(`budget.${name}: not a positive amount, ignored`);
    return null;
  };
  const dailyLimitNanos = limit('dailyLimitUsd');
  const monthlyLimitNanos = limit('monthlyLimitUsd');
  const action = b.action === 'warn' || b.action === 'log' ? b.action : 'block';
  if (b.action !== undefined && b.action !== action) problems.push('budget.action: using block');
  return dailyLimitNanos === null && monthlyLimitNanos === null
    ? null
    : { dailyLimitNanos, monthlyLimitNanos, action };
}

/** A limit that has been reached. */
export interface BudgetBreach {
  readonly period: 'daily' | 'monthly';
  readonly limitNanos: number;
  readonly spentNanos: number;
  /** Start of the current period (epoch ms): identifies it. */
  readonly periodStartMs: number;
  /** When the period resets (epoch ms): the next UTC midnight or the first of next month. */
  readonly resetAtMs: number;
}

/** Spend per UTC day and month, in integer nano-USD (saturating at the safe-integer limit). */
export class SpendCounter {
  #dayStartMs = 0;
  #dayEndMs = 0;
  #monthStartMs = 0;
  #monthEndMs = 0;
  #dayNanos = 0;
  #monthNanos = 0;

  /** Adds the cost of one call made at `nowMs`. */
  add(nanos: number, nowMs: number): void {
    if (!(nanos > 0)) return;
    this.#roll(nowMs);
    this.#dayNanos = Math.min(Number.MAX_SAFE_INTEGER, this.#dayNanos + nanos);
    this.#monthNanos = Math.min(Number.MAX_SAFE_INTEGER, this.#monthNanos + nanos);
  }

  /** The first limit reached at `nowMs` (the monthly one first: it lasts longer), or null. */
  breach(budget: NormalizedBudget, nowMs: number): BudgetBreach | null {
    this.#roll(nowMs);
    if (budget.monthlyLimitNanos !== null && this.#monthNanos >= budget.monthlyLimitNanos) {
      return {
        period: 'monthly',
        limitNanos: budget.monthlyLimitNanos,
        spentNanos: this.#monthNanos,
        periodStartMs: this.#monthStartMs,
        resetAtMs: this.#monthEndMs,
      };
    }
    if (budget.dailyLimitNanos !== null && this.#dayNanos >= budget.dailyLimitNanos) {
      return {
        period: 'daily',
        limitNanos: budget.dailyLimitNanos,
        spentNanos: this.#dayNanos,
        periodStartMs: this.#dayStartMs,
        resetAtMs: this.#dayEndMs,
      };
    }
    return null;
  }

  /** Spend of the current day and month. */
  spent(nowMs: number): { dayNanos: number; monthNanos: number } {
    this.#roll(nowMs);
    return { dayNanos: this.#dayNanos, monthNanos: this.#monthNanos };
  }

  /** Starts new periods when `nowMs` has passed their end (two comparisons on the hot path). */
  #roll(nowMs: number): void {
    if (nowMs >= this.#dayStartMs && nowMs < this.#dayEndMs) return;
    const dayStart = Math.floor(nowMs / MS_PER_DAY) * MS_PER_DAY;
    this.#dayStartMs = dayStart;
    this.#dayEndMs = dayStart + MS_PER_DAY;
    this.#dayNanos = 0;
    if (nowMs >= this.#monthStartMs && nowMs < this.#monthEndMs) return;
    const d = new Date(nowMs);
    this.#monthStartMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    this.#monthEndMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    this.#monthNanos = 0;
  }
}

/** Why a call is answered locally with a 429. */
export type BlockReason =
  | { readonly kind: 'budget'; readonly breach: BudgetBreach }
  | { readonly kind: 'flag'; readonly flag: FlagRefusal }
  /**
   * The shared budget's lease: exhausted (seconds until room can come back; `retryable` when it is only
   * held by calls in flight, the relay's `budget_busy`), or renewing (null).
   */
  | { readonly kind: 'lease'; readonly retryAfterSeconds: number | null; readonly retryable?: boolean }
  /** The lease route refused the API key (401/403): the hard cap cannot be checked, so nothing goes. */
  | { readonly kind: 'lease_refused'; readonly retryAfterSeconds: number }
  /** A batch, fine-tuning or background call under a hard cap: it bills after it returns (a 403). */
  | { readonly kind: 'deferred'; readonly billing: DeferredBilling };

const FLAG_SUBJECT = { organization: 'organization', key: 'API key', session: 'agent session' } as const;
const FLAG_CODE = {
  organization: 'org_suspended',
  key: 'key_suspended',
  session: 'session_suspended',
} as const;

/**
 * The synthetic 429 (design decision 7): an OpenAI-style error body that both official SDKs surface as a
 * RateLimitError, `Retry-After` in seconds until the block ends, and `x-should-retry: false` so that
 * the SDKs do not retry it in a loop — except while a lease renews (`Retry-After: 1`, retry welcome).
 * A deferred-billing call under a hard cap gets the relay's 403 `deferred_billing_refused` instead.
 */
export function blockedResponse(reason: BlockReason, nowMs: number): Response {
  let message: string;
  let code: string;
  let retryAfter: number;
  let retry = false;
  let type = 'budget_exceeded';
  let status = 429;
  if (reason.kind === 'budget') {
    const { breach } = reason;
    message = `Spendguard client budget exceeded: ${breach.period} spend $${usd(breach.spentNanos)} reached $${usd(breach.limitNanos)}; the provider was not called.`;
    code = 'client_budget';
    retryAfter = Math.ceil((breach.resetAtMs - nowMs) / 1000);
  } else if (reason.kind === 'flag' && reason.flag.state === 'THROTTLED') {
    // THROTTLED slows, it does not stop: the edge's `rate_limited` answer, and retrying then is welcome.
    const { scope, triggerType } = reason.flag;
    message = `Spendguard: ${FLAG_SUBJECT[scope]} THROTTLED by a guardrail${triggerType === null ? '' : ` (${triggerType})`}: one call per 6 s; the provider was not called.`;
    code = `${scope === 'key' ? 'key' : scope === 'session' ? 'session' : 'org'}_throttled`;
    retryAfter = reason.flag.retryAfterSeconds;
    retry = true;
    type = 'rate_limited';
  } else if (reason.kind === 'flag') {
    const { scope, triggerType } = reason.flag;
    message = `Spendguard: ${FLAG_SUBJECT[scope]} SUSPENDED by a guardrail${triggerType === null ? '' : ` (${triggerType})`}; the provider was not called.`;
    code = FLAG_CODE[scope];
    retryAfter = reason.flag.retryAfterSeconds;
  } else if (reason.kind === 'deferred') {
    // The relay's `deferred_billing_refused`, word for word in code and status: retrying cannot help.
    const what =
      reason.billing === 'background'
        ? 'Background responses'
        : reason.billing === 'batch'
          ? 'Batch jobs'
          : 'Fine-tuning jobs';
    message = `${what} bill after the call returns, so Spendguard cannot hold them under the organization's hard cap; the provider was not called. Ask an admin to allow deferred billing for the organization, or call without a hard cap.`;
    code = 'deferred_billing_refused';
    type = 'permission_error';
    status = 403;
    retryAfter = 0;
  } else if (reason.kind === 'lease_refused') {
    // Decision 6: never fail open on identity. A revoked key must not switch its organization's cap off.
    message =
      'Spendguard: the API refused this Service-API-Key for a budget lease (revoked, or without the scope), so the hard budget cap cannot be checked; the provider was not called.';
    code = 'budget_lease_refused';
    type = 'budget_unverified';
    retryAfter = reason.retryAfterSeconds;
  } else if (reason.retryAfterSeconds !== null && reason.retryable === true) {
    // The relay's `budget_busy`: what is left is held by calls in flight, and comes back as they settle.
    message = `Spendguard: what is left under the organization's hard budget cap is held by other processes' slices and calls in flight; retry in ${reason.retryAfterSeconds} s. The provider was not called.`;
    code = 'budget_busy';
    type = 'budget_busy';
    retryAfter = reason.retryAfterSeconds;
    retry = true;
  } else if (reason.retryAfterSeconds !== null) {
    message =
      "Spendguard: this call's worst-case cost does not fit under the organization's hard budget cap; the provider was not called.";
    code = 'hard_cap';
    retryAfter = reason.retryAfterSeconds;
  } else {
    message =
      "Spendguard: waiting for this process's share of the organization's budget took too long; retry in 1 s.";
    code = 'budget_lease_pending';
    // Retryable, so not the final `budget_exceeded`: the relay's retryable type.
    type = 'budget_busy';
    retryAfter = 1;
    retry = true;
  }
  const body = JSON.stringify({ error: { message, type, code } });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-should-retry': String(retry),
    'x-spendguard-blocked': code,
  };
  if (status === 429) headers['retry-after'] = String(Math.max(1, Math.round(retryAfter)));
  return new Response(body, {
    status,
    statusText: status === 429 ? 'Too Many Requests' : 'Forbidden',
    headers,
  });
}

function usd(nanos: number): string {
  return (nanos / 1e9).toFixed(nanos >= 1e9 ? 2 : 6);
}
