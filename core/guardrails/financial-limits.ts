/**
 * Layer 1 — Financial Limits. Daily and monthly soft and hard caps on an organization's
 * spend, in integer nano-USD, over UTC calendar periods.
 *
 * Rule:
 * - Spend is attributed to the UTC day and month of the event's time. An event of a later
 *   day (month) starts a new period; a late event of an already-closed day still counts
 *   toward its month when that month is the current one, and is otherwise ignored.
 * - Soft cap: the first event that brings the period's spend to ≥ the soft cap emits one
 *   warning (`mode` default `alert`, action WARN) — once per period.
 * - Hard cap: while the current period's spend is ≥ the hard cap, EVERY event emits the
 *   hard-stop verdict (default `hard_stop`, action SUSPENDED). The consumer rewrites the flag
 *   each time, so after a flag expires at most the calls already in flight leak before the
 *   next event re-trips it. The block lasts until the period resets or the cap is raised;
 *   `financialBlockState` gives the flag writer the TTL: min(flag TTL, time to reset).
 */
import { z } from 'zod';
import { addNanos, formatUsd, nanosToUsd } from './money';
import { MAX_NANOS, MAX_TIMESTAMP_MS } from './limits';
import { guardrailModeSchema, guardrailScopeSchema, nanosSchema } from './policy-fields';
import { utcDayEnd, utcDayIndex, utcMonthEndOfIndex, utcMonthIndex, MS_PER_DAY } from './periods';
import { ACTION_BY_MODE, NO_VERDICTS } from './types';
import type {
  GuardrailAction,
  GuardrailLayer,
  GuardrailMode,
  LayerEvent,
  TriggerType,
  Verdict,
  VerdictScope,
} from './types';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { max, min } = Math;

export const financialLimitsPolicySchema = z.object({
  enabled: z.boolean().default(true),
  /** Warn once per UTC day when spend reaches this; null = no daily soft cap. */
  dailySoftCapNanos: nanosSchema.nullable().default(null),
  /** Suspend when today's spend reaches this; null = no daily hard cap. */
  dailyHardCapNanos: nanosSchema.nullable().default(null),
  /** Warn once per UTC month when spend reaches this; null = none. */
  monthlySoftCapNanos: nanosSchema.nullable().default(null),
  /** Suspend when this month's spend reaches this; null = none. */
  monthlyHardCapNanos: nanosSchema.nullable().default(null),
  softCapMode: guardrailModeSchema.default('alert'),
  hardCapMode: guardrailModeSchema.default('hard_stop'),
  /** What a hard-cap flag stops: organization, key or session (decision 13). */
  scope: guardrailScopeSchema.default('organization'),
});
export type FinancialLimitsPolicy = z.infer<typeof financialLimitsPolicySchema>;

/** Spend of the current UTC day and month (the latest seen), and whether their soft caps have warned. */
export interface FinancialLimitsState {
  /** UTC day index (days since epoch) of `daySpendNanos`; -1 before the first event. */
  day: number;
  /** UTC month index (`year * 12 + month`) of `monthSpendNanos`; -1 before the first event. */
  month: number;
  daySpendNanos: number;
  monthSpendNanos: number;
  daySoftAlerted: boolean;
  monthSoftAlerted: boolean;
}

/** Flag lifetimes set by the enforcement endpoint (spec 3 and 4.2). */
export const FLAG_TTL_MS: Readonly<Record<Exclude<GuardrailAction, 'WARN'>, number>> = Object.freeze({
  SUSPENDED: 2 * 3_600_000,
  THROTTLED: 30 * 60_000,
});

type Period = 'daily' | 'monthly';

function capVerdict(
  period: Period,
  kind: 'soft' | 'hard',
  spend: number,
  cap: number,
  mode: GuardrailMode,
  scope: VerdictScope,
  event: LayerEvent,
): Verdict {
  const triggerType: TriggerType = `budget_${period}_${kind}`;
  const when = period === 'daily' ? 'today (UTC)' : 'this month (UTC)';
  return {
    layer: 'financialLimits',
    triggerType,
    observedValue: nanosToUsd(spend),
    thresholdValue: nanosToUsd(cap),
    mode,
    action: ACTION_BY_MODE[mode],
    scope,
    keyId: event.event.keyId,
    ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}),
    seq: event.event.seq,
    message: `${period === 'daily' ? 'Daily' : 'Monthly'} ${kind} cap reached: ${formatUsd(spend)} spent ${when}, cap ${formatUsd(cap)}`,
  };
}

