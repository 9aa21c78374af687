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
 * A hold is a bridge to the pipeline's flag, not a second flag: it lasts `holdMs` (10 s) or until the
 * relay sees the flag itself ({@link releaseInlineHolds}); then the run starts again from zero, so a person
 * who resumed the key in the dashboard is not refused by a count the resume cleared.
 *
 * The state is one container's (the relay's per-process memory): bounded tables of runs (per key and
 * model) and holds, evicted fairly (bounded-table.ts `putEntryFair`: an API key that opens many runs evicts
 * its own, never another key's while it holds more). Pure: time comes in as an argument; updates copy.
 */
import { emptyTable, indexOfId, putEntryFair, type BoundedTable } from './bounded-table';
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

/**
 * Per key and model: [request identity, identical calls in a row, last call time, session stream of the
 * last call, session switches within the run, end of the hold the run put (0: none), owner (the key)].
 */
type RunEntry = readonly [
  fingerprint: number,
  count: number,
  lastTs: number,
  lastStream: number,
  switches: number,
  holdUntil: number,
  owner: number,
];

/** Per held organization, key or session: [scope, start, end, count, threshold, owner]. */
type HoldEntry = readonly [
  scope: number,
  startedAt: number,
  until: number,
  count: number,
  threshold: number,
  owner: number,
];

export interface InlineLoopState {
  readonly runs: BoundedTable<RunEntry>;
  readonly holds: BoundedTable<HoldEntry>;
}

/** Tunables of {@link observeInlineCall} (tests shrink them to reach the bounds). */
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

const SCOPES: readonly VerdictScope[] = ['organization', 'key', 'session'];

export function emptyInlineLoopState(): InlineLoopState {
  return { runs: emptyTable(), holds: emptyTable() };
}

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

const runLastSeen = (e: RunEntry): number => e[2];
const runOwner = (e: RunEntry): number => e[6];
const holdLastSeen = (e: HoldEntry): number => e[1];
const holdOwner = (e: HoldEntry): number => e[5];

/** Whether a policy makes the relay count and refuse at all (hard_stop only: the other modes never refuse). */
export function inlineLoopApplies(policy: InlineLoopPolicy): boolean {
  return policy.enabled && policy.mode === 'hard_stop';
}

/**
 * The active hold that covers a caller (organization, then key, then its session), or undefined. An
 * ended hold is simply ignored (its entry ages out of the table).
 */
export function inlineHoldOf(
  state: InlineLoopState,
  caller: InlineLoopCaller,
  now: number,
): InlineHold | undefined {
  const holds = state.holds;
  if (holds.ids.length === 0) return undefined;
  const session = sessionOf(caller.sessionId);
  const ids = [orgHoldId(caller.orgId), keyHoldId(caller.orgId, caller.keyId)];
  if (session !== undefined) ids.push(sessionHoldId(caller.orgId, caller.keyId, session));
  for (const id of ids) {
    const index = indexOfId(holds, id);
    if (index < 0) continue;
    const h = holds.entries[index] as HoldEntry;
    if (now >= h[2]) continue;
    return { scope: SCOPES[h[0]] as VerdictScope, startedAt: h[1], count: h[3], threshold: h[4] };
  }
  return undefined;
}

/**
 * Counts a call the relay forwards (the pipeline will count its event). Returns the hold it puts when the
 * run reaches `consecutive` (the pipeline's verdict call), else undefined. A call without a body
 * fingerprint restarts the run: the pipeline gives it another identity (model + prompt tokens).
 */
export function observeInlineCall(
  state: InlineLoopState,
  call: InlineLoopCall,
  policy: InlineLoopPolicy,
  now: number,
  limits: InlineLoopLimits = DEFAULT_INLINE_LIMITS,
): { state: InlineLoopState; hold: InlineHold | undefined } {
  if (!inlineLoopApplies(policy)) return { state, hold: undefined };
  const model = label(call.model);
  const session = sessionOf(call.sessionId);
  const owner = ownerOfKey(call.orgId, call.keyId);
  const id = runIdOf(call.orgId, call.keyId, model);
  const index = indexOfId(state.runs, id);
  const prev = index >= 0 ? (state.runs.entries[index] as RunEntry) : undefined;
  // The pipeline's identity: the first 52 bits of the fingerprint; -1 never equals one (no fingerprint).
  const fp = hasBodyFingerprint(call.fingerprint) ? fingerprintHash(call.fingerprint, model, 0) : -1;
  const stream = streamHash(call.keyId, session, model);
  const sameRun =
    prev !== undefined &&
    fp >= 0 &&
    prev[0] === fp &&
    (policy.resetAfterIdleMs === 0 || now - prev[2] <= policy.resetAfterIdleMs) &&
    // A run whose hold has ended (or was released) starts again: the flag or the person took over.
    (prev[5] === 0 || now < prev[5]);
  const count = sameRun ? min(prev[1] + 1, MAX_COUNT) : 1;
  const switches = sameRun ? min(prev[4] + (prev[3] === stream ? 0 : 1), MAX_COUNT) : 0;
  let hold: InlineHold | undefined;
  let holds = state.holds;
  let holdUntil = sameRun ? prev[5] : 0;
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
    const until = now + limits.holdMs;
    hold = { scope, startedAt: now, count, threshold: policy.consecutive };
    const entry: HoldEntry = [
      SCOPES.indexOf(scope),
      now,
      until,
      count,
      policy.consecutive,
      scope === 'organization' ? holdId : owner,
    ];
    holds = putEntryFair(
      holds,
      indexOfId(holds, holdId),
      holdId,
      entry,
      limits.holdsCapacity,
      holdLastSeen,
      holdOwner,
    );
    holdUntil = until;
  }
  const run: RunEntry = [fp, count, now, stream, switches, holdUntil, owner];
  const runs =
    fp < 0 && prev === undefined
      ? state.runs // nothing to count and nothing to reset
      : putEntryFair(state.runs, index, id, run, limits.runsCapacity, runLastSeen, runOwner);
  return { state: { runs, holds }, hold };
}

/**
 * Ends the holds that cover a key (its own, its sessions', its organization's) and restarts its runs: the
 * relay has seen a flag refuse the key, so the pipeline has taken over, and what a person does with that
 * flag (resume) must not meet a count from before it.
 */
export function releaseInlineHolds(
  state: InlineLoopState,
  caller: Pick<InlineLoopCaller, 'orgId' | 'keyId'>,
): InlineLoopState {
  const owner = ownerOfKey(caller.orgId, caller.keyId);
  const orgHold = orgHoldId(caller.orgId);
  const keep = <E>(table: BoundedTable<E>, drop: (id: number, e: E) => boolean): BoundedTable<E> => {
    let changed = false;
    const ids: number[] = [];
    const entries: E[] = [];
    for (let i = 0; i < table.ids.length; i++) {
      const id = table.ids[i] as number;
      const e = table.entries[i] as E;
      if (drop(id, e)) changed = true;
      else {
        ids.push(id);
        entries.push(e);
      }
    }
    return changed ? { ids, entries } : table;
  };
  return {
    runs: keep(state.runs, (_, e) => runOwner(e) === owner),
    holds: keep(state.holds, (id, e) => id === orgHold || holdOwner(e) === owner),
  };
}
