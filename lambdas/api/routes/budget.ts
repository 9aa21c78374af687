import {
  GUARDRAIL_LAYERS,
  LAYER_IDS,
  guardrailPolicySchema,
  isPolicyField,
  parseGuardrailPolicy,
} from '../../../core/guardrails';
import { hardCapsOf, NO_CAPS } from '../../../core/admission/budget-scopes';
import { effectivePolicy, type BudgetCaps } from '../../../core/guardrails/org-policy';
import type { AdmissionPeriodView, BudgetPeriod, CapsNanos } from '../../../core/leases/lease-state';
import { periodsOf, aggregateSk } from '../../../core/ledger/aggregate-deltas';
import { nanosToUsd } from '../../../core/pricing';
import { formatZodIssues } from '../../../core/schemas';
import { putBudgetRequestSchema, type PutBudgetRequest } from '../../../core/schemas/api';
import { budgetConfigSchema } from '../../../core/schemas/budget';
import { capsSwitchedOff, liftedCaps } from '../../../core/governance/risky-changes';
import { grantsAny } from '../../../core/keys/scopes';
import { alertRiskyChange, recordChange } from '../../shared/audit';
import { CAPS_PROPAGATION_MS } from '../../shared/caps-propagation';
import { enforcementFor } from '../../shared/enforcement-state';
import { httpErrors, json, parseJsonBody } from '../../shared/http';
import type { Services } from '../../shared/services';
import { OrgConfigConflictError, type OrgConfig } from '../../shared/stores/org-config-store';
import { flagViews } from '../views';
import { settleBudgetFlags } from '../cap-change-flags';
import { retryOnConflict } from '../retry-on-conflict';
import type { Route } from './types';

const INGEST_OR_READ = ['read', 'ingest'] as const;

/** The layer sections an organization edits; `financialLimits` shows only its switch and modes. */
function layersView(stored: unknown) {
  let policy;
  try {
    policy = parseGuardrailPolicy(stored ?? {});
  } catch {
    policy = parseGuardrailPolicy({});
  }
  const {
    dailySoftCapNanos: _a,
    dailyHardCapNanos: _b,
    monthlySoftCapNanos: _c,
    monthlyHardCapNanos: _d,
    ...fin
  } = policy.financialLimits;
  return {
    layers: {
      financialLimits: fin,
      identicalLoop: policy.identicalLoop,
      contextGrowth: policy.contextGrowth,
      rpsBurst: policy.rpsBurst,
      premiumConcentration: policy.premiumConcentration,
    },
    layerInfo: LAYER_IDS.map((id) => ({
      id,
      ordinal: GUARDRAIL_LAYERS[id].ordinal,
      name: GUARDRAIL_LAYERS[id].name,
      description: GUARDRAIL_LAYERS[id].description,
    })),
  };
}

/**
 * Budget, policy, spend so far, remaining, status and active flag of an organization (GET /v1/budget).
 * The flag is the strongest that stops every call of the caller: an organization-scope flag, or for a
 * program (`keyId`) also its key's own flag; session flags are in GET /v1/flags and ingest answers.
 */
export async function budgetStatus(services: Services, orgId: string, keyId?: string) {
  const now = services.now();
  const p = periodsOf(now);
  const [config, day, month, flags, leases] = await Promise.all([
    services.config.get(orgId),
    services.aggregates.list(orgId, aggregateSk.day(p.day)),
    services.aggregates.list(orgId, aggregateSk.month(p.month)),
    services.flags.listByOrg(orgId, now),
    services.budgetLeases.view({ kind: 'organization', orgId }, NO_CAPS),
  ]);
  const budget = (config?.budget ?? {}) as BudgetCaps;
  const todayNanos = day.find((r) => r.sk === aggregateSk.day(p.day))?.costNanos ?? 0;
  const monthNanos = month.find((r) => r.sk === aggregateSk.month(p.month))?.costNanos ?? 0;
  const policy = effectivePolicy(config?.policy, budget);
  const fl = policy.financialLimits;
  const remaining = (cap: number | null, spent: number) =>
    cap === null ? null : nanosToUsd(Math.max(0, cap - spent));
  const stopsCaller = (f: (typeof flags)[number]) =>
    f.scope === 'organization' || (f.scope === 'key' && keyId !== undefined && f.keyId === keyId);
  const active = flagViews(flags.filter(stopsCaller))[0] ?? null;
  const over = (cap: number | null, spent: number) => cap !== null && spent >= cap;
  const status = active
    ? active.state === 'SUSPENDED'
      ? 'suspended'
      : 'throttled'
    : over(fl.dailyHardCapNanos, todayNanos) || over(fl.monthlyHardCapNanos, monthNanos)
      ? 'over_budget'
      : over(fl.dailySoftCapNanos, todayNanos) || over(fl.monthlySoftCapNanos, monthNanos)
        ? 'soft_cap'
        : 'ok';
  return {
    budget: {
      dailyLimitUsd: budget.dailyLimitUsd ?? null,
      monthlyLimitUsd: budget.monthlyLimitUsd ?? null,
      dailySoftLimitUsd: budget.dailySoftLimitUsd ?? null,
      monthlySoftLimitUsd: budget.monthlySoftLimitUsd ?? null,
      action: budget.action ?? 'block',
      allowDeferredBilling: budget.allowDeferredBilling === true,
    },
    policy: layersView(config?.policy),
    spend: { todayUsd: nanosToUsd(todayNanos), monthUsd: nanosToUsd(monthNanos) },
    remaining: {
      dailyUsd: remaining(fl.dailyHardCapNanos, todayNanos),
      monthlyUsd: remaining(fl.monthlyHardCapNanos, monthNanos),
    },
    status,
    flag: active,
    updatedAt: config?.updatedAt ?? null,
    admission: admissionPanel(leases, hardCapsOf(config)),
  };
}

