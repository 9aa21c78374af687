import { formatZodIssues } from '../../../core/schemas';
import { pricingRatesSchema, type PricingRatesResponse } from '../../../core/schemas/api';
import { ratesCut } from '../../../core/governance/risky-changes';
import { alertRiskyChange, recordChange } from '../../shared/audit';
import { httpErrors, json, parseJsonBody } from '../../shared/http';
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
    const parsed = pricingRatesSchema.safeParse(stored?.rates ?? {});
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
    const before = (await services.pricingRates.get(principal.orgId))?.rates ?? {};
    await services.pricingRates.put(principal.orgId, { rates: parsed.data, updatedAt });
    await recordChange(services, principal, { action: 'pricing_rates.updated', before, after: parsed.data });
    await alertRiskyChange(services, logger, principal, 'rates_cut', ratesCut(before, parsed.data));
    const body: PricingRatesResponse = { rates: parsed.data, updatedAt };
    return json(200, body);
  },
};
