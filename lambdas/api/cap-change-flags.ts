/**
 * The budget flags a cap change settles at once (docs/guardrails.md: "the block ends when the period
 * resets or the cap is raised"). Layer 1 sets the organization's `budget_daily_hard` /
 * `budget_monthly_hard` flag when spend reaches a hard cap, and judges again only on the pipeline's next
 * event. So a change of the budget or policy judges the stored layer-1 spend against the new policy
 * before it answers, each change audited:
 * - a cap raised (or removed, or its mode moved to alert) above the spend that reached it: the flags it
 *   no longer supports are cleared (`flag.cleared`). While such a flag stands no call gets through to
 *   make an event, so without this the block stayed up to its 2 h.
 * - a cap lowered to or below the spend already counted: the flag is set as the pipeline would set it
 *   (`flag.set`, with a trip). Admission already refuses the calls (the caps reach every relay within
 *   0.6 s), but no refused call makes an event: without this the flag came only if an event of a call
 *   made before the change happened to be judged after it, and `GET /v1/flags` showed nothing otherwise.
 * Flags of other triggers are left alone.
 */
import { financialBlockState, type FinancialBlockState } from '../../core/guardrails';
import { effectivePolicy, type BudgetCaps } from '../../core/guardrails/org-policy';
import { reviveOrgState } from '../../core/guardrails/state';
import type { GuardrailPolicy } from '../../core/guardrails/policy';
import { nanosToUsd } from '../../core/pricing/money';
import { recordChange } from '../shared/audit';
import { clearFlags, enforcementDeps, pushFlag } from '../shared/enforcement';
import type { Principal } from '../shared/principal';
import type { Services } from '../shared/services';

const BUDGET_TRIGGERS: ReadonlySet<string> = new Set(['budget_daily_hard', 'budget_monthly_hard']);

/** What a cap change did to the organization's budget flags, by trigger. */
export interface SettledBudgetFlags {
  readonly cleared: string[];
  readonly set: string[];
}

/** Settles at most this many times per change; each retry means another change landed meanwhile. */
const MAX_SETTLES = 5;

/**
 * Clears the budget flags the organization's stored budget and policy no longer support, and sets those
 * they now call for. Judged against the settings as stored, not as this request wrote them: two
 * concurrent changes would otherwise each settle against their own, and the slower one could leave a
 * flag the winning settings do not support (an acceptance walk saw it twice in about 100 rounds of concurrent PUTs). Settled
 * again when the settings changed while settling, so the last settle to finish matches the settings.
 */
export async function settleBudgetFlags(
  services: Services,
  principal: Principal,
): Promise<SettledBudgetFlags> {
  const settled: SettledBudgetFlags = { cleared: [], set: [] };
  for (let i = 0; i < MAX_SETTLES; i++) {
    const config = await services.config.get(principal.orgId);
    const once = await settleAgainst(services, principal, { budget: config?.budget, policy: config?.policy });
    settled.cleared.push(...once.cleared);
    settled.set.push(...once.set);
    if (((await services.config.get(principal.orgId))?.rev ?? 0) === (config?.rev ?? 0)) break;
  }
  return settled;
}

async function settleAgainst(
  services: Services,
  principal: Principal,
  config: { budget: unknown; policy: unknown },
): Promise<SettledBudgetFlags> {
  const orgId = principal.orgId;
  const now = services.now();
  const orgFlags = (await services.flags.listByOrg(orgId, now)).filter((f) => f.scope === 'organization');
  const policy = effectivePolicy(config.policy, config.budget as BudgetCaps);
  const state = reviveOrgState((await services.guardrailState.get(orgId)).state);
  const block = financialBlockState(state, policy, now);
  const holds = (trigger: string) => block.blocked && (block.triggers as readonly string[]).includes(trigger);

  const lifted = orgFlags.filter((f) => BUDGET_TRIGGERS.has(f.triggerType) && !holds(f.triggerType));
  // One organization flag item per key holds one trigger: a flag of the block's action already standing
  // (the other cap's) is left as it is, as the consumer does, and so is any flag a person or another
  // layer set (a THROTTLED kill would be replaced, then deleted when the cap is raised). Admission
  // refuses past the cap either way.
  const kept = orgFlags.filter((f) => !lifted.includes(f));
  const reached =
    block.blocked && !kept.some((f) => f.state === block.action || !BUDGET_TRIGGERS.has(f.triggerType))
      ? block.triggers.at(-1)
      : undefined;
  const cleared = lifted.length > 0 ? await clearLifted(services, principal, orgFlags, lifted, now) : [];
  const set = reached !== undefined && (await setReached(services, principal, policy, block, reached, now));
  return { cleared, set: set ? [reached] : [] };
}

