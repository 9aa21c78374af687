/**
 * `POST /v1/budget/lease` and `POST /v1/budget/lease/release` (CONTRACTS.md §2, docs/admission.md): the SDK's
 * side of budget leases, on the same counter the relay's holders use, so direct-to-provider calls draw on
 * the same caps as proxied ones. `Service-API-Key` only: a lease belongs to a running program.
 *
 * A holder id is bound to the key that first took it; another key's report for it is refused. What a
 * report may move is bounded by what the holder holds: spend and reservations above its slice are clamped
 * to it, so a key cannot forge spend or park the cap beyond the slices it was actually granted. Holders
 * per key and per organization are bounded per day, and the routes are rate-limited per key.
 *
 * `POST /v1/budget/settled/correct`: an admin's audited correction of settled spend.
 */
import { budgetScopesFor, type BudgetScope } from '../../../core/admission/budget-scopes';
import { correctedFinancialSpend, reviveOrgState } from '../../../core/guardrails';
import { LEASE_SCOPES } from '../../../core/keys';
import { DEFAULT_LEASE_POLICY, type HeldSlice } from '../../../core/leases/lease-state';
import { nanosToUsd, usdToNanos } from '../../../core/pricing';
import { formatZodIssues } from '../../../core/schemas';
import {
  budgetLeaseReleaseRequestSchema,
  budgetLeaseRequestSchema,
  settledCorrectionRequestSchema,
  type BudgetLeaseResponse,
} from '../../../core/schemas/api/budget-lease';
import { LeaseContentionError, type WriteTracker } from '../../shared/budget-leases';
import { actorOf } from '../../shared/audit';
import { deferredBillingPolicy } from '../../shared/deferred-billing';
import { enforcementFor } from '../../shared/enforcement-state';
import { httpErrors, json, parseJsonBody } from '../../shared/http';
import type { Principal } from '../../shared/principal';
import type { Services } from '../../shared/services';
import type { HolderWindow, LeaseHolderRecord } from '../../shared/stores/budget-lease-store';
import type { Route } from './types';

/**
 * New holders a key may register in one UTC hour (an SDK process is one holder; a Lambda cold start is a
 * new one). Per hour, not per day: a fleet recycling its containers all day must never run out, while a
 * key that floods holder ids is still bounded (each holder item expires; none is listed in the counter).
 */
export const LEASE_HOLDERS_PER_KEY_PER_HOUR = 500;
/** New holders an organization may register in one UTC hour, all keys together. */
export const LEASE_HOLDERS_PER_ORG_PER_HOUR = 5_000;

/** The UTC hour new holders are counted in. */
export function holderWindowAt(nowMs: number): HolderWindow {
  const start = Math.floor(nowMs / 3_600_000) * 3_600_000;
  return { id: new Date(start).toISOString().slice(0, 13), endMs: start + 3_600_000 };
}
/** The holder record outlives its last write by this long (TTL; the counter keeps its slice regardless). */
const HOLDER_RECORD_TTL_S = 2 * 86_400;

/** The organization scope (the one scope today: core/admission/budget-scopes). */
function orgScope(orgId: string): BudgetScope {
  return budgetScopesFor(orgId)[0] as BudgetScope;
}

function requireProgram(principal: Principal): Principal & { kind: 'program' } {
  if (principal.kind !== 'program') {
    throw httpErrors.forbidden('budget leases are taken by programs: authenticate with Service-API-Key');
  }
  return principal;
}

/** How many times the spend a report settles may its declared rate size the holder's headroom. */
export const RATE_BACKING = 4;

function rateLimit(services: Services, keyId: string): void {
  const taken = services.leaseRouteLimiter.take(keyId, services.now());
  if (!taken.allowed) {
    throw httpErrors.tooManyRequests(
      'too many lease calls for this key; retry later',
      taken.retryAfterSeconds,
    );
  }
}

/**
 * The holder's record, bound to this key: a new holder is registered (bounded per key and organization);
 * a holder of another key is refused. A journaled write that never completed resolves to the belief that
 * can only overcount: a write that would have grown the counter did not land, one that shrinks it did.
 */
async function holderFor(
  services: Services,
  program: Principal & { kind: 'program' },
  holderId: string,
): Promise<{ record: LeaseHolderRecord | undefined; held: HeldSlice | null }> {
  const record = await services.leaseHolders.get(program.orgId, holderId);
  if (record === undefined) {
    const window = holderWindowAt(services.now());
    const ok = await services.leaseHolders.register(
      program.orgId,
      program.keyId,
      window,
      LEASE_HOLDERS_PER_KEY_PER_HOUR,
      LEASE_HOLDERS_PER_ORG_PER_HOUR,
    );
    if (!ok) {
      const retry = Math.max(1, Math.ceil((window.endMs - services.now()) / 1000));
      throw httpErrors.tooManyRequests(
        `too many new lease holders this hour for this key (at most ${LEASE_HOLDERS_PER_KEY_PER_HOUR}) or ` +
          `organization (at most ${LEASE_HOLDERS_PER_ORG_PER_HOUR}); reuse a holder id per process`,
        retry,
      );
    }
    return { record: undefined, held: null };
  }
  if (record.keyId !== program.keyId) {
    throw httpErrors.forbidden('this lease holder belongs to another key');
  }
  const p = record.pending;
  if (p === null) return { record, held: record.held };
  const grows = p.consumedNanos + (p.held?.sliceNanos ?? 0) - (record.held?.sliceNanos ?? 0) > 0;
  return { record, held: grows ? record.held : p.held };
}

