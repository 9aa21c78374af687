/**
 * Changes that deserve an alert besides their audit entry (issue 21): a hard cap lifted (removed, raised
 * to more than double, or switched off through its action or layer 1's switch and mode), or pricing
 * rates cut by more than half (priced lower, spend looks smaller and caps that rely on the pipeline trip
 * later). Pure: the values before and after come in, findings (for people) come out.
 * @module
 */

/** One finding, for the notification's message. */
export interface RiskyChange {
  /** Where: `dailyLimitUsd`, `multiplier`, `providers.openai`, `models.openai:gpt-4o.inputUsdPerMTok`. */
  field: string;
  before: number | string;
  after: number | string | null;
  message: string;
}

const HARD_CAPS = ['dailyLimitUsd', 'monthlyLimitUsd'] as const;

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * Hard caps lifted between two budget configurations (`PUT /v1/budget`'s `budget`): a cap that was set
 * and is now absent or more than doubled (the mirror of a rate cut by more than half), a budget that
 * blocked and now only warns or logs while a cap is set, or deferred billing newly allowed under one.
 *
 * @example liftedCaps({ dailyLimitUsd: 50, action: 'block' }, { action: 'block' })
 * // [{ field: 'dailyLimitUsd', before: 50, after: null, message: 'daily hard cap removed (was $50)' }]
 */
export function liftedCaps(before: unknown, after: unknown): RiskyChange[] {
  const b = record(before);
  const a = record(after);
  const found: RiskyChange[] = [];
  for (const cap of HARD_CAPS) {
    const was = finite(b[cap]);
    if (was !== undefined && finite(a[cap]) === undefined) {
      const period = cap === 'dailyLimitUsd' ? 'daily' : 'monthly';
      found.push({
        field: cap,
        before: was,
        after: null,
        message: `${period} hard cap removed (was $${was})`,
      });
    } else if (was !== undefined && finite(a[cap])! > was * 2) {
      const period = cap === 'dailyLimitUsd' ? 'daily' : 'monthly';
      const now = finite(a[cap])!;
      found.push({
        field: cap,
        before: was,
        after: now,
        message: `${period} hard cap raised from $${was} to $${now} (more than double)`,
      });
    }
  }
  const blocked = (b.action ?? 'block') === 'block';
  const blocks = (a.action ?? 'block') === 'block';
  const anyCap = HARD_CAPS.some((cap) => finite(a[cap]) !== undefined);
  if (blocked && !blocks && anyCap) {
    found.push({
      field: 'action',
      before: 'block',
      after: String(a.action),
      message: `budget action changed from block to ${String(a.action)}: caps no longer stop calls`,
    });
  }
  // Batch, fine-tuning and background calls bill after they return: allowed under a cap, they pass it.
  if (b.allowDeferredBilling !== true && a.allowDeferredBilling === true && blocks && anyCap) {
    found.push({
      field: 'allowDeferredBilling',
      before: 'false',
      after: 'true',
      message:
        'deferred billing allowed under the hard cap: batch, fine-tuning and background calls bill after they return, past the cap',
    });
  }
  return found;
}

/**
 * Caps switched off through the guardrail policy while a hard cap is set (in `budget` or in layer 1's
 * own fields): layer 1 (financial limits) disabled, or its hard-cap mode moved off `hard_stop`. Either
 * lets calls through past the cap as surely as removing it.
 *
 * @example capsSwitchedOff({}, { financialLimits: { enabled: false } }, { dailyLimitUsd: 40 })
 * // [{ field: 'policy.financialLimits.enabled', before: 'true', after: 'false', message: … }]
 */
export function capsSwitchedOff(policyBefore: unknown, policyAfter: unknown, budget: unknown): RiskyChange[] {
  const b = record(record(policyBefore).financialLimits);
  const a = record(record(policyAfter).financialLimits);
  const capped =
    HARD_CAPS.some((cap) => finite(record(budget)[cap]) !== undefined) ||
    finite(a.dailyHardCapNanos) !== undefined ||
    finite(a.monthlyHardCapNanos) !== undefined;
  if (!capped) return [];
  const found: RiskyChange[] = [];
  if ((b.enabled ?? true) === true && a.enabled === false) {
    found.push({
      field: 'policy.financialLimits.enabled',
      before: 'true',
      after: 'false',
      message: 'layer 1 (financial limits) disabled: hard caps no longer stop calls',
    });
  }
  const modeBefore = b.hardCapMode ?? 'hard_stop';
  const modeAfter = a.hardCapMode ?? 'hard_stop';
  if (modeBefore === 'hard_stop' && modeAfter !== 'hard_stop') {
    found.push({
      field: 'policy.financialLimits.hardCapMode',
      before: 'hard_stop',
      after: String(modeAfter),
      message: `hard-cap mode changed from hard_stop to ${String(modeAfter)}: caps no longer stop calls`,
    });
  }
  return found;
}

/** True when `after` is less than half of `before` (a cut by more than half). */
function cutByMoreThanHalf(before: number, after: number): boolean {
  return after * 2 < before;
}

/**
 * A multiplier scales list prices (1 = list): a cut by more than half, or one that first takes it below
 * half of list. Without the second, halving in steps (1 → 0.5 → 0.25 → …) never alerted.
 */
function multiplierCut(before: number, after: number): boolean {
  return cutByMoreThanHalf(before, after) || (after * 2 < 1 && before * 2 >= 1);
}

/**
 * Rates cut by more than half between two stored rate sets (core/pricing `OrgRates`): the organization
 * multiplier (absent = 1), each provider multiplier (absent = the organization multiplier of the same
 * side), each also when it first goes below half of list prices, and each token price of a model rate
 * present on both sides. A model rate added anew is not
 * compared with list prices here (no registry in this function).
 *
 * @example ratesCut({}, { multiplier: 0 })
 * // [{ field: 'multiplier', before: 1, after: 0, message: 'multiplier cut from 1 to 0' }]
 */
export function ratesCut(before: unknown, after: unknown): RiskyChange[] {
  const b = record(before);
  const a = record(after);
  const found: RiskyChange[] = [];
  const cut = (field: string, was: number, now: number, isCut = cutByMoreThanHalf) => {
    if (isCut(was, now))
      found.push({ field, before: was, after: now, message: `${field} cut from ${was} to ${now}` });
  };
  const orgBefore = finite(b.multiplier) ?? 1;
  const orgAfter = finite(a.multiplier) ?? 1;
  cut('multiplier', orgBefore, orgAfter, multiplierCut);
  const pb = record(b.providers);
  const pa = record(a.providers);
  for (const provider of new Set([...Object.keys(pb), ...Object.keys(pa)])) {
    const was = finite(pb[provider]) ?? orgBefore;
    const now = finite(pa[provider]) ?? orgAfter;
    // The organization-wide cut is already reported; a provider that merely follows it is not repeated.
    if (finite(pb[provider]) === undefined && finite(pa[provider]) === undefined) continue;
    cut(`providers.${provider}`, was, now, multiplierCut);
  }
  const mb = record(b.models);
  const ma = record(a.models);
  for (const [model, rate] of Object.entries(mb)) {
    if (!(model in ma)) continue;
    const rb = record(rate);
    const ra = record(ma[model]);
    for (const price of Object.keys(rb)) {
      const was = finite(rb[price]);
      const now = finite(ra[price]) ?? finite(ra.inputUsdPerMTok);
      if (was !== undefined && now !== undefined) cut(`models.${model}.${price}`, was, now);
    }
  }
  return found;
}
