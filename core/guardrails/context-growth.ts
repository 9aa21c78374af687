/**
 * Layer 3 — Smart Loop Detector (`context_growth_linear`). An agent that re-appends the same
 * error to its context makes the prompt grow by about the same number of tokens on every call.
 * Ordinary conversations grow too, but by varied amounts (a user message, then a long tool
 * output, then a short answer), so the test is on the regularity of the increments, not on
 * growth alone.
 *
 * Rule, per session stream (keyId + sessionId, or keyId + model when no session is named),
 * over the prompt-token counts p₀, p₁, … of consecutive calls, with Δᵢ = pᵢ − pᵢ₋₁:
 *   the last `window` increments (default 6, so 7 calls) all satisfy Δ ≥ `minIncrementTokens`
 *   (default 50), and their spread is small:
 *     max(Δ) − min(Δ) ≤ max(`maxSpreadRatio` × mean(Δ), `spreadToleranceTokens`)
 *   (defaults 10 % and 0 tokens).
 * An increment below the minimum (including a shrinking context, e.g. after summarization)
 * clears the run; so does a pause longer than `resetAfterIdleMs` (default 15 min). Calls that
 * report no prompt tokens (failed calls) are skipped. Once
 * tripped, every further linear call re-emits the verdict.
 *
 * Across sessions (issue 19.6): the same run is also followed per key and model, whatever the session, so
 * an agent that names a new session on every call still shows its growing context; when that run is linear
 * and spans more than one session, the verdict is at key scope. Interleaved sessions of one key zig-zag
 * (a shrinking increment clears the run), so concurrent agents do not add up to a false positive. The
 * session table evicts fairly per key, as layer 2's does.
 */
import { z } from 'zod';
import { emptyTable, indexOfId, putEntry, putEntryFair } from './bounded-table';
import { hash53, OWNER_TAGS, ownerTag } from './identity';
import type { BoundedTable } from './bounded-table';
import { MAX_COUNT, MAX_TIMESTAMP_MS, MAX_TOKENS, tableMaxBytes } from './limits';
import { durationMsSchema, guardrailModeSchema, guardrailScopeSchema } from './policy-fields';
import { ACTION_BY_MODE, NO_VERDICTS } from './types';
import type { GuardrailLayer, Verdict } from './types';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { max, min, round } = Math;

export const contextGrowthPolicySchema = z.object({
  enabled: z.boolean().default(true),
  /** Number of consecutive increments examined (calls examined = window + 1). */
  window: z.int().min(3).max(16).default(6),
  /** Every increment must add at least this many prompt tokens. */
  minIncrementTokens: z.int().min(1).max(MAX_TOKENS).default(50),
  /** Largest allowed (max − min) / mean of the increments. */
  maxSpreadRatio: z.number().min(0).max(1).default(0.1),
  /** Absolute spread always allowed, in tokens (0 = ratio only). */
  spreadToleranceTokens: z.int().min(0).max(MAX_TOKENS).default(0),
  /** A pause longer than this between two calls of a session restarts the run; 0 = never. */
  resetAfterIdleMs: durationMsSchema.default(15 * 60_000),
  mode: guardrailModeSchema.default('hard_stop'),
  /** What the flag stops: organization, key or session (decision 13). */
  scope: guardrailScopeSchema.default('session'),
});
export type ContextGrowthPolicy = z.infer<typeof contextGrowthPolicySchema>;

/**
 * Per session stream: [last call time, last prompt tokens, consecutive linear calls already
 * reported, the latest increments ≥ the minimum (at most `window`)].
 */
export type ContextGrowthEntry = readonly [
  lastTs: number,
  lastPromptTokens: number,
  hits: number,
  increments: readonly number[],
  /** The key hash; absent in state written before it was kept. */
  key?: number,
];

/** Per key and model, across sessions: a {@link ContextGrowthEntry} with the last session and the switches in the run. */
export type KeyGrowthEntry = readonly [
  lastTs: number,
  lastPromptTokens: number,
  hits: number,
  increments: readonly number[],
  lastStream: number,
  switches: number,
];