/**
 * Writes the holder's record around a counter write: `journal` before it (what it would hold), `finish`
 * after it. Two reports of one holder cannot interleave: each write is conditional on the record's seq.
 */
function recordWriter(
  services: Services,
  program: Principal & { kind: 'program' },
  holderId: string,
  start?: LeaseHolderRecord,
) {
  let seq = start?.seq;
  const expiresAt = () => Math.floor(services.now() / 1000) + HOLDER_RECORD_TTL_S;
  const write = async (fields: Pick<LeaseHolderRecord, 'held' | 'pending' | 'reservedNanos'>) => {
    const next = (seq ?? 0) + 1;
    const ok = await services.leaseHolders.put(
      program.orgId,
      { holderId, keyId: program.keyId, seq: next, expiresAt: expiresAt(), ...fields },
      seq,
    );
    if (!ok) throw httpErrors.unavailable('another report of this lease holder is in progress; retry', 1);
    seq = next;
  };
  return {
    journal: (held: HeldSlice | null, pending: { held: HeldSlice | null; consumedNanos: number }) =>
      write({ held, pending, reservedNanos: start?.reservedNanos ?? 0 }),
    finish: (held: HeldSlice | null, reservedNanos: number) => write({ held, pending: null, reservedNanos }),
  };
}

/** Lease counter busy: a retryable 503 (the SDK renews off the call path). */
async function busyAsUnavailable<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof LeaseContentionError)
      throw httpErrors.unavailable('budget lease counter busy; retry', 1);
    throw err;
  }
}

export const takeBudgetLease: Route = {
  auth: 'any',
  programsOnly: true,
  // A program that sends telemetry or proxied calls holds leases; a read-only key does not.
  keyScopes: LEASE_SCOPES,
  handle: async ({ event, principal, services }) => {
    const program = requireProgram(principal);
    rateLimit(services, program.keyId);
    const parsed = budgetLeaseRequestSchema.safeParse(parseJsonBody(event));
    if (!parsed.success) throw httpErrors.badRequest('invalid lease request', formatZodIssues(parsed.error));
    const body = parsed.data;
    const { record, held } = await holderFor(services, program, body.holderId);
    // A report moves at most what the holder holds: its slice covers its spend and its reservations.
    const granted = held?.sliceNanos ?? 0;
    const consumedNanos = Math.min(usdToNanos(body.consumedUsd), granted);
    const reservedNanos = Math.min(usdToNanos(body.reservedUsd), granted - consumedNanos);
    // The declared spend rate sizes the headroom only as far as the spend this report settles backs it:
    // the headroom (rate × cover time, at least minCoverSeconds) is then at most RATE_BACKING × that spend,
    // which is charged anyway. Taken at its word, a fresh holder declaring a huge rate got half the free
    // room, and a key minting holders parked the whole day's cap in slices that lapsed as spent, spending
    // nothing. An SDK's rate is its reported spend over the time since its last report, so this binds
    // only a holder that spent it in under half a second.
    const rateNanosPerSecond = Math.min(
      usdToNanos(body.spendRateUsdPerMin) / 60,
      (RATE_BACKING * consumedNanos) / DEFAULT_LEASE_POLICY.minCoverSeconds,
    );
    const writer = recordWriter(services, program, body.holderId, record);
    let journaledHeld = held;
    const tracker: WriteTracker = {
      beforeWrite: (inFlight) => writer.journal(journaledHeld, inFlight),
      // A renewal across midnight returned the old slice first (core/leases crossesDay).
      onReleased: () => {
        journaledHeld = null;
      },
    };
    const [{ grant }, enforcement, deferredAllowed] = await Promise.all([
      busyAsUnavailable(
        services.budgetLeases.take(
          orgScope(program.orgId),
          {
            holderId: body.holderId,
            consumedNanos,
            reservedNanos,
            reservations: reservedNanos > 0 ? 1 : 0,
            // The SDK's calls waiting for room (their worst cases): granted on top, or the answer is exhausted.
            needNanos: usdToNanos(body.needUsd),
            rateNanosPerSecond,
            // Nothing spent, reserved or needed: no headroom. A slice is granted for calls, and a key minting
            // holders that claim nothing would otherwise park room by the cent until lapses charged it all.
            ...(consumedNanos === 0 && reservedNanos === 0 && usdToNanos(body.needUsd) === 0
              ? { minHeadroomNanos: 0 }
              : {}),
            held,
          },
          {},
          tracker,
        ),
      ),
      enforcementFor(services, program.orgId, program.keyId, services.now()),
      deferredBillingPolicy({ config: services.config })(program.orgId),
    ]);
    await writer.finish(grant.held, reservedNanos);
    const now = services.now();
    const answer: BudgetLeaseResponse = {
      holderId: body.holderId,
      capped: grant.capped,
      exhausted: grant.exhausted,
      retryable: grant.exhausted && !grant.settledLeavesNoRoom,
      grantedUsd: nanosToUsd(grant.sliceNanos),
      expiresAt: new Date(grant.expiresAtMs).toISOString(),
      ttlSeconds: Math.max(0, Math.floor((grant.expiresAtMs - now) / 1000)),
      retryAfterSeconds:
        grant.retryAtMs === null ? null : Math.max(1, Math.ceil((grant.retryAtMs - now) / 1000)),
      // Under a hard cap the SDK bounds batch, fine-tuning and background calls like others only then.
      ...(grant.capped && deferredAllowed ? { allowDeferredBilling: true } : {}),
      enforcement,
    };
    return json(200, answer);
  },
};

