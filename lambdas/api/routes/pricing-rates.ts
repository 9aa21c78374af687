import { formatZodIssues } from '../../../core/schemas';
import { pricingRatesSchema, type PricingRatesResponse } from '../../../core/schemas/api';
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

/** Replaces the rates; applies to events priced from the next Kinesis record on. */
export const putPricingRates: Route = {
  auth: 'person',
  handle: async ({ event, principal, services }) => {
    const parsed = pricingRatesSchema.safeParse(parseJsonBody(event));
    if (!parsed.success) throw httpErrors.badRequest('invalid pricing rates', formatZodIssues(parsed.error));
    const updatedAt = new Date(services.now()).toISOString();
    await services.pricingRates.put(principal.orgId, { rates: parsed.data, updatedAt });
    const body: PricingRatesResponse = { rates: parsed.data, updatedAt };
    return json(200, body);
  },
};
