/**
 * Recording changes and refusing roles, for every handler that changes something (issue 21). A change
 * is recorded after it succeeded; a refusal is recorded before the 403 is answered.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { roleAtLeast, type Role } from '../../core/roles';
import type { AuditAction, AuditActor } from '../../core/schemas/api/audit';
import { httpErrors } from './http';
import type { Principal } from './principal';
import type { Services } from './services';

/** Who a principal is, in the log: a person's `sub`, email and role, or a key's public id. */
export function actorOf(principal: Principal): AuditActor {
  return principal.kind === 'person'
    ? { kind: 'person', sub: principal.sub, email: principal.email, role: principal.role }
    : { kind: 'key', keyId: principal.keyId };
}

/** One change to record: what, on what, and the values before and after (never secrets). */
export interface Change {
  action: AuditAction;
  target?: string | null;
  before?: unknown;
  after?: unknown;
}

/** Appends `change` to the principal's organization's audit log, by the principal, now. */
export async function recordChange(
  services: Pick<Services, 'audit' | 'now'>,
  principal: Principal,
  change: Change,
): Promise<void> {
  await services.audit.record(principal.orgId, {
    action: change.action,
    actor: actorOf(principal),
    target: change.target ?? null,
    before: change.before ?? null,
    after: change.after ?? null,
    at: new Date(services.now()).toISOString(),
  });
}

/**
 * Throws 403 `role_required` (`<what> needs the <role> role`) when a person's role is below `needed`,
 * after recording the refused attempt (`role.denied`, target `what`; up to a rate per person, the ones left
 * out counted in the next entry's `after.suppressed`). Programs are bound by their key's
 * scopes instead and pass.
 */
export async function requireRole(
  services: Pick<Services, 'audit' | 'now' | 'denialAudit'>,
  principal: Principal,
  needed: Role,
  what: string,
): Promise<void> {
  if (principal.kind !== 'person' || roleAtLeast(principal.role, needed)) return;
  // Recorded up to a rate per person (denial-audit-limiter.ts); the ones left out are counted in the next.
  const admitted = services.denialAudit.admit(`${principal.orgId}\u0000${principal.sub}`, services.now());
  if (admitted.record) {
    await recordChange(services, principal, {
      action: 'role.denied',
      target: what,
      after: {
        needed,
        had: principal.role,
        ...(admitted.suppressed > 0 ? { suppressed: admitted.suppressed } : {}),
      },
    });
  }
  throw httpErrors.roleRequired(`${what} needs the ${needed} role`);
}

/**
 * Notifies the organization's channel (the soft-cap notifier: SNS in AWS) of risky findings of a change
 * it has just recorded. A notification that fails is logged, never fails the change.
 */
export async function alertRiskyChange(
  services: Pick<Services, 'notifier' | 'now'>,
  logger: Pick<Logger, 'warn'>,
  principal: Principal,
  triggerType: 'cap_lifted' | 'rates_cut',
  findings: readonly { message: string }[],
): Promise<void> {
  if (findings.length === 0) return;
  const who = principal.kind === 'person' ? (principal.email ?? principal.sub) : `key ${principal.keyId}`;
  try {
    await services.notifier.notify({
      orgId: principal.orgId,
      kind: 'governance_change',
      triggerType,
      observedValue: findings.length,
      thresholdValue: 0,
      message: `${who}: ${findings.map((f) => f.message).join('; ')}`,
      at: new Date(services.now()).toISOString(),
    });
  } catch (err) {
    logger.warn('governance alert failed', { error: err instanceof Error ? err.message : String(err) });
  }
}
