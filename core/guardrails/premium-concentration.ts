/**
 * Layer 5 — Premium Model Concentration (`premium_concentration`). More than `maxShare`
 * (default 90 %) of an organization's spend going to premium models over a trailing window
 * (default 1 h) indicates prompt injection, hijacked routing or a misconfigured model
 * selector.
 *
 * Rule: spend is bucketed by `bucketMs` (default 1 minute) of event time; the window is the
 * `windowMs / bucketMs` buckets ending with the newest bucket seen (at most 60 by default, so
 * state is bounded). The layer trips when, over the window,
 *   total ≥ `minSpendNanos` (default $5) AND premium > `maxShare` × total.
 * The floor keeps one expensive call (or a new organization trying a flagship model) from
 * killing anything: below $5 an hour, concentration is not evaluated. While the condition
 * holds every event re-emits the verdict; it clears as premium spend ages out of the window.
 * Late events older than the window do not count.
 */
import { z } from 'zod';
import { addNanos, formatUsd } from './money';
import { MAX_NANOS, MAX_TIMESTAMP_MS, jsonDigits } from './limits';
import { durationMsSchema, guardrailModeSchema, guardrailScopeSchema, nanosSchema } from './policy-fields';
import { ACTION_BY_MODE, NO_VERDICTS } from './types';
import type { GuardrailLayer, Verdict } from './types';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { floor, max, round } = Math;

export const premiumConcentrationPolicySchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Trip when the premium share of spend is strictly above this (spec: 90 %). */
    maxShare: z.number().min(0).max(1).default(0.9),
    /** Trailing window. */
    windowMs: durationMsSchema.min(60_000).max(86_400_000).default(3_600_000),
    /** Bucket width; windowMs / bucketMs buckets (at most 240) are kept. */
    bucketMs: durationMsSchema.min(1000).default(60_000),
    /** Minimum spend in the window before concentration is evaluated ($5). */
    minSpendNanos: nanosSchema.default(5_000_000_000),
    mode: guardrailModeSchema.default('hard_stop'),
    /** What the flag stops: organization, key or session (decision 13). */
    scope: guardrailScopeSchema.default('organization'),
  })
  .refine((p) => p.windowMs % p.bucketMs === 0 && p.windowMs / p.bucketMs <= 240, {
    message: 'windowMs must be a multiple of bucketMs, with at most 240 buckets',
  });
export type PremiumConcentrationPolicy = z.infer<typeof premiumConcentrationPolicySchema>;

/** Non-empty buckets of the window, ascending: bucket index (ts / bucketMs), total and premium spend. */
export interface PremiumConcentrationState {
  buckets: readonly number[];
  totalNanos: readonly number[];
  premiumNanos: readonly number[];
}

export const premiumConcentrationLayer: GuardrailLayer<
  PremiumConcentrationState,
  PremiumConcentrationPolicy,
  'premiumConcentration'
> = {
  id: 'premiumConcentration',
  ordinal: 5,
  name: 'Premium Model Concentration',
  description:
    'More than `maxShare` (90 %) of spend on premium models over a trailing `windowMs` (1 h, minute buckets), ' +
    'evaluated only once the window holds at least `minSpendNanos` ($5).',
  triggerTypes: ['premium_concentration'],
  defaults: premiumConcentrationPolicySchema.parse({}),
  tracksWhenDisabled: false,
  policyOf: (policy) => policy.premiumConcentration,
  initialState: () => ({ buckets: [], totalNanos: [], premiumNanos: [] }),

  step(state, event, policy) {
    const cfg = policy.premiumConcentration;
    const bucket = floor(event.ts / cfg.bucketMs);
    const n = state.buckets.length;
    const newest = max(bucket, n > 0 ? (state.buckets[n - 1] as number) : bucket);
    const oldest = newest - cfg.windowMs / cfg.bucketMs + 1;
    let start = 0;
    while (start < n && (state.buckets[start] as number) < oldest) start++;
    // Copy-on-write: arrays are shared with the previous state until one of them changes.
    let buckets = state.buckets;
    let totalNanos = state.totalNanos;
    let premiumNanos = state.premiumNanos;
    if (start > 0) {
      buckets = buckets.slice(start);
      totalNanos = totalNanos.slice(start);
      premiumNanos = premiumNanos.slice(start);
    }
    if (event.costNanos > 0 && bucket >= oldest) {
      let i = buckets.length - 1;
      while (i >= 0 && (buckets[i] as number) > bucket) i--;
      if (i >= 0 && buckets[i] === bucket) {
        const totals = start > 0 ? (totalNanos as number[]) : totalNanos.slice();
        totals[i] = addNanos(totals[i] as number, event.costNanos);
        totalNanos = totals;
        if (event.premium) {
          const premiums = start > 0 ? (premiumNanos as number[]) : premiumNanos.slice();
          premiums[i] = addNanos(premiums[i] as number, event.costNanos);
          premiumNanos = premiums;
        }
      } else {
        i++;
        const b = buckets.slice();
        const t = totalNanos.slice();
        const p = premiumNanos.slice();
        b.splice(i, 0, bucket);
        t.splice(i, 0, event.costNanos);
        p.splice(i, 0, event.premium ? event.costNanos : 0);
        buckets = b;
        totalNanos = t;
        premiumNanos = p;
      }
    }
    const next: PremiumConcentrationState =
      buckets === state.buckets && totalNanos === state.totalNanos && premiumNanos === state.premiumNanos
        ? state
        : { buckets, totalNanos, premiumNanos };
    if (!cfg.enabled) return { state: next, verdicts: NO_VERDICTS };
    let total = 0;
    let premium = 0;
    for (let i = 0; i < next.buckets.length; i++) {
      total = addNanos(total, next.totalNanos[i] as number);
      premium = addNanos(premium, next.premiumNanos[i] as number);
    }
    if (total < cfg.minSpendNanos || total === 0 || premium <= cfg.maxShare * total) {
      return { state: next, verdicts: NO_VERDICTS };
    }
    const share = premium / total;
    const minutes = round(cfg.windowMs / 60_000);
    const verdict: Verdict = {
      layer: 'premiumConcentration',
      triggerType: 'premium_concentration',
      observedValue: round(share * 10_000) / 10_000,
      thresholdValue: cfg.maxShare,
      mode: cfg.mode,
      action: ACTION_BY_MODE[cfg.mode],
      scope: cfg.scope,
      keyId: event.event.keyId,
      ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}),
      seq: event.event.seq,
      message:
        `${(share * 100).toFixed(1)} % of ${formatUsd(total)} spent in the last ${minutes} min went to premium models ` +
        `(limit ${(cfg.maxShare * 100).toFixed(0)} % once ${formatUsd(cfg.minSpendNanos)} is spent)`,
    };
    return { state: next, verdicts: [verdict] };
  },

  maxStateBytes: (policy) => {
    const cfg = policy.premiumConcentration;
    const n = cfg.windowMs / cfg.bucketMs;
    const bucketDigits = jsonDigits(MAX_TIMESTAMP_MS / cfg.bucketMs);
    return (
      '{"buckets":[],"totalNanos":[],"premiumNanos":[]}'.length +
      n * (bucketDigits + 1) +
      2 * n * (jsonDigits(MAX_NANOS) + 1)
    );
  },
};
