/**
 * Whether an organization lets batch, fine-tuning and background calls through under a hard cap (issue
 * 18.6). Their cost arrives after the call returns, so admission cannot bound it: the relay refuses them
 * (403 `deferred_billing_refused`) unless the organization's admin set `allowDeferredBilling` in its budget
 * (`PUT /v1/budget`, audited like every budget change) or the deployment lists it in
 * `DEFERRED_BILLING_ORGS`. Read per such call (they are rare): one GetItem, no cache, so a change applies
 * to the next call. Never rejects: a failed read refuses (a hard cap never fails open on a cost it cannot
 * bound).
 */
import type { OrgConfigStore } from './stores/org-config-store';

export interface DeferredBillingOptions {
  readonly config: Pick<OrgConfigStore, 'get'>;
  /** Organizations the deployment allows whatever their setting (`DEFERRED_BILLING_ORGS`). */
  readonly allowList?: ReadonlySet<string>;
}

/** @returns the relay's `deferredBillingAllowed` */
export function deferredBillingPolicy(opts: DeferredBillingOptions): (orgId: string) => Promise<boolean> {
  return async (orgId) => {
    if (opts.allowList?.has(orgId) === true) return true;
    try {
      const budget = (await opts.config.get(orgId))?.budget;
      return (
        typeof budget === 'object' &&
        budget !== null &&
        (budget as { allowDeferredBilling?: unknown }).allowDeferredBilling === true
      );
    } catch {
      return false;
    }
  };
}
