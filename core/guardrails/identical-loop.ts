/**
 * Layer 2 — Dumb Loop Detector (`token_loop_identical`). The same request sent N times IN A
 * ROW (default 4) within one session kills the session's key, on exactly the N-th call.
 *
 * Rule: per session stream (keyId + sessionId, or keyId + model when no session is named),
 * keep the last request identity and how many consecutive times it was seen. A different
 * request resets the run to 1; so does a pause longer than `resetAfterIdleMs` (default 15 min:
 * a scheduled job that sends the same prompt every hour is not a loop). The default of 4
 * tolerates the official SDKs' two automatic retries of a failed call (3 identical requests).
 *
 * Request identity: the body fingerprint (`sha256:…` of model + messages + tools) when the
 * proxy computed one; otherwise model + prompt-token count (calls that report no prompt tokens,
 * i.e. failed calls without a fingerprint, are skipped: they neither count nor reset). Through a routing aggregator the
 * fallback is best-effort (one prompt served by different tokenizers reports different
 * counts), and layer 4 (RPS burst) is the safety net for such loops.
 *
 * Across sessions (issue 19.6): a loop that names a new session on every call is one request per
 * session, so the session streams never see it. A second stream per key and model, whatever the session,
 * counts the same run; when it reaches `consecutive` over more than one session, the verdict is at key
 * scope (renaming the session would dodge any session-scope flag). The session table evicts fairly: a
 * key that opens many sessions evicts its own oldest, never another key's loop state while it holds more.
 */
import { z } from 'zod';
import { emptyTable, indexOfId, putEntry, putEntryFair } from './bounded-table';
import { hash53, OWNER_TAGS, ownerTag } from './identity';
import type { BoundedTable } from './bounded-table';
import { MAX_COUNT, MAX_TIMESTAMP_MS, tableMaxBytes } from './limits';
import { durationMsSchema, guardrailModeSchema, guardrailScopeSchema } from './policy-fields';
import { ACTION_BY_MODE, NO_VERDICTS } from './types';
import type { GuardrailLayer, LayerEvent, Verdict } from './types';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { max, min } = Math;

export const identicalLoopPolicySchema = z.object({
  enabled: z.boolean().default(true),
  /** Kill on this many identical consecutive requests (spec: 4). */
  consecutive: z.int().min(2).max(1000).default(4),
  /** A pause longer than this between two calls of a session restarts the count; 0 = never. */
  resetAfterIdleMs: durationMsSchema.default(15 * 60_000),
  mode: guardrailModeSchema.default('hard_stop'),
  /** What the flag stops: organization, key or session (decision 13). */
  scope: guardrailScopeSchema.default('session'),
});
export type IdenticalLoopPolicy = z.infer<typeof identicalLoopPolicySchema>;

/**
 * Per session stream: [request identity hash, consecutive count, last call time, key hash]. The key hash
 * is absent from state written before it was kept.
 */
export type IdenticalLoopEntry = readonly [fingerprint: number, count: number, lastTs: number, key?: number];

/**
 * Per key and model, across sessions: [request identity hash, consecutive count, last call time, session
 * stream of the last call, session switches within the run].
 */
export type KeyLoopEntry = readonly [
  fingerprint: number,
  count: number,
  lastTs: number,
  lastStream: number,
  switches: number,
];

export interface IdenticalLoopState {
  streams: BoundedTable<IdenticalLoopEntry>;
  /** Absent in state written before loops were followed across sessions. */
  keyStreams?: BoundedTable<KeyLoopEntry>;
}

const lastSeen = (entry: IdenticalLoopEntry): number => entry[2];
const ownerOf = (entry: IdenticalLoopEntry): number | undefined => entry[3];
const keyLastSeen = (entry: KeyLoopEntry): number => entry[2];

/**
 * Key-and-model streams kept (the most recently active). Small, so that every policy that fitted the 64 KB
 * state bound before loops were followed across sessions still fits it.
 */
export const KEY_LOOP_STREAMS = 16;

function keyStreamCapacity(policy: { limits: { maxKeys: number } }): number {
  return min(policy.limits.maxKeys, KEY_LOOP_STREAMS);
}

/** The key-and-model stream of a key's calls to a model (its own hash space: seed 5). */
export function keyStreamId(keyId: string, model: string): number {
  return hash53(`${keyId}\u0000${model}`, 5);
}

function keyStreamOf(event: LayerEvent): number {
  return keyStreamId(event.event.keyId, event.event.model);
}

function describeRequest(event: LayerEvent): string {
  const fp = event.event.fingerprint;
  return event.fingerprintSource === 'body' && typeof fp === 'string'
    ? `fingerprint ${fp.slice(0, 19)}…`
    : `no body fingerprint: ${event.event.model} with ${event.promptTokens} prompt tokens`;
}

function describeSession(event: LayerEvent): string {
  return event.sessionId !== undefined
    ? `session ${event.sessionId} on key ${event.event.keyId}`
    : `key ${event.event.keyId}, model ${event.event.model} (no session id)`;
}

