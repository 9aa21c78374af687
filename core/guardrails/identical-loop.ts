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
 */
import { z } from 'zod';
import { emptyTable, indexOfId, putEntry } from './bounded-table';
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

/** Per session stream: [request identity hash, consecutive count, last call time]. */
export type IdenticalLoopEntry = readonly [fingerprint: number, count: number, lastTs: number];

export interface IdenticalLoopState {
  streams: BoundedTable<IdenticalLoopEntry>;
}

const lastSeen = (entry: IdenticalLoopEntry): number => entry[2];

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

export const identicalLoopLayer: GuardrailLayer<IdenticalLoopState, IdenticalLoopPolicy> = {
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
    ];
    const next = {
      streams: putEntry(streams, index, event.streamHash, entry, policy.limits.maxSessions, lastSeen),
    };
    if (!cfg.enabled || count < cfg.consecutive) return { state: next, verdicts: NO_VERDICTS };
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
    '{"streams":}'.length +
    tableMaxBytes(policy.limits.maxSessions, JSON.stringify([2 ** 53, MAX_COUNT, MAX_TIMESTAMP_MS]).length),
};
