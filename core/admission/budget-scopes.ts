/**
 * Which budgets a call is admitted against. Each scope is one budget item (one lease); a call must fit in
 * every scope that applies. Today the organization is the only scope (its daily and monthly `block` caps,
 * spec 1.4); a per-key or per-project cap is one more entry here and one more item kind in the store.
 */
import { effectivePolicy, type BudgetCaps } from '../guardrails/org-policy';
import type { CapsNanos } from '../leases/lease-state';

/** A budget a call draws on: its kind and the id that names its item. */
export interface BudgetScope {
  readonly kind: 'organization';
  /** Organization id (the item's partition is always the organization: tenant isolation). */
  readonly orgId: string;
}

/** The scopes of a call by an organization's key. */
export function budgetScopesFor(orgId: string): readonly BudgetScope[] {
  return [{ kind: 'organization', orgId }];
}

/** A stable text id of a scope (in-memory holder maps, metrics). */
export function scopeId(scope: BudgetScope): string {
  return `org:${scope.orgId}`;
}

export const NO_CAPS: CapsNanos = Object.freeze({ day: null, month: null });

/**
 * The hard caps admission enforces for an organization's stored config: the daily and monthly limits when
 * the action is `block` (spec 1.4), layer 1 is on and its `hardCapMode` is `hard_stop`; none otherwise
 * (`warn` and `log` never refuse, nor does a policy whose hard caps only alert or throttle).
 *
 * @example hardCapsOf({ budget: { dailyLimitUsd: 0.3, action: 'block' }, policy: {} }) // { day: 300000000, month: null }
 */
export function hardCapsOf(config: { budget: unknown; policy: unknown } | undefined): CapsNanos {
  if (config === undefined) return NO_CAPS;
  const fl = effectivePolicy(config.policy, (config.budget ?? {}) as BudgetCaps).financialLimits;
  if (!fl.enabled || fl.hardCapMode !== 'hard_stop') return NO_CAPS;
  return { day: fl.dailyHardCapNanos, month: fl.monthlyHardCapNanos };
}
