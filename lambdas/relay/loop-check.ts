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
  sharedRunOf,
  type InlineLoopCall,
  type SharedRunId,
  type InlineHold,
  type InlineLoopCaller,
  type InlineLoopLimits,
} from '../../core/guardrails/inline-loop';
import type { GuardrailPolicy } from '../../core/guardrails/policy';
import { budgetExceeded, type GuardResponse } from '../edge-guard/decide';
import { noopMetrics, type MetricsSink } from '../edge-guard/metrics';
import { DEFAULT_GUARD_CACHE_TTL_MS } from '../edge-guard/guard';
import { FLAG_TTL_SECONDS } from '../shared/enforcement';
import type { FlagRecord } from '../shared/stores/flag-store';
import type { LoopRunStore } from '../shared/stores/loop-run-store';
import type { ResumeStore } from '../shared/stores/resume-store';
import type { OrgPolicySource } from './org-policy-cache';
import type { LoopVerdictSource } from './loop-verdicts';

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
  /**
   * The pipeline's loop verdicts (its trip log): a held call asks whether the pipeline has flagged since the
   * hold began, at most once per {@link VERDICT_LOOKUP_INTERVAL_MS} per hold; if it has, the hold ends and
   * the flag check in front of the relay decides (a resumed flag lets the call through). Without it, a hold
   * lasts its 10 s unless the relay's own flag check sees the flag.
   */
  readonly verdicts?: LoopVerdictSource;
  /**
   * When people last resumed (cleared flags): a held call asks it with the trip log, and a Resume of its
   * key or organization since the hold began ends the hold at once. Only asked with `verdicts`.
   */
  readonly resumes?: Pick<ResumeStore, 'get'>;
  /**
   * The runs every container adds to. A call that repeats this container's run is added to the shared
   * run before it is forwarded, and refused when the shared count is past the layer's threshold: a tight
   * loop lands on a new container while the last one finishes its invocation, so each container alone
   * sees only some of its calls. Without it, the count is this container's alone.
   */
  readonly shared?: LoopRunStore;
  /** How long a call waits for its shared-run write. @default {@link SHARED_RUN_TIMEOUT_MS} */
  readonly sharedTimeoutMs?: number;
  /** How long a held call waits for the trip log and the Resume record. @default {@link VERDICT_LOOKUP_TIMEOUT_MS} */
  readonly verdictTimeoutMs?: number;
}

/**
 * The shared run bridges the containers a tight loop is spread over while the pipeline's verdict is on
 * its way (about 2 s): a loop slower than this lands on the most recently used container, idle again by
 * then, whose own count sees every call.
 */
export const SHARED_RUN_IDLE_MS = 2000;
/** Layer 2's default threshold (identical-loop.ts `consecutive`), when the policy is not at hand. */
const DEFAULT_LOOP_THRESHOLD = 4;
/**
 * A shared-run write slower than this leaves the call to this container's own count: a call waits for
 * its write, so a slow store must not hold calls up (DynamoDB's writes take single-digit ms). The local
 * proxy allows more (its stand-in shares the process and the machine's load).
 */
export const SHARED_RUN_TIMEOUT_MS = 50;

/** A held call asks the pipeline's trip log at most this often per hold (a loop refused fast asks once). */
export const VERDICT_LOOKUP_INTERVAL_MS = 100;
/**
 * A flag written this long ago is in every guard cache that will be asked (the edge's, the relay's own:
 * entries live 1 s), the consumer writing the flag before it records the trip; plus 100 ms for the clocks.
 */
const FLAG_PROPAGATION_MS = DEFAULT_GUARD_CACHE_TTL_MS + 100;
/**
 * A trip lookup slower than this leaves the hold in place (the call is refused; the next one asks again).
 * The local proxy allows more (its stand-in shares the process and the machine's load).
 */
