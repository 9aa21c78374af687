/**
 * The effective guardrail policy of an organization: its stored layer policy, with layer 1's caps taken
 * from its budget (the budget is edited in USD on the Budgets page; the engine counts nano-USD).
 */
import { type GuardrailPolicy, parseGuardrailPolicy } from './policy';
import { usdToNanos } from './money';
import type { GuardrailMode } from './types';

/** The budget fields the engine reads (core/schemas budget configuration, spec 1.4). */
export interface BudgetCaps {
  dailyLimitUsd?: number | null;
  monthlyLimitUsd?: number | null;
  dailySoftLimitUsd?: number | null;
  monthlySoftLimitUsd?: number | null;
  action?: 'block' | 'warn' | 'log' | null;
  /** Batch, fine-tuning and background calls allowed under a hard cap (lambdas/relay/deferred-billing.ts). */
  allowDeferredBilling?: boolean;
}

/**
 * The hard caps' mode: `block` (the default) leaves it to the policy's `financialLimits.hardCapMode`
 * (`hard_stop` unless an admin chose `throttle` or `alert`); `warn` and `log` only record the breach
 * (warn also notifies). Either setting can relax the cap, neither can override the other's relaxing:
 * before, the budget's action replaced the policy's mode, so `alert` was stored, shown and ignored.
 */
function hardCapMode(action: BudgetCaps['action'], policyMode: GuardrailMode): GuardrailMode {
  return action === 'warn' || action === 'log' ? 'alert' : policyMode;
}

function nanos(usd: number | null | undefined): number | null {
  return typeof usd === 'number' && Number.isFinite(usd) && usd >= 0 ? usdToNanos(usd) : null;
}

/**
 * Merges budget caps into a stored policy. An invalid stored policy falls back to the defaults
 * (fail open: a bad config item must not stop the consumer), with the budget still applied.
 */
export function effectivePolicy(storedPolicy: unknown, budget: BudgetCaps | undefined): GuardrailPolicy {
  let base: GuardrailPolicy;
  try {
    base = parseGuardrailPolicy(storedPolicy ?? {});
  } catch {
    base = parseGuardrailPolicy({});
  }
  if (!budget) return base;
  return {
    ...base,
    financialLimits: {
      ...base.financialLimits,
      dailyHardCapNanos: nanos(budget.dailyLimitUsd),
      monthlyHardCapNanos: nanos(budget.monthlyLimitUsd),
      dailySoftCapNanos: nanos(budget.dailySoftLimitUsd),
      monthlySoftCapNanos: nanos(budget.monthlySoftLimitUsd),
      hardCapMode: hardCapMode(budget.action, base.financialLimits.hardCapMode),
    },
  };
}
