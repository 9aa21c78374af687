/**
 * An organization's guardrail state: plain JSON, one DynamoDB item, updated with a condition on
 * `lastSeq` so that a redelivered Kinesis record changes nothing.
 *
 * Size: every table is capped (sessions and keys are LRU-evicted by last call) and every number
 * is clamped to a known width, so `maxStateBytes(policy)` is a true upper bound of
 * `JSON.stringify(state).length`. With the default policy it is about 38 KB; the policy schema
 * rejects any policy whose bound exceeds 64 KB (`STATE_BYTES_LIMIT`), well under DynamoDB's
 * 400 KB item limit.
 */
import { GUARDRAIL_LAYERS, LAYER_IDS } from './layers';
import type { LayerPolicies, LayerStates } from './layers';
import type { StateLimitsPolicy } from './state-limits';
import { isSequenceNumber, MAX_SEQUENCE_DIGITS } from './sequence';

export interface OrgGuardrailState {
  /** Schema version of this document. */
  v: 1;
  /** Sequence number of the last applied event; null before the first. */
  lastSeq: string | null;
  layers: LayerStates;
}

/** The state of an organization that has sent nothing yet. */
export function initialOrgState(): OrgGuardrailState {
  return {
    v: 1,
    lastSeq: null,
    layers: {
      financialLimits: GUARDRAIL_LAYERS.financialLimits.initialState(),
      identicalLoop: GUARDRAIL_LAYERS.identicalLoop.initialState(),
      contextGrowth: GUARDRAIL_LAYERS.contextGrowth.initialState(),
      rpsBurst: GUARDRAIL_LAYERS.rpsBurst.initialState(),
      premiumConcentration: GUARDRAIL_LAYERS.premiumConcentration.initialState(),
    },
  };
}

/**
 * Upper bound of `JSON.stringify(state).length` for any state reachable under `policy`
 * (sequence numbers up to 132 digits included).
 */
export function maxStateBytes(policy: LayerPolicies & { readonly limits: StateLimitsPolicy }): number {
  let bytes = JSON.stringify({ v: 1, lastSeq: '9'.repeat(MAX_SEQUENCE_DIGITS), layers: {} }).length;
  for (const id of LAYER_IDS)
    bytes += JSON.stringify(id).length + 2 + GUARDRAIL_LAYERS[id].maxStateBytes(policy);
  return bytes;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTable(value: unknown): boolean {
  return (
    isRecord(value) &&
    Array.isArray(value.ids) &&
    Array.isArray(value.entries) &&
    value.ids.length === value.entries.length
  );
}

/**
 * A stored state, or a fresh one when the stored document is missing, of another version or
 * malformed (the guardrails then start over for that organization: fail open, never throw).
 */
export function reviveOrgState(value: unknown): OrgGuardrailState {
  if (!isRecord(value) || value.v !== 1 || !isRecord(value.layers)) return initialOrgState();
  const lastSeq = value.lastSeq;
  if (lastSeq !== null && (typeof lastSeq !== 'string' || !isSequenceNumber(lastSeq)))
    return initialOrgState();
  const l = value.layers;
  const fin = l.financialLimits;
  const ok =
    isRecord(fin) &&
    typeof fin.day === 'number' &&
    typeof fin.month === 'number' &&
    typeof fin.daySpendNanos === 'number' &&
    typeof fin.monthSpendNanos === 'number' &&
    isRecord(l.identicalLoop) &&
    isTable(l.identicalLoop.streams) &&
    isRecord(l.contextGrowth) &&
    isTable(l.contextGrowth.sessions) &&
    isRecord(l.rpsBurst) &&
    isTable(l.rpsBurst.keys) &&
    isRecord(l.premiumConcentration) &&
    Array.isArray(l.premiumConcentration.buckets) &&
    Array.isArray(l.premiumConcentration.totalNanos) &&
    Array.isArray(l.premiumConcentration.premiumNanos);
  return ok ? (value as unknown as OrgGuardrailState) : initialOrgState();
}