async function clearLifted(
  services: Services,
  principal: Principal,
  orgFlags: Awaited<ReturnType<Services['flags']['listByOrg']>>,
  lifted: typeof orgFlags,
  now: number,
): Promise<string[]> {
  const orgId = principal.orgId;
  if (lifted.length === orgFlags.length) {
    // Every organization flag goes: clear them all, also the copies the index does not list yet.
    await clearFlags(await enforcementDeps(services), orgId, now, {
      scope: 'organization',
      keyId: null,
      sessionId: null,
    });
  } else {
    await Promise.all(lifted.map((f) => services.flags.delete(f.flagKey)));
  }
  const triggers = [...new Set(lifted.map((f) => f.triggerType))].sort();
  await recordChange(services, principal, {
    action: 'flag.cleared',
    target: 'organization',
    before: { scope: 'organization', triggerTypes: triggers, activeFlags: lifted.length },
    after: {
      scope: 'organization',
      state: 'ACTIVE',
      reason: 'hard cap no longer reached or no longer blocking',
    },
  });
  return triggers;
}

async function setReached(
  services: Services,
  principal: Principal,
  policy: GuardrailPolicy,
  block: FinancialBlockState,
  trigger: 'budget_daily_hard' | 'budget_monthly_hard',
  now: number,
): Promise<boolean> {
  const orgId = principal.orgId;
  const cfg = policy.financialLimits;
  const daily = trigger === 'budget_daily_hard';
  const spend = daily ? block.daySpendNanos : block.monthSpendNanos;
  const cap = (daily ? cfg.dailyHardCapNanos : cfg.monthlyHardCapNanos) ?? 0;
  const action = block.action as 'SUSPENDED' | 'THROTTLED';
  // As the guardrail consumer writes it (its verdict's values, the block's TTL): the pipeline's next
  // event finds it current and leaves it.
  const result = await pushFlag(
    await enforcementDeps(services),
    {
      orgId,
      action,
      triggerType: trigger,
      observedValue: nanosToUsd(spend),
      thresholdValue: nanosToUsd(cap),
      mode: cfg.hardCapMode,
      ...(block.flagTtlMs ? { ttlSeconds: Math.ceil(block.flagTtlMs / 1000) } : {}),
    },
    now,
  );
  // An organization flag is one item per key: with no key, nothing was stored to record (admission
  // refuses the calls of a key created later all the same).
  if (result.keysFlagged === 0) return false;
  const at = new Date(now).toISOString();
  await services.trips.add(orgId, {
    at,
    layer: 'financialLimits',
    triggerType: trigger,
    observedValue: nanosToUsd(spend),
    thresholdValue: nanosToUsd(cap),
    mode: cfg.hardCapMode,
    action,
    keyId: null,
    sessionId: null,
    message: `${daily ? 'Daily' : 'Monthly'} hard cap lowered to or below the spend already counted`,
  });
  await recordChange(services, principal, {
    action: 'flag.set',
    target: 'organization',
    after: {
      scope: 'organization',
      state: action,
      triggerType: trigger,
      mode: cfg.hardCapMode,
      expiresAt: result.expiresAt,
      reason: 'hard cap lowered to or below spend',
    },
  });
  return true;
}