export const releaseBudgetLease: Route = {
  auth: 'any',
  programsOnly: true,
  // A program that sends telemetry or proxied calls holds leases; a read-only key does not.
  keyScopes: LEASE_SCOPES,
  handle: async ({ event, principal, services }) => {
    const program = requireProgram(principal);
    rateLimit(services, program.keyId);
    const parsed = budgetLeaseReleaseRequestSchema.safeParse(parseJsonBody(event));
    if (!parsed.success) throw httpErrors.badRequest('invalid lease release', formatZodIssues(parsed.error));
    const { holderId } = parsed.data;
    const { record, held } = await holderFor(services, program, holderId);
    const consumedNanos = Math.min(usdToNanos(parsed.data.consumedUsd), held?.sliceNanos ?? 0);
    if (record !== undefined && (held !== null || consumedNanos > 0)) {
      const writer = recordWriter(services, program, holderId, record);
      const tracker: WriteTracker = { beforeWrite: (inFlight) => writer.journal(held, inFlight) };
      await busyAsUnavailable(
        services.budgetLeases.release(orgScope(program.orgId), holderId, consumedNanos, held, tracker),
      );
      await writer.finish(null, 0);
    }
    return json(200, { released: true });
  },
};

/**
 * `POST /v1/budget/settled/correct` `{ deltaUsd, reason }`: adds a signed correction to the settled spend
 * of the current day and month (e.g. after a forged report) and appends an audit record with who, when,
 * why, before and after (`settled_spend.corrected` in the audit log). People with the `admin` role only
 * (design decision 16).
 */
const signedUsd = (nanos: number): number => Math.sign(nanos) * nanosToUsd(Math.abs(nanos));

export const correctSettledSpend: Route = {
  auth: 'person',
  role: 'admin',
  handle: async ({ event, principal, services }) => {
    if (principal.kind !== 'person') throw httpErrors.forbidden('corrections are made by a person');
    const parsed = settledCorrectionRequestSchema.safeParse(parseJsonBody(event));
    if (!parsed.success) throw httpErrors.badRequest('invalid correction', formatZodIssues(parsed.error));
    const deltaNanos = Math.sign(parsed.data.deltaUsd) * usdToNanos(Math.abs(parsed.data.deltaUsd));
    const { before, after, applied } = await services.budgetLeases.correctSettled(
      orgScope(principal.orgId),
      deltaNanos,
    );
    // Layer 1 counts the pipeline's spend on its own: it takes the same correction, or it would suspend
    // the organization again at its next call (the pipeline's record of the forged calls stays).
    const now = services.now();
    await services.guardrailState.update(principal.orgId, (stored) => {
      const state = reviveOrgState(stored);
      const financialLimits = correctedFinancialSpend(state.layers.financialLimits, deltaNanos, now);
      return { ...state, layers: { ...state.layers, financialLimits } };
    });
    // The audit log is the one record of a correction (who, when, why, before and after; issue 21).
    const entry = await services.audit.record(principal.orgId, {
      action: 'settled_spend.corrected',
      actor: actorOf(principal),
      target: 'budget',
      before: { settledDayUsd: nanosToUsd(before.day), settledMonthUsd: nanosToUsd(before.month) },
      after: {
        settledDayUsd: nanosToUsd(after.day),
        settledMonthUsd: nanosToUsd(after.month),
        deltaUsd: parsed.data.deltaUsd,
        appliedUsd: signedUsd(applied),
        reason: parsed.data.reason,
      },
      at: new Date(services.now()).toISOString(),
    });
    return json(200, {
      id: entry.id,
      at: entry.at,
      deltaUsd: parsed.data.deltaUsd,
      // Less than asked when the figure would have gone below zero.
      appliedUsd: signedUsd(applied),
      settledUsd: {
        before: { day: nanosToUsd(before.day), month: nanosToUsd(before.month) },
        after: { day: nanosToUsd(after.day), month: nanosToUsd(after.month) },
      },
    });
  },
};
