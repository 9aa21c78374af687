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
import { durationMsSchema, guardrailModeSchema, nanosSchema } from './policy-fields';
import { ACTION_BY_MODE } from './types';
import type { GuardrailLayer, Verdict } from './types';

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

export const premiumConcentrationLayer: GuardrailLayer<PremiumConcentrationState, PremiumConcentrationPolicy> = {
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
    const bucket = Math.floor(event.ts / cfg.bucketMs);
    const n = state.buckets.length;
    const newest = Math.max(bucket, n > 0 ? (state.buckets[n - 1] as number) : bucket);
    const oldest = newest - cfg.windowMs / cfg.bucketMs + 1;
    let start = 0;
    while (start < n && (state.buckets[start] as number) < oldest) start++;
    let next: PremiumConcentrationState = state;
    if (event.costNanos > 0 && bucket >= oldest) {
      const buckets = state.buckets.slice(start);
      const totalNanos = state.totalNanos.slice(start);
      const premiumNanos = state.premiumNanos.slice(start);
      let i = buckets.length - 1;
      while (i >= 0 && (buckets[i] as number) > bucket) i--;
      if (i < 0 || buckets[i] !== bucket) {
        i++;
        buckets.splice(i, 0, bucket);
        totalNanos.splice(i, 0, 0);
        premiumNanos.splice(i, 0, 0);
      }
      totalNanos[i] = addNanos(totalNanos[i] as number, event.costNanos);
      if (event.premium) premiumNanos[i] = addNanos(premiumNanos[i] as number, event.costNanos);
      next = { buckets, totalNanos, premiumNanos };
    } else if (start > 0) {
      next = {
        buckets: state.buckets.slice(start),
        totalNanos: state.totalNanos.slice(start),
        premiumNanos: state.premiumNanos.slice(start),
      };
    }
    if (!cfg.enabled) return { state: next, verdicts: [] };
    let total = 0;
    let premium = 0;
    for (let i = 0; i < next.buckets.length; i++) {
      total = addNanos(total, next.totalNanos[i] as number);
      premium = addNanos(premium, next.premiumNanos[i] as number);
    }
    if (total < cfg.minSpendNanos || total === 0 || premium <= cfg.maxShare * total) {
      return { state: next, verdicts: [] };
    }
    const share = premium / total;
    const minutes = Math.round(cfg.windowMs / 60_000);
    const verdict: Verdict = {
      layer: 'premiumConcentration',
      triggerType: 'premium_concentration',
      observedValue: Math.round(share * 10_000) / 10_000,
      thresholdValue: cfg.maxShare,
      mode: cfg.mode,
      action: ACTION_BY_MODE[cfg.mode],
      scope: 'organization',
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
      '{"buckets":[],"totalNanos":[],"premiumNanos":[]}'.length + n * (bucketDigits + 1) + 2 * n * (jsonDigits(MAX_NANOS) + 1)
    );
  },
};