/** CONTRACTS.md §3: admitted (settled + reserved) and leased spend per period, in USD. */
function admissionPanel(
  view: Record<BudgetPeriod, AdmissionPeriodView>,
  caps: CapsNanos,
): Record<BudgetPeriod, Record<string, number | null>> {
  const period = (p: BudgetPeriod) => {
    const v = view[p];
    const cap = caps[p];
    return {
      capUsd: cap === null ? null : nanosToUsd(cap),
      settledUsd: nanosToUsd(v.settledNanos),
      reservedUsd: nanosToUsd(v.reservedNanos),
      outstandingReservations: v.outstandingReservations,
      leasedUsd: nanosToUsd(v.leasedNanos),
      holders: v.holders,
    };
  };
  return { day: period('day'), month: period('month') };
}

export const getBudget: Route = {
  auth: 'any',
  // The SDK reads its kill state here with its telemetry key: `ingest` suffices, as `read` does.
  keyScopes: INGEST_OR_READ,
  handle: async ({ principal, services }) => {
    // A key without `read` (an ingest key embedded in an agent or a browser) learns only whether it
    // may call: not the spend, the caps or the guardrail thresholds (issue 21).
    if (principal.kind === 'program' && !grantsAny(principal.scopes, 'read')) {
      return json(200, {
        enforcement: await enforcementFor(services, principal.orgId, principal.keyId, services.now()),
      });
    }
    return json(
      200,
      await budgetStatus(
        services,
        principal.orgId,
        principal.kind === 'program' ? principal.keyId : undefined,
      ),
    );
  },
};

/** The stored settings as the audit log shows them. */
function settingsOf(config: { budget: unknown; policy: unknown } | undefined) {
  return { budget: config?.budget ?? {}, policy: config?.policy ?? {} };
}

/** The members of `budget` (core/schemas/budget.ts). */
const BUDGET_MEMBERS: ReadonlySet<string> = new Set(Object.keys(budgetConfigSchema.shape));

/** What `GET /v1/budget` shows beside the budget and the policy: read-only, dropped from a `PUT`. */
const READ_ONLY_MEMBERS = ['spend', 'remaining', 'status', 'flag', 'updatedAt', 'admission'];

/**
 * A budget read with `GET /v1/budget` and written back unchanged is accepted: its read-only members
 * (the spend, the admission panel, `policy.layerInfo`) are dropped, and an unset limit, shown as null, is
 * "no limit". Only those: any other unknown member or null stays an error, since a misspelt limit
 * silently ignored would be a budget nobody enforces.
 */
function writableOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const name of READ_ONLY_MEMBERS) delete out[name];
  const policy = out.policy;
  if (typeof policy === 'object' && policy !== null && !Array.isArray(policy) && 'layerInfo' in policy) {
    const { layerInfo: _shown, ...rest } = policy as Record<string, unknown>;
    out.policy = rest;
  }
  const budget = out.budget;
  if (typeof budget !== 'object' || budget === null || Array.isArray(budget)) return out;
  const limits = new Set(['dailyLimitUsd', 'monthlyLimitUsd', 'dailySoftLimitUsd', 'monthlySoftLimitUsd']);
  const kept = Object.entries(budget).filter(([name, value]) => !(limits.has(name) && value === null));
  return { ...out, budget: Object.fromEntries(kept) };
}

/**
 * The budget's own members sent at the top level, without `budget` (spec 1.4 names `dailyLimitUsd`,
 * `monthlyLimitUsd` and `action` so): a change of those members only, merged into the stored budget
 * (`{monthlyLimitUsd: 100}` keeps the daily cap; null removes a limit). Beside a `budget` member they
 * stay where they are, unknown members (a 400: which one was meant is not known).
 */
function splitBudgetPatch(body: unknown): { rest: unknown; patch: Record<string, unknown> | undefined } {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || 'budget' in body) {
    return { rest: body, patch: undefined };
  }
  const rest: Record<string, unknown> = {};
  const patch: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) (BUDGET_MEMBERS.has(name) ? patch : rest)[name] = value;
  return { rest, patch: Object.keys(patch).length > 0 ? patch : undefined };
}

/** The stored budget with a top-level patch applied (null: the limit removed), checked whole. */
function patchedBudget(stored: unknown, patch: Record<string, unknown>): unknown {
  const merged: Record<string, unknown> = { ...((stored ?? {}) as Record<string, unknown>) };
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  const checked = budgetConfigSchema.safeParse(merged);
  if (!checked.success) throw httpErrors.badRequest('invalid budget update', formatZodIssues(checked.error));
  return checked.data;
}

