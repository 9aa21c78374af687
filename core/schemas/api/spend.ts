/**
 * `GET /v1/spend`: what the overview draws — today and this month, spend by model and by provider
 * this month (largest first), the hourly series of the last 48 hours and the per-minute series of the
 * last 60 minutes (buckets without calls are absent). Dollars from exact aggregates.
 * @module
 */
import { z } from 'zod';
import { count, usd } from './common';

const calls = count('Calls in the period.', 42);
const provider = z.string().meta({ description: 'Provider identifier.', example: 'openai' });

export const spendResponseSchema = z
  .strictObject({
    todayUsd: usd('Spend of the current UTC day.', 3.25),
    monthUsd: usd('Spend of the current UTC month.', 48.9),
    byModel: z
      .array(
        z.strictObject({
          provider,
          model: z.string().meta({ description: 'Model identifier.', example: 'gpt-4o-mini' }),
          costUsd: usd('Spend this month.', 12.5),
          calls,
        }),
      )
      .meta({ description: 'Spend this month per model, largest first.' }),
    byProvider: z
      .array(z.strictObject({ provider, costUsd: usd('Spend this month.', 30.1), calls }))
      .meta({ description: 'Spend this month per provider, largest first.' }),
    hourly: z
      .array(
        z.strictObject({
          hour: z
            .string()
            .regex(/^\d{4}-\d{2}-\d{2}T\d{2}$/)
            .meta({ description: 'UTC hour, YYYY-MM-DDTHH.', example: '2026-04-09T12' }),
          costUsd: usd('Spend in the hour.', 0.42),
          calls,
        }),
      )
      .max(48)
      .meta({ description: 'Hours of the last 48 with calls, oldest first.' }),
    minutes: z
      .array(
        z.strictObject({
          minute: z
            .string()
            .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/)
            .meta({ description: 'UTC minute, YYYY-MM-DDTHH:mm.', example: '2026-04-09T12:34' }),
          costUsd: usd('Spend in the minute.', 0.01),
          calls,
        }),
      )
      .max(60)
      .meta({ description: 'Minutes of the last 60 with calls, oldest first.' }),
  })
  .meta({ description: 'Response of GET /v1/spend.' });
export type SpendResponse = z.infer<typeof spendResponseSchema>;
