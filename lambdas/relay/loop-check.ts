/**
 * The relay's in-line loop check (issue 19.6): core/guardrails `inline-loop` over one container's memory,
 * with the organization's own layer-2 policy (cached, org-policy-cache.ts) and the refusal the guard gives
 * for the pipeline's `token_loop_identical` flag at the same scope (same 429, body and headers: the client
 * cannot tell which of the two stopped it, and its SDK does not retry either).
 *
 * Per container is the granularity Lambda gives: a warm container serves one call at a time and the most
 * recently used one is reused, so a sequential loop lands on one container. Loops spread over N containers
 * in parallel take up to `consecutive` calls on each before their own refusal; the pipeline's flag stops
 * the rest (docs/guardrails.md).
 */
import {
  inlineLoopApplies,
  InlineLoopTable,
  DEFAULT_INLINE_LIMITS,
  type InlineHold,
  type InlineLoopCaller,
  type InlineLoopLimits,
} from '../../core/guardrails/inline-loop';
import type { GuardrailPolicy } from '../../core/guardrails/policy';
import { budgetExceeded, type GuardResponse } from '../edge-guard/decide';
import { noopMetrics, type MetricsSink } from '../edge-guard/metrics';
import { FLAG_TTL_SECONDS } from '../shared/enforcement';
import type { FlagRecord } from '../shared/stores/flag-store';
import type { OrgPolicySource } from './org-policy-cache';

/** Counts a forwarded call with its fingerprint (null: none). Never throws. */
export type LoopCount = (fingerprint: string | null) => void;

/** What the check says about a call before it is forwarded. */
export type LoopGate =
  { readonly refusal: GuardResponse } | { readonly refusal?: undefined; readonly forwarded: LoopCount };

const PASS_UNCOUNTED: LoopGate = Object.freeze({ forwarded: () => undefined });

export interface InlineLoopCheckOptions {
  /** The organizations' policies; an organization whose policy cannot be read is not checked. */
  readonly policies: OrgPolicySource;
  readonly now?: () => number;
  readonly metrics?: MetricsSink;
  readonly limits?: Partial<InlineLoopLimits>;
}

/**
 * @example
 * const gate = await loops.enter({ orgId, keyId, sessionId }, 'gpt-4o-mini');
 * if (gate.refusal) return respondAsGuard(res, gate.refusal);
 * // … forward, then, once the fingerprint is known:
 * gate.forwarded(fingerprint);
 */
export class InlineLoopCheck {
  private readonly table: InlineLoopTable;
  private readonly now: () => number;
  private readonly metrics: MetricsSink;

  constructor(private readonly opts: InlineLoopCheckOptions) {
    this.now = opts.now ?? Date.now;
    this.metrics = opts.metrics ?? noopMetrics;
    this.table = new InlineLoopTable({ ...DEFAULT_INLINE_LIMITS, ...opts.limits });
  }

  /**
   * Whether a call may go on: refused while a hold covers its organization, key or session; else a hook
   * that counts it once forwarded. Synchronous once the organization's policy is cached (the hot path
   * costs no microtask); never rejects (any failure lets the call through uncounted).
   */
  enter(caller: InlineLoopCaller, model: string | null): LoopGate | Promise<LoopGate> {
    try {
      const hold = this.table.holdOf(caller, this.now());
      if (hold !== undefined) {
        this.metrics.count('RelayLoopRefused', { Scope: hold.scope });
        return { refusal: refusalOf(caller, hold, this.now()) };
      }
      const read = this.opts.policies.policyOf(caller.orgId);
      if (read instanceof Promise) {
        return read.then(
          (policy) => this.gate(caller, model, policy),
          () => PASS_UNCOUNTED,
        );
      }
      return this.gate(caller, model, read);
    } catch {
      return PASS_UNCOUNTED;
    }
  }

  private gate(
    caller: InlineLoopCaller,
    model: string | null,
    policy: GuardrailPolicy | undefined,
  ): LoopGate {
    if (policy === undefined || !inlineLoopApplies(policy.identicalLoop)) return PASS_UNCOUNTED;
    return { forwarded: (fingerprint) => this.count(caller, model, fingerprint, policy) };
  }

  /**
   * The relay saw a flag refuse this key: the pipeline has taken over, so the holds covering the key end
   * and its runs start again (a resume of that flag then meets no count from before it).
   */
  flagSeen(caller: Pick<InlineLoopCaller, 'orgId' | 'keyId'>): void {
    try {
      this.table.release(caller);
    } catch {
      // holds end on their own
    }
  }

  private count(
    caller: InlineLoopCaller,
    model: string | null,
    fingerprint: string | null,
    policy: GuardrailPolicy,
  ): void {
    try {
      const hold = this.table.observe(
        { ...caller, model: model ?? '', fingerprint },
        policy.identicalLoop,
        this.now(),
      );
      if (hold !== undefined) this.metrics.count('RelayLoopHold', { Scope: hold.scope });
    } catch {
      // counting is best effort: the pipeline still sees the call's event
    }
  }
}

/**
 * The guard's answer to the flag the pipeline writes for this verdict: SUSPENDED `token_loop_identical`
 * at the hold's scope, for the flag's lifetime from the hold's start.
 */
export function refusalOf(caller: InlineLoopCaller, hold: InlineHold, nowMs: number): GuardResponse {
  const expiresAt = Math.floor(hold.startedAt / 1000) + FLAG_TTL_SECONDS.SUSPENDED;
  const flag: FlagRecord = {
    flagKey: '',
    orgId: caller.orgId,
    scope: hold.scope,
    keyId: hold.scope === 'organization' ? null : caller.keyId,
    sessionId: hold.scope === 'session' ? (caller.sessionId ?? null) : null,
    state: 'SUSPENDED',
    triggerType: 'token_loop_identical',
    observedValue: hold.count,
    thresholdValue: hold.threshold,
    mode: 'hard_stop',
    setAt: new Date(hold.startedAt).toISOString(),
    expiresAt,
  };
  // The guard's Retry-After for that flag (decide.ts): seconds until it expires.
  return budgetExceeded(flag, Math.max(1, Math.ceil((expiresAt * 1000 - nowMs) / 1000)));
}
