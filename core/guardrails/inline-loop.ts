/**
 * Layer 2 in line (issue 19.6): the relay's own count of identical calls, so that a loop against a fast
 * provider is refused before the provider is contacted instead of after the pipeline's verdict arrives
 * (event → stream → consumer → flag → the guard's 1 s cache: about 2 s, in which a 0 ms provider serves
 * a dozen more calls).
 *
 * It mirrors the pipeline's stream per key and model (identical-loop.ts, "across sessions"): the same
 * request identity (the body fingerprint's first 52 bits), the same run rule (a different request or a
 * pause over `resetAfterIdleMs` restarts it), the same session switches (identity.ts `streamHash`). On
 * the call that brings the run to `consecutive` the pipeline gives its verdict, so the in-line check puts
 * a **hold** there, and the NEXT call of that scope is refused, as the pipeline's flag would refuse it:
 * key scope when the run spans more than one session (organization when the layer's scope is), else the
 * layer's scope (session scope without a session is key scope, as flagTarget does).
 *
 * A hold is a bridge to the pipeline's flag, not a second flag: it lasts `holdMs` (10 s) unless the relay
 * learns first that the pipeline has taken over ({@link InlineLoopTable.release}: its trip is recorded, or
 * the relay sees the flag); then the run starts again from zero, so a person who resumed the key is not
 * refused by a count the resume cleared.
 *
 * The state is one container's (the relay's per-process memory): bounded tables of runs (per key and
 * model) and holds, evicted fairly (fair-lru-table.ts: an API key that opens many runs evicts its own,
 * never another key's while it holds more), O(1) per call. Pure: no I/O; time comes in as an argument.
 */
import { FairLruTable } from './fair-lru-table';
import { fingerprintHash, hash53, hasBodyFingerprint, streamHash } from './identity';
import type { IdenticalLoopPolicy } from './identical-loop';
import { MAX_COUNT } from './limits';
import type { VerdictScope } from './types';

const { min } = Math;

/** How long a hold refuses when the relay does not see the pipeline's flag first. */
export const INLINE_HOLD_MS = 10_000;
/** Runs (key and model) one container keeps. */
export const INLINE_RUNS_CAPACITY = 1024;
/** Holds one container keeps (a hold exists only while a loop is being stopped). */
export const INLINE_HOLDS_CAPACITY = 256;
/** The pipeline truncates models and sessions to this many characters in its events (proxy-event.ts). */
const MAX_LABEL = 256;

/** One call the relay is about to forward. */
export interface InlineLoopCall {
  readonly orgId: string;
  /** Public id of the API key (the pipeline's `keyId`). */
  readonly keyId: string;
  /** The `x-spendguard-session` value; undefined or empty: no session. */
  readonly sessionId: string | undefined;
  /** The model the request names. */
  readonly model: string;
  /** The body fingerprint (`sha256:…`), or null when the request has none. */
  readonly fingerprint: string | null;
}

/** Who a call comes from, for looking up holds. */
export interface InlineLoopCaller {
  readonly orgId: string;
  readonly keyId: string;
  readonly sessionId: string | undefined;
}

/** A loop being stopped: what the pipeline's flag will stop, and since when. */
export interface InlineHold {
  readonly scope: VerdictScope;
  readonly startedAt: number;
  /** Identical calls in a row when the hold began (the verdict's observed value). */
  readonly count: number;
  readonly threshold: number;
}

/** The part of the organization's layer-2 policy the check applies. */
export type InlineLoopPolicy = Pick<
  IdenticalLoopPolicy,
  'enabled' | 'consecutive' | 'resetAfterIdleMs' | 'mode' | 'scope'
>;

/** A run per key and model, as the pipeline's key stream keeps it, plus the end of the hold it put. */
interface Run {
  readonly fingerprint: number;
  readonly count: number;
  readonly lastTs: number;
  /** Session stream of the last call (identity.ts `streamHash`). */
  readonly stream: number;
  /** Session switches within the run. */
  readonly switches: number;
  /** End of the hold this run put (0: none). */
  readonly holdUntil: number;
  /** The count at which the shared run last knew this one (0: never): later calls are untold. */
  readonly shared: number;
}

interface HoldEntry extends InlineHold {
  readonly until: number;
}

/** Tunables of {@link InlineLoopTable} (tests shrink them to reach the bounds). */
export interface InlineLoopLimits {
  readonly holdMs: number;
  readonly runsCapacity: number;
  readonly holdsCapacity: number;
}

export const DEFAULT_INLINE_LIMITS: InlineLoopLimits = Object.freeze({
  holdMs: INLINE_HOLD_MS,
  runsCapacity: INLINE_RUNS_CAPACITY,
  holdsCapacity: INLINE_HOLDS_CAPACITY,
});

const label = (s: string): string => (s.length > MAX_LABEL ? s.slice(0, MAX_LABEL) : s);
const sessionOf = (s: string | undefined): string | undefined =>
  s === undefined || s.length === 0 ? undefined : label(s);