export const financialLimitsLayer: GuardrailLayer<
  FinancialLimitsState,
  FinancialLimitsPolicy,
  'financialLimits'
> = {
  id: 'financialLimits',
  ordinal: 1,
  name: 'Financial Limits',
  description:
    'Daily and monthly soft and hard caps on organization spend (UTC periods, integer nano-USD). ' +
    'A soft cap warns once per period; while spend is at or above a hard cap every event re-emits the hard stop.',
  triggerTypes: ['budget_daily_soft', 'budget_daily_hard', 'budget_monthly_soft', 'budget_monthly_hard'],
  defaults: financialLimitsPolicySchema.parse({}),
  tracksWhenDisabled: true,
  policyOf: (policy) => policy.financialLimits,
  initialState: () => ({
    day: -1,
    month: -1,
    daySpendNanos: 0,
    monthSpendNanos: 0,
    daySoftAlerted: false,
    monthSoftAlerted: false,
  }),

  step(state, event, policy) {
    const cfg = policy.financialLimits;
    const day = utcDayIndex(event.ts);
    let { month, daySpendNanos, monthSpendNanos, daySoftAlerted, monthSoftAlerted } = state;
    let currentDay = state.day;
    let countsForMonth = true;
    if (day > currentDay) {
      const eventMonth = utcMonthIndex(event.ts);
      if (eventMonth !== month) {
        month = eventMonth;
        monthSpendNanos = 0;
        monthSoftAlerted = false;
      }
      currentDay = day;
      daySpendNanos = 0;
      daySoftAlerted = false;
    } else if (day < currentDay) {
      countsForMonth = utcMonthIndex(event.ts) === month;
    }
    if (day === currentDay) daySpendNanos = addNanos(daySpendNanos, event.costNanos);
    if (countsForMonth) monthSpendNanos = addNanos(monthSpendNanos, event.costNanos);

    const verdicts: Verdict[] = [];
    if (
      cfg.enabled &&
      (cfg.dailyHardCapNanos ??
        cfg.dailySoftCapNanos ??
        cfg.monthlyHardCapNanos ??
        cfg.monthlySoftCapNanos) !== null
    ) {
      if (cfg.dailyHardCapNanos !== null && daySpendNanos >= cfg.dailyHardCapNanos) {
        verdicts.push(
          capVerdict(
            'daily',
            'hard',
            daySpendNanos,
            cfg.dailyHardCapNanos,
            cfg.hardCapMode,
            cfg.scope,
            event,
          ),
        );
      }
      if (cfg.monthlyHardCapNanos !== null && monthSpendNanos >= cfg.monthlyHardCapNanos) {
        verdicts.push(
          capVerdict(
            'monthly',
            'hard',
            monthSpendNanos,
            cfg.monthlyHardCapNanos,
            cfg.hardCapMode,
            cfg.scope,
            event,
          ),
        );
      }
      if (!daySoftAlerted && cfg.dailySoftCapNanos !== null && daySpendNanos >= cfg.dailySoftCapNanos) {
        daySoftAlerted = true;
        verdicts.push(
          capVerdict(
            'daily',
            'soft',
            daySpendNanos,
            cfg.dailySoftCapNanos,
            cfg.softCapMode,
            cfg.scope,
            event,
          ),
        );
      }
      if (
        !monthSoftAlerted &&
        cfg.monthlySoftCapNanos !== null &&
        monthSpendNanos >= cfg.monthlySoftCapNanos
      ) {
        monthSoftAlerted = true;
        verdicts.push(
          capVerdict(
            'monthly',
            'soft',
            monthSpendNanos,
            cfg.monthlySoftCapNanos,
            cfg.softCapMode,
            cfg.scope,
            event,
          ),
        );
      }
    }
    return {
      state: { day: currentDay, month, daySpendNanos, monthSpendNanos, daySoftAlerted, monthSoftAlerted },
      verdicts: verdicts.length > 0 ? verdicts : NO_VERDICTS,
    };
  },

  maxStateBytes: () =>
    JSON.stringify({
      day: utcDayIndex(MAX_TIMESTAMP_MS),
      month: utcMonthIndex(MAX_TIMESTAMP_MS),
      daySpendNanos: MAX_NANOS,
      monthSpendNanos: MAX_NANOS,
      daySoftAlerted: false,
      monthSoftAlerted: false,
    }).length,
};