export const VERDICT_LOOKUP_TIMEOUT_MS = 300;
/** Holds whose last lookup time is remembered (least recently asked forgotten first). */
const LOOKUPS_KEPT = 256;

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
  /** When each hold last asked the pipeline (by hold: scope, key or organization, start). */
  private readonly lookups = new Map<string, number>();

  constructor(private readonly opts: InlineLoopCheckOptions) {
    this.now = opts.now ?? Date.now;
    this.metrics = opts.metrics ?? noopMetrics;
    this.table = new InlineLoopTable({ ...DEFAULT_INLINE_LIMITS, ...opts.limits });
  }

  /**
   * Whether a call may go on: refused while a hold covers its organization, key or session, or when it
   * repeats this container's run and the shared run is past the threshold; else a hook that counts it
   * once forwarded. `fingerprint`: the body's, when it is known before forwarding (only then is the
   * shared run asked). Synchronous once the organization's policy is cached, unless the call repeats a
   * run (the hot path costs no microtask); never rejects (any failure lets the call through uncounted).
   */
  enter(
    caller: InlineLoopCaller,
    model: string | null,
    fingerprint?: string | null,
  ): LoopGate | Promise<LoopGate> {
    try {
      const now = this.now();
      const hold = this.table.holdOf(caller, now);
      if (hold !== undefined) {
        const ask = this.opts.verdicts !== undefined && this.mayAsk(caller, hold, now);
        return ask ? this.askPipeline(caller, model, hold, fingerprint) : this.refuse(caller, hold);
      }
      return this.pass(caller, model, fingerprint);
    } catch {
      return PASS_UNCOUNTED;
    }
  }

  private refuse(caller: InlineLoopCaller, hold: InlineHold): LoopGate {
    this.metrics.count('RelayLoopRefused', { Scope: hold.scope });
    return { refusal: refusalOf(caller, hold, this.now()) };
  }

  /** Whether this hold may ask the pipeline now (once per interval); records the attempt. */
  private mayAsk(caller: InlineLoopCaller, hold: InlineHold, now: number): boolean {
    const id = `${hold.scope === 'organization' ? '' : caller.keyId}\u0000${caller.orgId}\u0000${hold.startedAt}`;
    const last = this.lookups.get(id);
    if (last !== undefined && now - last < VERDICT_LOOKUP_INTERVAL_MS && now >= last) return false;
    this.lookups.delete(id);
    if (this.lookups.size >= LOOKUPS_KEPT) this.lookups.delete(this.lookups.keys().next().value as string);
    this.lookups.set(id, now);
    return true;
  }

  /**
   * The pipeline flagged since the hold began, long enough ago that every flag cache in front of the relay
   * holds that flag if it still stands: a call that got here past them means the flag is gone (resumed or
   * expired), so the hold ends. Otherwise the call is refused.
   */
  private async askPipeline(
    caller: InlineLoopCaller,
    model: string | null,
    hold: InlineHold,
    fingerprint: string | null | undefined,
  ): Promise<LoopGate> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await Promise.race([
        Promise.all([
          (this.opts.verdicts as LoopVerdictSource).verdictSince(
            caller.orgId,
            hold.scope === 'organization' ? null : caller.keyId,
            hold.startedAt,
          ),
          this.opts.resumes?.get(caller.orgId),
        ]),
        new Promise<undefined>((resolve) => {
          timer = setTimeout(
            () => resolve(undefined),
            this.opts.verdictTimeoutMs ?? VERDICT_LOOKUP_TIMEOUT_MS,
          );
          timer.unref?.();
        }),
      ]);
      if (answer === undefined) return this.refuse(caller, hold);
      const [at, resumes] = answer;
      // A person resumed the key (or the organization) since the hold began: the flags are cleared and
      // every guard reads a flag again on each call it meets, so nothing is left to wait for.
      const resumedAt = Math.max(
        resumes?.organizationAt ?? -Infinity,
        hold.scope === 'organization' ? -Infinity : (resumes?.keyAt.get(caller.keyId) ?? -Infinity),
      );
      const resumed = resumedAt > hold.startedAt;
      if (!resumed && (at === undefined || this.now() - at < FLAG_PROPAGATION_MS)) {
        return this.refuse(caller, hold);
      }
      await this.resetShared(caller, this.table.release(caller), hold.threshold);
      const gate = this.pass(caller, model, fingerprint);
      return gate instanceof Promise ? await gate : gate;
    } catch {
      return this.refuse(caller, hold);
    } finally {
      clearTimeout(timer);
    }
  }

  private pass(
    caller: InlineLoopCaller,
    model: string | null,
    fingerprint: string | null | undefined,
  ): LoopGate | Promise<LoopGate> {
    try {
      const read = this.opts.policies.policyOf(caller.orgId);
      if (read instanceof Promise) {
        return read.then(
          (policy) => this.gate(caller, model, policy, fingerprint),
          () => PASS_UNCOUNTED,
        );
      }
      return this.gate(caller, model, read, fingerprint);
    } catch {
      return PASS_UNCOUNTED;
    }
  }

  private gate(
    caller: InlineLoopCaller,
    model: string | null,
    policy: GuardrailPolicy | undefined,
    fingerprint: string | null | undefined,
  ): LoopGate | Promise<LoopGate> {
    if (policy === undefined || !inlineLoopApplies(policy.identicalLoop)) return PASS_UNCOUNTED;
    if (this.opts.shared !== undefined && typeof fingerprint === 'string') {
      // Added even when it does not repeat this container's run: among other keys' traffic a loop's calls
      // land on a different container each, and none of them would see a repeat. Skipped only when this
      // container's last call of the key and model, within the shared window, was another request: the
      // key's ordinary traffic on a warm container costs no write (the call is told with the next repeat
      // here, if any; a loop begun since on other containers can pass one call more per such container).
      const call: InlineLoopCall = { ...caller, model: model ?? '', fingerprint };
      const now = this.now();
      const repeat = this.table.repeatOf(call, policy.identicalLoop, now);
      if (repeat !== undefined || !this.table.followsOtherRequest(call, now, SHARED_RUN_IDLE_MS)) {
        return this.addShared(this.opts.shared, call, repeat?.unshared ?? 1, repeat !== undefined, policy);
      }
    }
    return { forwarded: (fp) => this.count(caller, model, fp, policy) };
  }

  /**
   * Adds the call (and this container's calls of the run the shared run has not been told of) to the
   * shared run; refuses it when the shared count is past the threshold. A store that fails or is slow
   * leaves the call to this container's count.
   */
  private async addShared(
    shared: LoopRunStore,
    call: InlineLoopCall,
    calls: number,
    likelyRepeat: boolean,
    policy: GuardrailPolicy,
  ): Promise<LoopGate> {
    const layer = policy.identicalLoop;
    let total: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const id = sharedRunOf(call);
      if (id !== undefined) {
        const idleMs =
          layer.resetAfterIdleMs > 0
            ? Math.min(layer.resetAfterIdleMs, SHARED_RUN_IDLE_MS)
            : SHARED_RUN_IDLE_MS;
        total = await Promise.race([
          shared.add(
            { orgId: call.orgId, keyId: call.keyId, ...id },
            calls,
            this.now(),
            idleMs,
            likelyRepeat,
          ),
          new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), this.opts.sharedTimeoutMs ?? SHARED_RUN_TIMEOUT_MS);
            timer.unref?.();
          }),
        ]);
        if (total === undefined) this.metrics.count('RelayLoopSharedFailed');
      }
    } catch {
      this.metrics.count('RelayLoopSharedFailed');
      total = undefined;
    } finally {
      clearTimeout(timer);
    }
    try {
      if (total !== undefined && total > layer.consecutive) {
        // Past the verdict call already: this call is the one the pipeline's flag would refuse.
        const hold = this.table.observe(call, layer, this.now(), total);
        if (hold !== undefined) {
          this.metrics.count('RelayLoopHold', { Scope: hold.scope });
          return this.refuse(call, hold);
        }
      }
    } catch {
      // counting is best effort
    }
    return {
      forwarded: (fp) =>
        this.count(call, call.model, fp, policy, fp === call.fingerprint ? (total ?? 'unknown') : undefined),
    };
  }

  /**
   * The relay saw a flag refuse this key: the pipeline has taken over, so the holds covering the key end
   * and its runs start again (a resume of that flag then meets no count from before it).
   */
  flagSeen(caller: Pick<InlineLoopCaller, 'orgId' | 'keyId'>): void {
    try {
      // The threshold is the organization's; a cached policy read is enough, else the default's 4.
      void this.resetShared(caller, this.table.release(caller), this.thresholdOf(caller.orgId));
    } catch {
      // holds end on their own
    }
  }

  /** The organization's layer-2 threshold when its policy is cached, else the default's. */
  private thresholdOf(orgId: string): number {
    try {
      const read = this.opts.policies.policyOf(orgId);
      if (!(read instanceof Promise) && read !== undefined) return read.identicalLoop.consecutive;
    } catch {
      // the default below
    }
    return DEFAULT_LOOP_THRESHOLD;
  }

  /**
   * Starts the shared runs of the runs a release ended again from zero, so a loop resumed by a person
   * is counted from its first call on every container, not from the count that stopped it. Best effort
   * (bounded by the store timeout); never rejects.
   */
  private async resetShared(
    caller: Pick<InlineLoopCaller, 'orgId' | 'keyId'>,
    runs: readonly SharedRunId[],
    threshold: number,
  ): Promise<void> {
    const shared = this.opts.shared;
    if (shared === undefined || runs.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.all(
          runs.map(({ run }) => shared.reset({ orgId: caller.orgId, keyId: caller.keyId, run }, threshold)),
        ),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, SHARED_RUN_TIMEOUT_MS);
          timer.unref?.();
        }),
      ]);
    } catch {
      this.metrics.count('RelayLoopSharedFailed');
    } finally {
      clearTimeout(timer);
    }
  }

  private count(
    caller: InlineLoopCaller,
    model: string | null,
    fingerprint: string | null,
    policy: GuardrailPolicy,
    sharedCount?: number | 'unknown',
  ): void {
    try {
      const hold = this.table.observe(
        { ...caller, model: model ?? '', fingerprint },
        policy.identicalLoop,
        this.now(),
        sharedCount,
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
