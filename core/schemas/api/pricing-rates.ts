/**
 * `GET /v1/pricing/rates` and `PUT /v1/pricing/rates`: the organization's own pricing rates
 * (core/pricing `OrgRates`): a discount multiplier, per-provider multipliers, and per-model or
 * per-endpoint-family prices in USD per million tokens, for contracted prices and self-hosted models
 * (`llama:*` at its own rate, $0 included). Calls priced by a model rate report `costSource: ORG_RATE`.
 * @module
 */
import { z } from 'zod';
import { orgRatesSchema } from '../../pricing/org-rates';
import { timestamp } from './common';

/** Body of PUT /v1/pricing/rates (replaces the stored rates) and the `rates` member of the answers. */
export const pricingRatesSchema = orgRatesSchema.meta({
  description:
    'Pricing rates of the organization. `models` keys are provider:model, model, or a prefix ending in * ' +
    '(llama:* = every model of a self-hosted llama endpoint); prices are USD per million tokens, 0 allowed; ' +
    'unset cache prices default to the input price. Precedence: model rate, then providers multiplier, then multiplier.',
  example: {
    multiplier: 0.9,
    providers: { anthropic: 0.85 },
    models: {
      'llama:*': { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
      'openai:gpt-4o': { inputUsdPerMTok: 2, outputUsdPerMTok: 8, cacheReadUsdPerMTok: 1 },
    },
  },
});
export type PricingRates = z.infer<typeof pricingRatesSchema>;

export const pricingRatesResponseSchema = z
  .strictObject({
    rates: pricingRatesSchema,
    updatedAt: timestamp('When the rates were last saved; null when never.').nullable(),
  })
  .meta({ description: 'Response of GET and PUT /v1/pricing/rates.' });
export type PricingRatesResponse = z.infer<typeof pricingRatesResponseSchema>;