/** Whether an organization is blocked by a hard cap at `now`, and for how long its flag should live. */
export interface FinancialBlockState {
  /** True while a hard cap whose mode is not `alert` is reached in the current period. */
  blocked: boolean;
  /** Action for the flag when blocked. */
  action: 'SUSPENDED' | 'THROTTLED' | null;
  /** The hard caps currently reached. */
  triggers: ('budget_daily_hard' | 'budget_monthly_hard')[];
  /** Spend of the UTC day / month containing `now` (0 when the state's period is over). */
  daySpendNanos: number;
  monthSpendNanos: number;
  /** When the block lifts by itself (end of the latest blocking period), ms; null if not blocked. */
  resetsAt: number | null;
  /** TTL for the flag: min(action's flag TTL, resetsAt − now); null if not blocked. */
  flagTtlMs: number | null;
}

/**
 * Pure read of layer 1's block at `now`, for the enforcement consumer that writes the flag.
 * A hard cap blocks until its period resets (UTC midnight / first of the month) or the cap is
 * raised; the flag is written with TTL = min(2 h, time to reset) and rewritten by every event
 * that arrives while the block holds.
 *
 * @example
 * // $120 spent today against a $100 daily hard cap, 30 min before UTC midnight:
 * financialBlockState(state, policy, midnight - 1_800_000)
 * // → { blocked: true, action: 'SUSPENDED', flagTtlMs: 1_800_000, resetsAt: midnight, … }
 */
export function financialBlockState(
  state: { layers: { financialLimits: FinancialLimitsState } },
  policy: { readonly financialLimits: FinancialLimitsPolicy },
  now: number,
): FinancialBlockState {
  const s = state.layers.financialLimits;
  const cfg = policy.financialLimits;
  const today = utcDayIndex(now);
  const daySpendNanos = s.day >= today ? s.daySpendNanos : 0;
  const monthSpendNanos = s.month >= utcMonthIndex(now) ? s.monthSpendNanos : 0;
  const triggers: FinancialBlockState['triggers'] = [];
  let resetsAt = -Infinity;
  if (cfg.dailyHardCapNanos !== null && daySpendNanos >= cfg.dailyHardCapNanos) {
    triggers.push('budget_daily_hard');
    resetsAt = max(resetsAt, s.day >= today ? (s.day + 1) * MS_PER_DAY : utcDayEnd(now));
  }
  if (cfg.monthlyHardCapNanos !== null && monthSpendNanos >= cfg.monthlyHardCapNanos) {
    triggers.push('budget_monthly_hard');
    resetsAt = max(resetsAt, utcMonthEndOfIndex(max(s.month, utcMonthIndex(now))));
  }
  const action = ACTION_BY_MODE[cfg.hardCapMode];
  if (!cfg.enabled || triggers.length === 0 || action === 'WARN') {
    return {
      blocked: false,
      action: null,
      triggers,
      daySpendNanos,
      monthSpendNanos,
      resetsAt: null,
      flagTtlMs: null,
    };
  }
  return {
    blocked: true,
    action,
    triggers,
    daySpendNanos,
    monthSpendNanos,
    resetsAt,
    flagTtlMs: max(1, min(FLAG_TTL_MS[action], resetsAt - now)),
  };
}

/**
 * Layer 1's spend after an admin's correction of settled spend (`POST /v1/budget/settled/correct`, e.g.
 * forged telemetry taken back): the signed amount applies to the day and month layer 1 is counting if
 * they are the current ones (a correction of an earlier period has nothing to undo here), never below
 * zero. Without it, layer 1 kept the forged spend and suspended the organization again on its next call.
 *
 * @example correctedFinancialSpend({ day: 20414, month: 670, daySpendNanos: 5e9, … }, -4e9, now)
 * // { …, daySpendNanos: 1e9, monthSpendNanos: … − 4e9 }
 */
export function correctedFinancialSpend(
  state: FinancialLimitsState,
  deltaNanos: number,
  nowMs: number,
): FinancialLimitsState {
  const apply = (spend: number) => Math.min(MAX_NANOS, Math.max(0, spend + deltaNanos));
  return {
    ...state,
    daySpendNanos: state.day === utcDayIndex(nowMs) ? apply(state.daySpendNanos) : state.daySpendNanos,
    monthSpendNanos:
      state.month === utcMonthIndex(nowMs) ? apply(state.monthSpendNanos) : state.monthSpendNanos,
  };
}