// Each identity in its own hash space (seeds 10–14; the pipeline's tables use 0–5).
const ownerOfKey = (orgId: string, keyId: string): number => hash53(`${orgId}\u0000${keyId}`, 10);
const runIdOf = (orgId: string, keyId: string, model: string): number =>
  hash53(`${orgId}\u0000${keyId}\u0000${model}`, 11);
const orgHoldId = (orgId: string): number => hash53(orgId, 12);
const keyHoldId = (orgId: string, keyId: string): number => hash53(`${orgId}\u0000${keyId}`, 13);
const sessionHoldId = (orgId: string, keyId: string, sessionId: string): number =>
  hash53(`${orgId}\u0000${keyId}\u0000${sessionId}`, 14);

/** A run as the containers' shared store knows it: key and model hashed, and its request. */
export interface SharedRunId {
  readonly run: string;
  readonly fingerprint: number;
}

/**
 * The identity of a call's run among every container's (the shared run store's key): its key and model
 * hashed, and the request's identity (the fingerprint's first 52 bits, as the pipeline's). Undefined
 * without a body fingerprint.
 */
export function sharedRunOf(
  call: Pick<InlineLoopCall, 'orgId' | 'keyId' | 'model' | 'fingerprint'>,
): SharedRunId | undefined {
  if (!hasBodyFingerprint(call.fingerprint)) return undefined;
  const model = label(call.model);
  return {
    run: runIdOf(call.orgId, call.keyId, model).toString(36),
    fingerprint: fingerprintHash(call.fingerprint, model, 0),
  };
}

/** Whether a policy makes the relay count and refuse at all (hard_stop only: the other modes never refuse). */
export function inlineLoopApplies(policy: InlineLoopPolicy): boolean {
  return policy.enabled && policy.mode === 'hard_stop';
}

/** Whether a call of request `fp` continues `run`: same request, within the idle reset, its hold not ended. */
function continues(run: Run, fp: number, policy: InlineLoopPolicy, now: number): boolean {
  return (
    run.fingerprint === fp &&
    (policy.resetAfterIdleMs === 0 || now - run.lastTs <= policy.resetAfterIdleMs) &&
    // A run whose hold has ended starts again: the flag, or the person who resumed it, took over.
    (run.holdUntil === 0 || now < run.holdUntil)
  );
}

/**
 * One container's runs and holds.
 *
 * @example
 * const table = new InlineLoopTable();
 * if (table.holdOf(caller, now)) refuse(); else { forward(); table.observe(call, policy.identicalLoop, now); }
 */
export class InlineLoopTable {
  private readonly runs: FairLruTable<Run>;
  private readonly holds: FairLruTable<HoldEntry>;

  constructor(private readonly limits: InlineLoopLimits = DEFAULT_INLINE_LIMITS) {
    this.runs = new FairLruTable(limits.runsCapacity);
    this.holds = new FairLruTable(limits.holdsCapacity);
  }

  /** Runs kept (bounded by `runsCapacity`). */
  get runCount(): number {
    return this.runs.size;
  }

  /** Holds kept, ended ones included until evicted (bounded by `holdsCapacity`). */
  get holdCount(): number {
    return this.holds.size;
  }

  /** Identical calls in a row counted for this call's request, key and model (0: none). Reads only. */
  countOf(call: Pick<InlineLoopCall, 'orgId' | 'keyId' | 'model' | 'fingerprint'>): number {
    const run = this.runs.get(runIdOf(call.orgId, call.keyId, label(call.model)));
    if (run === undefined || !hasBodyFingerprint(call.fingerprint)) return 0;
    return run.fingerprint === fingerprintHash(call.fingerprint, label(call.model), 0) ? run.count : 0;
  }

  /**
   * The active hold that covers a caller (organization, then key, then its session), or undefined. An
   * ended hold is ignored (its entry ages out of the table).
   */
  holdOf(caller: InlineLoopCaller, now: number): InlineHold | undefined {
    if (this.holds.size === 0) return undefined;
    const session = sessionOf(caller.sessionId);
    const hold =
      this.activeHold(orgHoldId(caller.orgId), now) ??
      this.activeHold(keyHoldId(caller.orgId, caller.keyId), now) ??
      (session === undefined
        ? undefined
        : this.activeHold(sessionHoldId(caller.orgId, caller.keyId, session), now));
    return hold === undefined
      ? undefined
      : { scope: hold.scope, startedAt: hold.startedAt, count: hold.count, threshold: hold.threshold };
  }

  /**
   * Whether this call repeats this container's run of its key and model (same request, within the idle
   * reset, its hold not ended), and how many of the run's calls, this one included, the containers'
   * shared run has not been told of; undefined when it does not repeat. Reads only.
   */
  repeatOf(call: InlineLoopCall, policy: InlineLoopPolicy, now: number): { unshared: number } | undefined {
    if (!inlineLoopApplies(policy) || !hasBodyFingerprint(call.fingerprint)) return undefined;
    const model = label(call.model);
    const prev = this.runs.get(runIdOf(call.orgId, call.keyId, model));
    if (prev === undefined || !continues(prev, fingerprintHash(call.fingerprint, model, 0), policy, now)) {
      return undefined;
    }
    return { unshared: min(prev.count + 1, MAX_COUNT) - prev.shared };
  }

