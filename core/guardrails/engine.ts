/**
 * The guardrail engine: runs every enabled layer, in order, over one event of one
 * organization. Pure: `applyEvent(state, event, policy, now)` returns the next state and the
 * verdicts, and never mutates its arguments or throws.
 *
 * Idempotency: the state remembers the last applied Kinesis sequence number; an event whose
 * sequence number is ≤ it is a redelivery and changes nothing (the same state object comes
 * back, with no verdicts). Events of one organization arrive in sequence order (one shard), but
 * their timestamps may be slightly out of order; each layer documents how it handles that.
 */
import { fingerprintHash, keyHash, streamHash } from './identity';
import { GUARDRAIL_LAYERS, LAYER_IDS } from './layers';
import type { LayerStates } from './layers';
import { MAX_NANOS, MAX_TIMESTAMP_MS, MAX_TOKENS } from './limits';
import type { GuardrailPolicy } from './policy';
import { compareSequenceNumbers, isSequenceNumber } from './sequence';
import type { OrgGuardrailState } from './state';
import type { GuardrailEvent, LayerEvent, LayerId, Verdict } from './types';

/** What the engine did with an event. */
export type ApplyOutcome = 'applied' | 'duplicate' | 'rejected';

export interface ApplyResult {
  state: OrgGuardrailState;
  verdicts: Verdict[];
  outcome: ApplyOutcome;
  /** Why an event was rejected (no usable sequence number). */
  reason?: string;
  /** Layers whose step failed unexpectedly: their state was kept, the event passed (fail open). */
  failedLayers?: LayerId[];
}

function clampInt(value: unknown, max: number): number {
  if (typeof value !== 'number' || !(value > 0)) return 0;
  return value >= max ? max : Math.round(value);
}

/**
 * Normalizes an event once for all layers: finite non-negative integers, event time clamped to
 * [0, now + maxClockSkewMs] (a client clock far in the future must not roll a budget period
 * over), identities hashed.
 */
export function prepareEvent(event: GuardrailEvent, policy: GuardrailPolicy, now: number): LayerEvent {
  const limit = Number.isFinite(now) ? Math.min(MAX_TIMESTAMP_MS, now + policy.limits.maxClockSkewMs) : MAX_TIMESTAMP_MS;
  const rawTs = typeof event.ts === 'number' && Number.isFinite(event.ts) ? event.ts : Number.isFinite(now) ? now : 0;
  const ts = Math.max(0, Math.min(Math.floor(rawTs), limit));
  const keyId = typeof event.keyId === 'string' ? event.keyId : '';
  const model = typeof event.model === 'string' ? event.model : '';
  const sessionId = typeof event.sessionId === 'string' && event.sessionId.length > 0 ? event.sessionId : undefined;
  const promptTokens = clampInt(event.promptTokens, MAX_TOKENS);
  const fp = fingerprintHash({ fingerprint: event.fingerprint, model }, promptTokens);
  return {
    event,
    ts,
    promptTokens,
    completionTokens: clampInt(event.completionTokens, MAX_TOKENS),
    costNanos: clampInt(event.costNanos, MAX_NANOS),
    premium: event.premium === true,
    keyHash: keyHash(keyId),
    streamHash: streamHash(keyId, sessionId, model),
    fingerprintHash: fp.hash,
    fingerprintSource: fp.source,
    sessionId,
  };
}

function runLayer<K extends LayerId>(
  id: K,
  states: LayerStates,
  event: LayerEvent,
  policy: GuardrailPolicy,
  now: number,
  verdicts: Verdict[],
): boolean {
  const layer = GUARDRAIL_LAYERS[id];
  const section = layer.policyOf(policy);
  if (!section.enabled && !layer.tracksWhenDisabled) return true;
  try {
    const result = layer.step(states[id], event, policy, now);
    states[id] = result.state;
    for (const v of result.verdicts) verdicts.push(v);
    return true;
  } catch {
    return false;
  }
}

/**
 * Applies one event of an organization to its guardrail state.
 *
 * @param state the organization's state (`initialOrgState()` for a new one); not mutated
 * @param event the priced event; its `seq` must be a decimal sequence number
 * @param policy the organization's policy (`DEFAULT_POLICY`, or `parseGuardrailPolicy(stored)`)
 * @param now processing time in ms (the caller's clock; used to clamp event times)
 * @example
 * let state = initialOrgState();
 * const r = applyEvent(state, event, DEFAULT_POLICY, Date.now()); // in the Lambda adapter, not in core
 * state = r.state; // persist with condition lastSeq = previous lastSeq; send r.verdicts to enforcement
 */
export function applyEvent(
  state: OrgGuardrailState,
  event: GuardrailEvent,
  policy: GuardrailPolicy,
  now: number,
): ApplyResult {
  const seq: unknown = event?.seq;
  if (!isSequenceNumber(seq)) {
    return { state, verdicts: [], outcome: 'rejected', reason: 'seq must be a decimal string of 1-132 digits' };
  }
  if (state.lastSeq !== null && compareSequenceNumbers(seq, state.lastSeq) <= 0) {
    return { state, verdicts: [], outcome: 'duplicate' };
  }
  const prepared = prepareEvent(event, policy, now);
  const layers: LayerStates = { ...state.layers };
  const verdicts: Verdict[] = [];
  let failedLayers: LayerId[] | undefined;
  for (const id of LAYER_IDS) {
    if (!runLayer(id, layers, prepared, policy, now, verdicts)) (failedLayers ??= []).push(id);
  }
  const next: OrgGuardrailState = { v: 1, lastSeq: seq, layers };
  return failedLayers === undefined
    ? { state: next, verdicts, outcome: 'applied' }
    : { state: next, verdicts, outcome: 'applied', failedLayers };
}

export interface ApplyBatchResult {
  state: OrgGuardrailState;
  verdicts: Verdict[];
  applied: number;
  duplicates: number;
  rejected: number;
  failedLayers: LayerId[];
}

/** Applies a batch of one organization's events in order (what a Kinesis batch handler calls). */
export function applyEvents(
  state: OrgGuardrailState,
  events: readonly GuardrailEvent[],
  policy: GuardrailPolicy,
  now: number,
): ApplyBatchResult {
  const out: ApplyBatchResult = { state, verdicts: [], applied: 0, duplicates: 0, rejected: 0, failedLayers: [] };
  for (const event of events) {
    const r = applyEvent(out.state, event, policy, now);
    out.state = r.state;
    for (const v of r.verdicts) out.verdicts.push(v);
    if (r.outcome === 'applied') out.applied++;
    else if (r.outcome === 'duplicate') out.duplicates++;
    else out.rejected++;
    for (const id of r.failedLayers ?? []) if (!out.failedLayers.includes(id)) out.failedLayers.push(id);
  }
  return out;
}
