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
 */
import { z } from 'zod';
import { emptyTable, indexOfId, putEntry } from './bounded-table';
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
];

export interface ContextGrowthState {
  sessions: BoundedTable<ContextGrowthEntry>;
}

const lastSeen = (entry: ContextGrowthEntry): number => entry[0];

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

export const contextGrowthLayer: GuardrailLayer<ContextGrowthState, ContextGrowthPolicy> = {
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
    let entry: ContextGrowthEntry;
    let linear: { mean: number; spread: number } | null = null;
    if (prev === undefined || (cfg.resetAfterIdleMs !== 0 && event.ts - prev[0] > cfg.resetAfterIdleMs)) {
      entry = [event.ts, p, 0, []];
    } else {
      const delta = p - prev[1];
      let increments: number[] = [];
      if (delta >= cfg.minIncrementTokens) {
        const kept = prev[3];
        const from = max(0, kept.length - cfg.window + 1);
        increments = kept.slice(from);
        increments.push(delta);
      }
      linear = linearIncrements(increments, cfg);
      entry = [max(prev[0], event.ts), p, linear ? min(prev[2] + 1, MAX_COUNT) : 0, increments];
    }
    const next = {
      sessions: putEntry(sessions, index, event.streamHash, entry, policy.limits.maxSessions, lastSeen),
    };
    if (!cfg.enabled || linear === null) return { state: next, verdicts: NO_VERDICTS };
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
    '{"sessions":}'.length +
    tableMaxBytes(
      policy.limits.maxSessions,
      JSON.stringify([
        MAX_TIMESTAMP_MS,
        MAX_TOKENS,
        MAX_COUNT,
        new Array<number>(policy.contextGrowth.window).fill(MAX_TOKENS),
      ]).length,
    ),
};
