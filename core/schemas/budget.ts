/**
 * Budget configuration (spec 1.4, `PUT /v1/budget`) and the SDK's client-side `budget` option.
 *
 * Hard caps are `dailyLimitUsd` and `monthlyLimitUsd` (the spec's names); soft caps
 * (`dailySoftLimitUsd`, `monthlySoftLimitUsd`) only warn and must not exceed the hard cap of the
 * same period when both are set. An absent limit is no limit; `PUT` replaces the whole record.
 * Unknown members are refused: a misspelt limit silently ignored would be a budget nobody enforces.
 * Dollar amounts are decimal numbers on the wire; the backend converts them to exact integers.
 * @module
 */
import { z } from 'zod';
import { NANOS_PER_USD, usdToNanos } from '../pricing/money';
import { expected } from './common';

/**
 * Largest budget limit accepted, in USD: limits are kept as integer nano-USD, exact only below
 * Number.MAX_SAFE_INTEGER (about $9,007,199). A larger limit once passed validation, failed the
 * conversion with a 500 and was stored, so every later read of the budget failed too.
 */
export const MAX_BUDGET_USD = 9_000_000;

const limit = (description: string, example: number) =>
  z
    .number({ error: expected('an amount in US dollars') })
    .min(0, { error: 'must not be negative' })
    .max(MAX_BUDGET_USD, { error: `must be at most ${MAX_BUDGET_USD}` })
    // Limits are enforced in whole nano-dollars. A positive amount that rounds to none would be a freeze
    // nobody asked for: refused. Any other is kept as it is enforced (rounded to the nano-dollar), so
    // the budget read back is the one in force; a computed limit (100 / 3) stays accepted.
    .refine((n) => !(n > 0 && n <= MAX_BUDGET_USD) || usdToNanos(n) > 0, {
      error: 'must be 0 or at least half a nano-dollar (0.0000000005), which rounds to one',
    })
    .overwrite((n) => (n >= 0 && n <= MAX_BUDGET_USD ? usdToNanos(n) / NANOS_PER_USD : n))
    .meta({ description, example });

/** What happens when a limit is reached (spec 1.4). */
export const budgetActionSchema = z
  .enum(['block', 'warn', 'log'], { error: expected('block, warn or log') })
  .meta({
    description: 'block: refuse calls (429); warn: let them through and record a warning; log: record only.',
  });
export type BudgetAction = z.infer<typeof budgetActionSchema>;

export const budgetConfigSchema = z
  .strictObject({
    dailyLimitUsd: limit('Hard cap on spend per UTC day.', 50).optional(),
    monthlyLimitUsd: limit('Hard cap on spend per UTC calendar month.', 1000).optional(),
    dailySoftLimitUsd: limit('Soft cap per UTC day: a warning only.', 40).optional(),
    monthlySoftLimitUsd: limit('Soft cap per UTC calendar month: a warning only.', 800).optional(),
    action: budgetActionSchema.default('block'),
    allowDeferredBilling: z
      .boolean({ error: expected('true or false') })
      .meta({
        description:
          'Let batch, fine-tuning and background calls through under a hard cap. Their cost arrives after the call, so the cap cannot bound it; without this they are refused (403 deferred_billing_refused).',
        example: false,
      })
      .optional(),
  })
  .superRefine((b, ctx) => {
    const pairs = [
      ['dailySoftLimitUsd', b.dailySoftLimitUsd, 'dailyLimitUsd', b.dailyLimitUsd],
      ['monthlySoftLimitUsd', b.monthlySoftLimitUsd, 'monthlyLimitUsd', b.monthlyLimitUsd],
    ] as const;
    for (const [softName, soft, hardName, hard] of pairs) {
      if (soft !== undefined && hard !== undefined && soft > hard) {
        ctx.addIssue({
          code: 'custom',
          path: [softName],
          message: `${softName} (${soft}) must not exceed ${hardName} (${hard})`,
        });
      }
    }
  })
  .meta({ description: 'Budget configuration (PUT /v1/budget).' });
export type BudgetConfig = z.infer<typeof budgetConfigSchema>;

/** The SDK's `budget` option (spec 1.4): client-side caps, enforced by the library itself. */
export const clientBudgetOptionSchema = z
  .strictObject({
    dailyLimitUsd: limit('Cap on spend per day, as the library counts it.', 50).optional(),
    monthlyLimitUsd: limit('Cap on spend per month, as the library counts it.', 1000).optional(),
    action: budgetActionSchema.default('block'),
  })
  .meta({ description: 'The budget option of initServiceAuto (spec 1.4).' });
export type ClientBudgetOption = z.infer<typeof clientBudgetOptionSchema>;
