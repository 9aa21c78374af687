/**
 * The end of a budget block by a raised cap (docs/guardrails.md: "the block ends when the period resets
 * or the cap is raised"). Layer 1 sets the organization's `budget_daily_hard` / `budget_monthly_hard`
 * flag when spend reaches a hard cap, and only the pipeline's next event would judge it again; while the
 * flag stands no call gets through to make one. So the change that raises (or removes) the cap judges
 * the stored layer-1 spend against the new policy at once and clears the flags it no longer supports,
 * each clear audited (`flag.cleared`). Flags of other triggers, and a cap still reached, are left alone.
 */
import { financialBlockState } from '../../core/guardrails';
import { effectivePolicy, type BudgetCaps } from '../../core/guardrails/org-policy';
import { reviveOrgState } from '../../core/guardrails/state';
import { recordChange } from '../shared/audit';
import { clearFlags, enforcementDeps } from '../shared/enforcement';
import type { Principal } from '../shared/principal';
import type { Services } from '../shared/services';

const BUDGET_TRIGGERS: ReadonlySet<string> = new Set(['budget_daily_hard', 'budget_monthly_hard']);

/** Clears the organization's budget flags the new `budget` and `policy` no longer support; returns their triggers. */
export async function clearLiftedBudgetFlags(
  services: Services,
  principal: Principal,
  config: { budget: unknown; policy: unknown },
): Promise<string[]> {
  const orgId = principal.orgId;
  const now = services.now();
  const orgFlags = (await services.flags.listByOrg(orgId, now)).filter((f) => f.scope === 'organization');
  const budgetFlags = orgFlags.filter((f) => BUDGET_TRIGGERS.has(f.triggerType));
  if (budgetFlags.length === 0) return [];
  const state = reviveOrgState((await services.guardrailState.get(orgId)).state);
  const block = financialBlockState(state, effectivePolicy(config.policy, config.budget as BudgetCaps), now);
  const holds = (trigger: string) => block.blocked && (block.triggers as readonly string[]).includes(trigger);
  const lifted = budgetFlags.filter((f) => !holds(f.triggerType));
  if (lifted.length === 0) return [];
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
    after: { scope: 'organization', state: 'ACTIVE', reason: 'hard cap raised above spend' },
  });
  return triggers;
}
