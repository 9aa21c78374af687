/**
 * Layer 4 — RPS Burst Protection (`rps_burst`). More than `maxRequests` (default 10) requests
 * by one API key inside ANY sliding window of `windowMs` (default 60 s) kills the key, on the
 * 11th request.
 *
 * Rule: per key, keep the timestamps of its latest requests, sorted, at most `maxRequests` of
 * them and only those newer than (newest − window). A request trips the layer when, once it is
 * inserted, more than `maxRequests` timestamps remain — i.e. the 11 most recent requests span
 * less than the window (11th ts − oldest-of-the-last-11 ts < 60 s). The oldest is then dropped,
 * so memory per key is bounded by `maxRequests` numbers.
 *
 * Events may arrive slightly out of time order: a late request is inserted at its place. The
 * decision is always taken on the `maxRequests + 1` most recent timestamps known for the key,
 * which equals the exact sliding-window answer whenever requests arrive in time order, and
 * never fires unless `maxRequests + 1` real requests fall within one window.
 */
import { z } from 'zod';
import { emptyTable, indexOfId, putEntry } from './bounded-table';
import type { BoundedTable } from './bounded-table';
import { MAX_TIMESTAMP_MS, tableMaxBytes } from './limits';
import { guardrailModeSchema, guardrailScopeSchema } from './policy-fields';
import { ACTION_BY_MODE, NO_VERDICTS } from './types';
import type { GuardrailLayer, Verdict } from './types';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { max } = Math;

export const rpsBurstPolicySchema = z.object({
  enabled: z.boolean().default(true),
  /** Allowed requests per window; one more trips the layer (spec: more than 10 per minute). */
  maxRequests: z.int().min(1).max(1000).default(10),
  /** Sliding window length in ms (spec: one minute). */
  windowMs: z.int().min(1000).max(3_600_000).default(60_000),
  mode: guardrailModeSchema.default('hard_stop'),
  /** What the flag stops: organization, key or session (decision 13). */
  scope: guardrailScopeSchema.default('key'),
});
export type RpsBurstPolicy = z.infer<typeof rpsBurstPolicySchema>;

/** Per key: its latest request timestamps, ascending, all within one window of the newest. */
export type BurstEntry = readonly number[];

export interface RpsBurstState {
  keys: BoundedTable<BurstEntry>;
}

const lastSeen = (entry: BurstEntry): number => entry[entry.length - 1] ?? 0;

/**
 * The key's ring after one more request at `ts`, and whether it tripped: pure, allocation of
 * one small array.
 */
export function advanceBurstRing(
  ring: BurstEntry,
  ts: number,
  cfg: Pick<RpsBurstPolicy, 'maxRequests' | 'windowMs'>,
): { ring: number[]; inWindow: number } {
  const newest = max(ts, ring[ring.length - 1] ?? ts);
  const cutoff = newest - cfg.windowMs;
  const next: number[] = [];
  let inserted = ts <= cutoff;
  for (let i = 0; i < ring.length; i++) {
    const t = ring[i] as number;
    if (t <= cutoff) continue;
    if (!inserted && ts < t) {
      next.push(ts);
      inserted = true;
    }
    next.push(t);
  }
  if (!inserted) next.push(ts);
  const inWindow = next.length;
  if (next.length > cfg.maxRequests) next.splice(0, next.length - cfg.maxRequests);
  return { ring: next, inWindow };
}

export const rpsBurstLayer: GuardrailLayer<RpsBurstState, RpsBurstPolicy, 'rpsBurst'> = {
  id: 'rpsBurst',
  ordinal: 4,
  name: 'RPS Burst Protection',
  description:
    'More than `maxRequests` (10) requests by one API key within any sliding `windowMs` (60 s) kills the key ' +
    'on the 11th request; bounded ring of the latest `maxRequests` timestamps per key.',
  triggerTypes: ['rps_burst'],
  defaults: rpsBurstPolicySchema.parse({}),
  tracksWhenDisabled: false,
  policyOf: (policy) => policy.rpsBurst,
  initialState: () => ({ keys: emptyTable() }),

  step(state, event, policy) {
    const cfg = policy.rpsBurst;
    const keys = state.keys;
    const index = indexOfId(keys, event.keyHash);
    const { ring, inWindow } = advanceBurstRing(
      index >= 0 ? (keys.entries[index] as BurstEntry) : [],
      event.ts,
      cfg,
    );
    const next = { keys: putEntry(keys, index, event.keyHash, ring, policy.limits.maxKeys, lastSeen) };
    if (!cfg.enabled || inWindow <= cfg.maxRequests) return { state: next, verdicts: NO_VERDICTS };
    const verdict: Verdict = {
      layer: 'rpsBurst',
      triggerType: 'rps_burst',
      observedValue: inWindow,
      thresholdValue: cfg.maxRequests,
      mode: cfg.mode,
      action: ACTION_BY_MODE[cfg.mode],
      scope: cfg.scope,
      keyId: event.event.keyId,
      ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}),
      seq: event.event.seq,
      message: `Key ${event.event.keyId} made ${inWindow} requests within ${cfg.windowMs / 1000} s (limit ${cfg.maxRequests})`,
    };
    return { state: next, verdicts: [verdict] };
  },

  maxStateBytes: (policy) =>
    '{"keys":}'.length +
    tableMaxBytes(
      policy.limits.maxKeys,
      JSON.stringify(new Array<number>(policy.rpsBurst.maxRequests).fill(MAX_TIMESTAMP_MS)).length,
    ),
};