  /**
   * Whether this container's last call of the call's key and model, within `withinMs`, was another
   * request (then this call starts a run here, and no other container can be in the middle of a run of
   * it that this call would continue, except one begun since). Reads only.
   */
  followsOtherRequest(call: InlineLoopCall, now: number, withinMs: number): boolean {
    if (!hasBodyFingerprint(call.fingerprint)) return false;
    const model = label(call.model);
    const prev = this.runs.get(runIdOf(call.orgId, call.keyId, model));
    return (
      prev !== undefined &&
      now - prev.lastTs <= withinMs &&
      now >= prev.lastTs &&
      prev.fingerprint !== fingerprintHash(call.fingerprint, model, 0)
    );
  }

  /**
   * Counts a call the relay forwards (the pipeline will count its event). Returns the hold it puts when
   * the run reaches `consecutive` (the pipeline's verdict call), else undefined. A call without a body
   * fingerprint restarts the run: the pipeline gives it another identity (model + prompt tokens).
   * `sharedCount` is the run's count over every container (the shared run this call was added to, when
   * it was): the run counts that, and the hold goes by it; `'unknown'` when the write's outcome is not
   * known (the call's calls then count as told).
   */
  observe(
    call: InlineLoopCall,
    policy: InlineLoopPolicy,
    now: number,
    sharedCount?: number | 'unknown',
  ): InlineHold | undefined {
    if (!inlineLoopApplies(policy)) return undefined;
    const model = label(call.model);
    const session = sessionOf(call.sessionId);
    const id = runIdOf(call.orgId, call.keyId, model);
    const prev = this.runs.get(id);
    if (!hasBodyFingerprint(call.fingerprint)) {
      this.runs.delete(id);
      return undefined;
    }
    // The pipeline's identity: the first 52 bits of the fingerprint.
    const fp = fingerprintHash(call.fingerprint, model, 0);
    const stream = streamHash(call.keyId, session, model);
    const sameRun = prev !== undefined && continues(prev, fp, policy, now);
    const local = sameRun ? min(prev.count + 1, MAX_COUNT) : 1;
    // The shared count, when it answered, is the run's over every container (this container's own may hold
    // calls from before a Resume that reset it). After a write of unknown outcome (too slow; it may still
    // land), its calls count as told: telling them twice would refuse a call early, not telling them
    // only lets one more through.
    const count = typeof sharedCount === 'number' ? min(sharedCount, MAX_COUNT) : local;
    const shared = sharedCount === undefined ? (sameRun ? prev.shared : 0) : count;
    const switches = sameRun ? min(prev.switches + (prev.stream === stream ? 0 : 1), MAX_COUNT) : 0;
    const owner = ownerOfKey(call.orgId, call.keyId);
    let hold: InlineHold | undefined;
    let holdUntil = sameRun ? prev.holdUntil : 0;
    if (count >= policy.consecutive) {
      // The pipeline's scope for this verdict (identical-loop.ts): across sessions, the key (or the
      // organization); within one stream, the layer's scope (no session named: the key, as flagTarget does).
      const scope: VerdictScope =
        switches > 0
          ? policy.scope === 'organization'
            ? 'organization'
            : 'key'
          : policy.scope === 'session' && session === undefined
            ? 'key'
            : policy.scope;
      const holdId =
        scope === 'organization'
          ? orgHoldId(call.orgId)
          : scope === 'key'
            ? keyHoldId(call.orgId, call.keyId)
            : sessionHoldId(call.orgId, call.keyId, session as string);
      holdUntil = now + this.limits.holdMs;
      hold = { scope, startedAt: now, count, threshold: policy.consecutive };
      // An organization's hold is its own owner: no key's holds can push it out.
      this.holds.set(holdId, scope === 'organization' ? holdId : owner, { ...hold, until: holdUntil });
    }
    this.runs.set(id, owner, { fingerprint: fp, count, lastTs: now, stream, switches, holdUntil, shared });
    return hold;
  }

  /**
   * Ends the holds that cover a key (its own, its sessions', its organization's) and restarts its runs:
   * the relay has seen a flag refuse the key, so the pipeline has taken over, and what a person does with
   * that flag (resume) must not meet a count from before it. Returns the runs it ended, so that their
   * shared runs can start again too.
   */
  release(caller: Pick<InlineLoopCaller, 'orgId' | 'keyId'>): SharedRunId[] {
    const owner = ownerOfKey(caller.orgId, caller.keyId);
    const released = this.runs
      .idsOf(owner)
      .map((id) => ({ run: id.toString(36), fingerprint: (this.runs.get(id) as Run).fingerprint }));
    this.runs.deleteOwner(owner);
    this.holds.deleteOwner(owner);
    this.holds.deleteOwner(orgHoldId(caller.orgId));
    return released;
  }

  private activeHold(id: number, now: number): HoldEntry | undefined {
    const h = this.holds.get(id);
    return h !== undefined && now < h.until ? h : undefined;
  }
}