export const identicalLoopLayer: GuardrailLayer<IdenticalLoopState, IdenticalLoopPolicy, 'identicalLoop'> = {
  id: 'identicalLoop',
  ordinal: 2,
  name: 'Dumb Loop Detector',
  description:
    'The same request (body fingerprint, else model + prompt tokens) sent `consecutive` times in a row ' +
    'in one session (default 4) kills the key on exactly that call.',
  triggerTypes: ['token_loop_identical'],
  defaults: identicalLoopPolicySchema.parse({}),
  tracksWhenDisabled: false,
  policyOf: (policy) => policy.identicalLoop,
  initialState: () => ({ streams: emptyTable() }),

  step(state, event, policy) {
    const cfg = policy.identicalLoop;
    // A call without usage and without a body fingerprint (a failed call seen by the SDK) has no identity.
    if (event.fingerprintSource === 'fallback' && event.promptTokens === 0)
      return { state, verdicts: NO_VERDICTS };
    const streams = state.streams;
    const index = indexOfId(streams, event.streamHash);
    const prev = index >= 0 ? streams.entries[index] : undefined;
    let count = 1;
    if (
      prev !== undefined &&
      prev[0] === event.fingerprintHash &&
      (cfg.resetAfterIdleMs === 0 || event.ts - prev[2] <= cfg.resetAfterIdleMs)
    ) {
      count = min(prev[1] + 1, MAX_COUNT);
    }
    const entry: IdenticalLoopEntry = [
      event.fingerprintHash,
      count,
      prev ? max(prev[2], event.ts) : event.ts,
      ownerTag(event.keyHash),
    ];
    const keyStreams = state.keyStreams ?? emptyTable<KeyLoopEntry>();
    const keyStream = keyStreamOf(event);
    const keyIndex = indexOfId(keyStreams, keyStream);
    const kPrev = keyIndex >= 0 ? keyStreams.entries[keyIndex] : undefined;
    let keyCount = 1;
    let switches = 0;
    if (
      kPrev !== undefined &&
      kPrev[0] === event.fingerprintHash &&
      (cfg.resetAfterIdleMs === 0 || event.ts - kPrev[2] <= cfg.resetAfterIdleMs)
    ) {
      keyCount = min(kPrev[1] + 1, MAX_COUNT);
      switches = min(kPrev[4] + (kPrev[3] === event.streamHash ? 0 : 1), MAX_COUNT);
    }
    const keyEntry: KeyLoopEntry = [
      event.fingerprintHash,
      keyCount,
      kPrev ? max(kPrev[2], event.ts) : event.ts,
      event.streamHash,
      switches,
    ];
    const next: IdenticalLoopState = {
      streams: putEntryFair(
        streams,
        index,
        event.streamHash,
        entry,
        policy.limits.maxSessions,
        lastSeen,
        ownerOf,
      ),
      keyStreams: putEntry(keyStreams, keyIndex, keyStream, keyEntry, keyStreamCapacity(policy), keyLastSeen),
    };
    if (!cfg.enabled) return { state: next, verdicts: NO_VERDICTS };
    if (count < cfg.consecutive) {
      // The session's own run is short: a run across sessions of the key stops the key.
      if (keyCount < cfg.consecutive || switches === 0) return { state: next, verdicts: NO_VERDICTS };
      const acrossSessions: Verdict = {
        layer: 'identicalLoop',
        triggerType: 'token_loop_identical',
        observedValue: keyCount,
        thresholdValue: cfg.consecutive,
        mode: cfg.mode,
        action: ACTION_BY_MODE[cfg.mode],
        scope: cfg.scope === 'organization' ? 'organization' : 'key',
        keyId: event.event.keyId,
        seq: event.event.seq,
        message: `Identical request sent ${keyCount} times in a row across ${switches + 1} or more sessions (key ${event.event.keyId}, model ${event.event.model}; ${describeRequest(event)})`,
      };
      return { state: next, verdicts: [acrossSessions] };
    }
    const verdict: Verdict = {
      layer: 'identicalLoop',
      triggerType: 'token_loop_identical',
      observedValue: count,
      thresholdValue: cfg.consecutive,
      mode: cfg.mode,
      action: ACTION_BY_MODE[cfg.mode],
      scope: cfg.scope,
      keyId: event.event.keyId,
      ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}),
      seq: event.event.seq,
      message: `Identical request sent ${count} times in a row (${describeSession(event)}; ${describeRequest(event)})`,
    };
    return { state: next, verdicts: [verdict] };
  },

  maxStateBytes: (policy) =>
    '{"streams":,"keyStreams":}'.length +
    tableMaxBytes(
      policy.limits.maxSessions,
      JSON.stringify([2 ** 53, MAX_COUNT, MAX_TIMESTAMP_MS, OWNER_TAGS - 1]).length,
    ) +
    tableMaxBytes(
      keyStreamCapacity(policy),
      JSON.stringify([2 ** 53, MAX_COUNT, MAX_TIMESTAMP_MS, 2 ** 53, MAX_COUNT]).length,
    ),
};
