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
import { fingerprintHash, hasBodyFingerprint, keyHash, streamHash } from './identity';
import { contextGrowthLayer } from './context-growth';
import { financialLimitsLayer } from './financial-limits';
import { identicalLoopLayer } from './identical-loop';
import { premiumConcentrationLayer } from './premium-concentration';
import { rpsBurstLayer } from './burst';
import { MAX_NANOS, MAX_TIMESTAMP_MS, MAX_TOKENS } from './limits';
import type { GuardrailPolicy } from './policy';
import { compareSequenceNumbers, isSequenceNumber } from './sequence';
import type { OrgGuardrailState } from './state';
import { NO_VERDICTS } from './types';
import type { GuardrailEvent, LayerEvent, LayerId, Verdict } from './types';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { floor, max, min, round } = Math;
const { isFinite: isFiniteNumber } = Number;

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

function clampInt(value: unknown, limit: number): number {
  if (typeof value !== 'number' || !(value > 0)) return 0;
  return value >= limit ? limit : round(value);
}

/**
 * Normalizes an event once for all layers: finite non-negative integers, event time clamped to
 * [0, now + maxClockSkewMs] (a client clock far in the future must not roll a budget period
 * over), identities hashed.
 */
export function prepareEvent(event: GuardrailEvent, policy: GuardrailPolicy, now: number): LayerEvent {
  const limit = isFiniteNumber(now)
    ? min(MAX_TIMESTAMP_MS, now + policy.limits.maxClockSkewMs)
    : MAX_TIMESTAMP_MS;
  const rawTs =
    typeof event.ts === 'number' && isFiniteNumber(event.ts) ? event.ts : isFiniteNumber(now) ? now : 0;
  const ts = max(0, min(floor(rawTs), limit));
  const keyId = typeof event.keyId === 'string' ? event.keyId : '';
  const model = typeof event.model === 'string' ? event.model : '';
  const sessionId =
    typeof event.sessionId === 'string' && event.sessionId.length > 0 ? event.sessionId : undefined;
  const promptTokens = clampInt(event.promptTokens, MAX_TOKENS);
  const fingerprint = event.fingerprint;
  return {
    event,
    ts,
    promptTokens,
    completionTokens: clampInt(event.completionTokens, MAX_TOKENS),
    costNanos: clampInt(event.costNanos, MAX_NANOS),
    premium: event.premium === true,
    keyHash: keyHash(keyId),
    streamHash: streamHash(keyId, sessionId, model),
    fingerprintHash: fingerprintHash(fingerprint, model, promptTokens),
    fingerprintSource: hasBodyFingerprint(fingerprint) ? 'body' : 'fallback',
    sessionId,
  };
}

/**
 * Applies one event of an organization to its guardrail state.
 *
 * Each layer runs from its own call site below rather than from a loop over the registry: a
 * monomorphic call lets V8 inline the step and drop its result object. Each step runs under
 * its own `try` (fail open: a layer that throws keeps its previous state and is reported in
 * `failedLayers`). A disabled layer is skipped unless it `tracksWhenDisabled` (layer 1 keeps
 * counting spend, so re-enabling it enforces the whole period).
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
    return {
      state,
      verdicts: [],
      outcome: 'rejected',
      reason: 'seq must be a decimal string of 1-132 digits',
    };
  }
  if (state.lastSeq !== null && compareSequenceNumbers(seq, state.lastSeq) <= 0) {
    return { state, verdicts: [], outcome: 'duplicate' };
  }
  const e = prepareEvent(event, policy, now);
  const previous = state.layers;
  let failed: LayerId[] | undefined;
  let v1 = NO_VERDICTS;
  let v2 = NO_VERDICTS;
  let v3 = NO_VERDICTS;
  let v4 = NO_VERDICTS;
  let v5 = NO_VERDICTS;

  let financialLimits = previous.financialLimits;
  if (policy.financialLimits.enabled || financialLimitsLayer.tracksWhenDisabled) {
    try {
      const r = financialLimitsLayer.step(financialLimits, e, policy, now);
      financialLimits = r.state;
      v1 = r.verdicts;
    } catch {
      (failed ??= []).push('financialLimits');
    }
  }
  let identicalLoop = previous.identicalLoop;
  if (policy.identicalLoop.enabled || identicalLoopLayer.tracksWhenDisabled) {
    try {
      const r = identicalLoopLayer.step(identicalLoop, e, policy, now);
      identicalLoop = r.state;
      v2 = r.verdicts;
    } catch {
      (failed ??= []).push('identicalLoop');
    }
  }
  let contextGrowth = previous.contextGrowth;
  if (policy.contextGrowth.enabled || contextGrowthLayer.tracksWhenDisabled) {
    try {
      const r = contextGrowthLayer.step(contextGrowth, e, policy, now);
      contextGrowth = r.state;
      v3 = r.verdicts;
    } catch {
      (failed ??= []).push('contextGrowth');
    }
  }
  let rpsBurst = previous.rpsBurst;
  if (policy.rpsBurst.enabled || rpsBurstLayer.tracksWhenDisabled) {
    try {
      const r = rpsBurstLayer.step(rpsBurst, e, policy, now);
      rpsBurst = r.state;
      v4 = r.verdicts;
    } catch {
      (failed ??= []).push('rpsBurst');
    }
  }
  let premiumConcentration = previous.premiumConcentration;
  if (policy.premiumConcentration.enabled || premiumConcentrationLayer.tracksWhenDisabled) {
    try {
      const r = premiumConcentrationLayer.step(premiumConcentration, e, policy, now);
      premiumConcentration = r.state;
      v5 = r.verdicts;
    } catch {
      (failed ??= []).push('premiumConcentration');
    }
  }

  const verdicts: Verdict[] =
    v1.length + v2.length + v3.length + v4.length + v5.length === 0
      ? []
      : [...v1, ...v2, ...v3, ...v4, ...v5];
  const next: OrgGuardrailState = {
    v: 1,
    lastSeq: seq,
    layers: { financialLimits, identicalLoop, contextGrowth, rpsBurst, premiumConcentration },
  };
  return failed === undefined
    ? { state: next, verdicts, outcome: 'applied' }
    : { state: next, verdicts, outcome: 'applied', failedLayers: failed };
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
  const out: ApplyBatchResult = {
    state,
    verdicts: [],
    applied: 0,
    duplicates: 0,
    rejected: 0,
    failedLayers: [],
  };
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