export const putBudget: Route = {
  auth: 'person',
  role: 'admin',
  handle: async ({ event, principal, services, logger }) => {
    const { rest, patch } = splitBudgetPatch(parseJsonBody(event));
    const parsed = putBudgetRequestSchema.safeParse(writableOf(rest));
    if (!parsed.success) throw httpErrors.badRequest('invalid budget update', formatZodIssues(parsed.error));
    // Read, merge, write under the revision read: a concurrent PUT that landed in between makes the
    // write fail, and the merge is redone on what it wrote (its policy fields kept, its budget replaced
    // as a later PUT replaces it), so the audit's `before` is what this change really replaced.
    const { current, budget, policy } = await writeMerged(services, principal.orgId, parsed.data, patch);
    const written = services.now();
    await recordChange(services, principal, {
      action: 'budget.updated',
      before: settingsOf(current),
      after: settingsOf({ budget, policy }),
    });
    await alertRiskyChange(services, logger, principal, 'cap_lifted', [
      ...liftedCaps(current?.budget, budget),
      ...capsSwitchedOff(current?.policy, policy, budget),
    ]);
    // A cap raised above the spend that reached it ends the block at once; one lowered to it sets the flag
    // (nothing else would judge either: the next event may never come).
    await settleBudgetFlags(services, principal);
    // Changed hard caps are in force at every relay container once their cached caps are this old: the
    // answer waits for it, so a call made after it meets the new cap (the audit entry took part of it).
    const before = hardCapsOf(current);
    const after = hardCapsOf({ budget, policy });
    const waited = services.now() - written;
    if ((before.day !== after.day || before.month !== after.month) && waited < CAPS_PROPAGATION_MS) {
      await new Promise((resolve) => setTimeout(resolve, CAPS_PROPAGATION_MS - waited));
    }
    return json(200, await budgetStatus(services, principal.orgId));
  },
};

/** Merges the update into the stored settings and writes them, redoing the merge after a lost race. */
function writeMerged(
  services: Services,
  orgId: string,
  update: PutBudgetRequest,
  patch: Record<string, unknown> | undefined,
): Promise<{ current: OrgConfig | undefined; budget: unknown; policy: unknown }> {
  return retryOnConflict(
    async () => {
      const current = await services.config.get(orgId);
      const budget =
        patch !== undefined
          ? patchedBudget(current?.budget, patch)
          : (update.budget ?? current?.budget ?? {});
      const policy = update.policy
        ? mergedPolicy(current?.policy, update.policy.layers ?? {}, update.policy.limits)
        : (current?.policy ?? {});
      await services.config.put(
        orgId,
        { budget, policy, updatedAt: new Date(services.now()).toISOString() },
        current?.rev ?? 0,
      );
      return { current, budget, policy };
    },
    (err) => err instanceof OrgConfigConflictError,
    'the budget was changed by several writes at once; read it again and retry',
  );
}

/** The stored policy with each named layer's fields (and the shared limits') replaced, checked whole. */
function mergedPolicy(
  stored: unknown,
  layers: Record<string, Record<string, unknown>>,
  limits: Record<string, unknown> | undefined,
): unknown {
  // An unknown field is refused, not kept: it would do nothing, silently (a misspelt `maxRequest`).
  const unknown = [
    ...Object.entries(layers).flatMap(([id, section]) =>
      Object.keys(section)
        .filter((field) => !isPolicyField(id, field))
        .map((field) => ({ path: `policy.layers.${id}.${field}`, message: 'unknown field' })),
    ),
    ...Object.keys(limits ?? {})
      .filter((field) => !isPolicyField('limits', field))
      .map((field) => ({ path: `policy.limits.${field}`, message: 'unknown field' })),
  ];
  if (unknown.length > 0) throw httpErrors.badRequest('invalid guardrail policy', unknown);
  const merged = { ...((stored ?? {}) as Record<string, unknown>) };
  const section = (id: string, fields: Record<string, unknown>): void => {
    // Fields an earlier version stored that the section no longer has go with this write.
    const kept = Object.entries((merged[id] as Record<string, unknown> | undefined) ?? {}).filter(([field]) =>
      isPolicyField(id, field),
    );
    merged[id] = { ...Object.fromEntries(kept), ...fields };
  };
  for (const [id, fields] of Object.entries(layers)) section(id, fields);
  if (limits !== undefined) section('limits', limits);
  const checked = guardrailPolicySchema.safeParse(merged);
  if (!checked.success) {
    throw httpErrors.badRequest(
      'invalid guardrail policy',
      formatZodIssues(checked.error).map((p) => ({
        ...p,
        // A layer's field is sent under policy.layers, the shared bounds under policy.limits; the
        // whole-policy size bound names no field, so it points at the policy.
        path:
          p.path === ''
            ? 'policy'
            : p.path.startsWith('limits.')
              ? `policy.${p.path}`
              : `policy.layers.${p.path}`,
      })),
    );
  }
  return merged;
}