export interface ContextGrowthState {
  sessions: BoundedTable<ContextGrowthEntry>;
  /** Absent in state written before growth was followed across sessions. */
  keyStreams?: BoundedTable<KeyGrowthEntry>;
}

const lastSeen = (entry: ContextGrowthEntry | KeyGrowthEntry): number => entry[0];
const ownerOf = (entry: ContextGrowthEntry): number | undefined => entry[4];

/** One step of the run: the next entry's first four fields and whether the window is linear. */
function grow(
  prev: readonly [number, number, number, readonly number[], ...unknown[]] | undefined,
  ts: number,
  p: number,
  cfg: ContextGrowthPolicy,
): {
  fields: [number, number, number, number[]];
  linear: { mean: number; spread: number } | null;
  fresh: boolean;
} {
  if (prev === undefined || (cfg.resetAfterIdleMs !== 0 && ts - prev[0] > cfg.resetAfterIdleMs)) {
    return { fields: [ts, p, 0, []], linear: null, fresh: true };
  }
  const delta = p - prev[1];
  let increments: number[] = [];
  if (delta >= cfg.minIncrementTokens) {
    const kept = prev[3];
    const from = max(0, kept.length - cfg.window + 1);
    increments = kept.slice(from);
    increments.push(delta);
  }
  const linear = linearIncrements(increments, cfg);
  return {
    fields: [max(prev[0], ts), p, linear ? min(prev[2] + 1, MAX_COUNT) : 0, increments],
    linear,
    fresh: increments.length === 0,
  };
}

/**
 * Key-and-model streams kept (the most recently active): each holds a window of increments, so the table is
 * kept small enough that every policy valid before it existed still fits the 64 KB state bound.
 */
export const KEY_GROWTH_STREAMS = 16;

function keyStreamCapacity(policy: { limits: { maxKeys: number } }): number {
  return min(policy.limits.maxKeys, KEY_GROWTH_STREAMS);
}

/** The key-and-model stream of an event (its own hash space: seed 6). */
function keyStreamOf(keyId: string, model: string): number {
  return hash53(`${keyId}\u0000${model}`, 6);
}

/** The spread test on the last `window` increments; returns [mean, spread] when linear, else null. */
export function linearIncrements(
  increments: readonly number[],
  cfg: Pick<ContextGrowthPolicy, 'window' | 'maxSpreadRatio' | 'spreadToleranceTokens'>,
): { mean: number; spread: number } | null {
  if (increments.length < cfg.window) return null;
  const from = increments.length - cfg.window;
  let lo = increments[from] as number;
  let hi = lo;
  let sum = 0;
  for (let i = from; i < increments.length; i++) {
    const d = increments[i] as number;
    if (d < lo) lo = d;
    if (d > hi) hi = d;
    sum += d;
  }
  const mean = sum / cfg.window;
  const spread = hi - lo;
  return spread <= max(cfg.maxSpreadRatio * mean, cfg.spreadToleranceTokens) ? { mean, spread } : null;
}

