/**
 * `POST /v1/budget/lease` and `POST /v1/budget/lease/release` (CONTRACTS.md §2, docs/admission.md): the SDK's
 * side of budget leases, on the same items the relay's holder uses, so direct-to-provider calls draw on
 * the same caps as proxied ones. `Service-API-Key` only: a lease belongs to a running program.
 */
import { budgetScopesFor, type BudgetScope } from '../../../core/admission/budget-scopes';
import { LEASE_SCOPES } from '../../../core/keys';
import { nanosToUsd, usdToNanos } from '../../../core/pricing';
import { formatZodIssues } from '../../../core/schemas';
import {
  budgetLeaseReleaseRequestSchema,
  budgetLeaseRequestSchema,
  type BudgetLeaseResponse,
} from '../../../core/schemas/api/budget-lease';
import { LeaseContentionError } from '../../shared/budget-leases';
import { enforcementFor } from '../../shared/enforcement-state';
import { httpErrors, json, parseJsonBody } from '../../shared/http';
import type { Principal } from '../../shared/principal';
import type { Route } from './types';

/** The organization scope (the one scope today: core/admission/budget-scopes). */
function orgScope(orgId: string): BudgetScope {
  return budgetScopesFor(orgId)[0] as BudgetScope;
}

/** A lease item that kept changing under us: 503 with a short Retry-After (the SDK renews off the call path). */
async function busyAsUnavailable<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof LeaseContentionError) throw httpErrors.unavailable('budget lease item busy; retry', 1);
    throw err;
  }
}

function requireProgram(principal: Principal): Principal & { kind: 'program' } {
  if (principal.kind !== 'program') {
    throw httpErrors.forbidden('budget leases are taken by programs: authenticate with Service-API-Key');
  }
  return principal;
}

export const takeBudgetLease: Route = {
  auth: 'any',
  // A program that sends telemetry or proxied calls holds leases; a read-only key does not.
  keyScopes: LEASE_SCOPES,
  handle: async ({ event, principal, services }) => {
    const program = requireProgram(principal);
    const parsed = budgetLeaseRequestSchema.safeParse(parseJsonBody(event));
    if (!parsed.success) throw httpErrors.badRequest('invalid lease request', formatZodIssues(parsed.error));
    const body = parsed.data;
    const [{ grant }, enforcement] = await Promise.all([
      busyAsUnavailable(
        services.budgetLeases.take(orgScope(program.orgId), {
          holderId: body.holderId,
          consumedNanos: usdToNanos(body.consumedUsd),
          // Calls in flight at the holder stay covered by the new slice (committed money).
          reservedNanos: usdToNanos(body.reservedUsd),
          reservations: body.reservedUsd > 0 ? 1 : 0,
          // The SDK's calls waiting for room (their worst cases): granted on top, or the answer is exhausted.
          needNanos: usdToNanos(body.needUsd),
          rateNanosPerSecond: usdToNanos(body.spendRateUsdPerMin) / 60,
        }),
      ),
      enforcementFor(services, program.orgId, program.keyId, services.now()),
    ]);
    const now = services.now();
    const answer: BudgetLeaseResponse = {
      holderId: body.holderId,
      capped: grant.capped,
      exhausted: grant.exhausted,
      grantedUsd: nanosToUsd(grant.sliceNanos),
      expiresAt: new Date(grant.expiresAtMs).toISOString(),
      ttlSeconds: Math.max(0, Math.floor((grant.expiresAtMs - now) / 1000)),
      retryAfterSeconds:
        grant.retryAtMs === null ? null : Math.max(1, Math.ceil((grant.retryAtMs - now) / 1000)),
      enforcement,
    };
    return json(200, answer);
  },
};

export const releaseBudgetLease: Route = {
  auth: 'any',
  // A program that sends telemetry or proxied calls holds leases; a read-only key does not.
  keyScopes: LEASE_SCOPES,
  handle: async ({ event, principal, services }) => {
    const program = requireProgram(principal);
    const parsed = budgetLeaseReleaseRequestSchema.safeParse(parseJsonBody(event));
    if (!parsed.success) throw httpErrors.badRequest('invalid lease release', formatZodIssues(parsed.error));
    await busyAsUnavailable(
      services.budgetLeases.release(
        orgScope(program.orgId),
        parsed.data.holderId,
        usdToNanos(parsed.data.consumedUsd),
      ),
    );
    return json(200, { released: true });
  },
};
