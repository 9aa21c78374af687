import { storedOrgRatesSchema } from '../../../core/pricing';
import { formatZodIssues } from '../../../core/schemas';
import { pricingRatesSchema, type PricingRatesResponse } from '../../../core/schemas/api';
import { ratesCut } from '../../../core/governance/risky-changes';
import { alertRiskyChange, recordChange } from '../../shared/audit';
import { httpErrors, json, parseJsonBody } from '../../shared/http';
import { PricingRatesConflictError } from '../../shared/stores/pricing-rates-store';
import { retryOnConflict } from '../retry-on-conflict';
import type { Route } from './types';

/**
 * The organization's own pricing rates (docs/pricing.md, "Negotiated and self-hosted rates"). People
 * only: rates change every future price of the organization. Stored rates that no longer validate
 * (written by another version) read as none, as the consumers treat them.
 */
export const getPricingRates: Route = {
  auth: 'person',
  handle: async ({ principal, services }) => {
    const stored = await services.pricingRates.get(principal.orgId);
    // Read leniently: rates saved before provider keys were checked still price, so they still show.
    const parsed = storedOrgRatesSchema.safeParse(stored?.rates ?? {});
    const body: PricingRatesResponse = {
      rates: parsed.success ? parsed.data : {},
      updatedAt: stored?.updatedAt ?? null,
    };
    return json(200, body);
  },
};

/**
 * Replaces the rates; applies to events priced from the next Kinesis record on. Admins only (rates
 * change every price); audited, and a cut by more than half notifies the organization.
 */
export const putPricingRates: Route = {
  auth: 'person',
  role: 'admin',
  handle: async ({ event, principal, services, logger }) => {
    const parsed = pricingRatesSchema.safeParse(parseJsonBody(event));
    if (!parsed.success) throw httpErrors.badRequest('invalid pricing rates', formatZodIssues(parsed.error));
    const updatedAt = new Date(services.now()).toISOString();
    // Written under the revision read, so that `before` is what this write really replaced: without it,
    // concurrent PUTs all recorded the last value and a cut could slip past the "more than half" alert.
    const before = await retryOnConflict(
      async () => {
        const current = await services.pricingRates.get(principal.orgId);
        await services.pricingRates.put(
          principal.orgId,
          { rates: parsed.data, updatedAt },
          current?.rev ?? 0,
        );
        return current?.rates ?? {};
      },
      (err) => err instanceof PricingRatesConflictError,
      'the pricing rates were changed by several writes at once; read them again and retry',
    );
    await recordChange(services, principal, { action: 'pricing_rates.updated', before, after: parsed.data });
    await alertRiskyChange(services, logger, principal, 'rates_cut', ratesCut(before, parsed.data));
    const body: PricingRatesResponse = { rates: parsed.data, updatedAt };
    return json(200, body);
  },
};