export const contextGrowthLayer: GuardrailLayer<ContextGrowthState, ContextGrowthPolicy, 'contextGrowth'> = {
  id: 'contextGrowth',
  ordinal: 3,
  name: 'Smart Loop Detector',
  description:
    'Prompt tokens of a session growing by a near-constant increment: the last `window` increments (default 6) ' +
    'all ≥ `minIncrementTokens` (50) with (max − min) ≤ `maxSpreadRatio` (10 %) of their mean.',
  triggerTypes: ['context_growth_linear'],
  defaults: contextGrowthPolicySchema.parse({}),
  tracksWhenDisabled: false,
  policyOf: (policy) => policy.contextGrowth,
  initialState: () => ({ sessions: emptyTable() }),

  step(state, event, policy) {
    const cfg = policy.contextGrowth;
    // A call that reports no prompt tokens (a failed call) says nothing about the context.
    if (event.promptTokens === 0) return { state, verdicts: NO_VERDICTS };
    const sessions = state.sessions;
    const index = indexOfId(sessions, event.streamHash);
    const prev = index >= 0 ? sessions.entries[index] : undefined;
    const p = event.promptTokens;
    const own = grow(prev, event.ts, p, cfg);
    const entry: ContextGrowthEntry = [...own.fields, ownerTag(event.keyHash)];
    const linear = own.linear;

    const keyStreams = state.keyStreams ?? emptyTable<KeyGrowthEntry>();
    const keyStream = keyStreamOf(event.event.keyId, event.event.model);
    const keyIndex = indexOfId(keyStreams, keyStream);
    const kPrev = keyIndex >= 0 ? keyStreams.entries[keyIndex] : undefined;
    const across = grow(kPrev, event.ts, p, cfg);
    const switches =
      across.fresh || kPrev === undefined
        ? 0
        : min(kPrev[5] + (kPrev[4] === event.streamHash ? 0 : 1), MAX_COUNT);
    const keyEntry: KeyGrowthEntry = [...across.fields, event.streamHash, switches];
    const next: ContextGrowthState = {
      sessions: putEntryFair(
        sessions,
        index,
        event.streamHash,
        entry,
        policy.limits.maxSessions,
        lastSeen,
        ownerOf,
      ),
      keyStreams: putEntry(keyStreams, keyIndex, keyStream, keyEntry, keyStreamCapacity(policy), lastSeen),
    };
    if (!cfg.enabled) return { state: next, verdicts: NO_VERDICTS };
    if (linear === null) {
      // The session shows no run: a run across the key's sessions stops the key.
      if (across.linear === null || switches === 0) return { state: next, verdicts: NO_VERDICTS };
      const steps = cfg.window + keyEntry[2] - 1;
      const acrossSessions: Verdict = {
        layer: 'contextGrowth',
        triggerType: 'context_growth_linear',
        observedValue: steps,
        thresholdValue: cfg.window,
        mode: cfg.mode,
        action: ACTION_BY_MODE[cfg.mode],
        scope: cfg.scope === 'organization' ? 'organization' : 'key',
        keyId: event.event.keyId,
        seq: event.event.seq,
        message:
          `Context grew linearly for ${steps} consecutive calls across ${switches + 1} or more sessions ` +
          `(key ${event.event.keyId}, model ${event.event.model}): +${round(across.linear.mean)} prompt tokens ` +
          `per call, now ${p} tokens`,
      };
      return { state: next, verdicts: [acrossSessions] };
    }
    const steps = cfg.window + entry[2] - 1;
    const who =
      event.sessionId !== undefined
        ? `session ${event.sessionId} on key ${event.event.keyId}`
        : `key ${event.event.keyId}, model ${event.event.model} (no session id)`;
    const verdict: Verdict = {
      layer: 'contextGrowth',
      triggerType: 'context_growth_linear',
      observedValue: steps,
      thresholdValue: cfg.window,
      mode: cfg.mode,
      action: ACTION_BY_MODE[cfg.mode],
      scope: cfg.scope,
      keyId: event.event.keyId,
      ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}),
      seq: event.event.seq,
      message:
        `Context grew linearly for ${steps} consecutive calls (${who}): +${round(linear.mean)} prompt tokens ` +
        `per call, spread ${linear.spread} tokens (${((100 * linear.spread) / linear.mean).toFixed(1)} %), now ${p} tokens`,
    };
    return { state: next, verdicts: [verdict] };
  },

  maxStateBytes: (policy) =>
    '{"sessions":,"keyStreams":}'.length +
    tableMaxBytes(
      policy.limits.maxSessions,
      JSON.stringify([
        MAX_TIMESTAMP_MS,
        MAX_TOKENS,
        MAX_COUNT,
        new Array<number>(policy.contextGrowth.window).fill(MAX_TOKENS),
        OWNER_TAGS - 1,
      ]).length,
    ) +
    tableMaxBytes(
      keyStreamCapacity(policy),
      JSON.stringify([
        MAX_TIMESTAMP_MS,
        MAX_TOKENS,
        MAX_COUNT,
        new Array<number>(policy.contextGrowth.window).fill(MAX_TOKENS),
        2 ** 53,
        MAX_COUNT,
      ]).length,
    ),
};
