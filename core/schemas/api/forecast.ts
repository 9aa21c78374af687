/**
 * `GET /v1/forecast` and `POST /v1/forecast/run`: the latest Monte Carlo forecast of the organization
 * (lambdas/forecast/tasks.ts `ForecastView`, as stored) and when it was computed; both null before the
 * first run. `forecast.forecast` is the core result (core/forecast `Forecast`, money in integer nanos);
 * `horizons` and `fan` are the same in dollars, for display.
 * @module
 */
import { z } from 'zod';
import { HORIZON_IDS } from '../../forecast/types';
import { epochMs, nanos, probability, timestamp, usd } from './common';

const horizonId = z.enum(HORIZON_IDS).meta({
  description: 'restOfDay, restOfMonth (UTC), next7Days or next30Days.',
  example: 'restOfMonth',
});
const budgetKind = z.enum(['daily', 'monthly']).meta({ description: 'Which hard cap.', example: 'monthly' });
const crossingProbability = probability(
  'Probability that some UTC day (month) touched by the horizon reaches the cap, spend to date included.',
);

/** One horizon of the core result, money in integer nanos (core/forecast `HorizonForecast`). */
export const horizonForecastSchema = z
  .strictObject({
    horizon: horizonId,
    start: epochMs('Start of the horizon (the time of the forecast), ms since the epoch.'),
    end: epochMs('End of the horizon, ms since the epoch.', 1_777_593_600_000),
    meanNanos: nanos('Mean projected spend between start and end.', 30_000_000_000),
    p50Nanos: nanos('Median projected spend.', 29_000_000_000),
    p95Nanos: nanos('95th percentile of projected spend.', 41_000_000_000),
    p99Nanos: nanos('99th percentile of projected spend.', 47_000_000_000),
    toDateNanos: nanos(
      'Spend already made in the period before start (today, or this month; else 0).',
      48_900_000_000,
    ),
    budgets: z
      .array(
        z.strictObject({
          budget: budgetKind,
          capNanos: nanos('The hard cap.', 100_000_000_000),
          probability: crossingProbability,
        }),
      )
      .meta({ description: 'One entry per configured hard cap.' }),
  })
  .meta({ description: 'One horizon of the simulation, in nanos.' });

/** The core simulation result (core/forecast `Forecast`). */
export const forecastResultSchema = z
  .strictObject({
    now: epochMs('Time the forecast was made at.'),
    iterations: z.int().min(1).meta({ description: 'Monte Carlo iterations (10,000).', example: 10_000 }),
    seed: z
      .int()
      .min(0)
      .meta({ description: 'Seed of the generator: same seed, same forecast.', example: 2_718_281_828 }),
    horizons: z.array(horizonForecastSchema),
    model: z
      .strictObject({
        callsPerDay: z.number().min(0).meta({ description: 'Expected calls per day.', example: 1440 }),
        meanCostNanos: z
          .number()
          .min(0)
          .meta({ description: 'Mean cost of one call, nanos.', example: 2_100_000 }),
        dayDispersion: z.number().min(0).meta({ description: 'Day-to-day dispersion φ.', example: 0.08 }),
        levelRelativeVariance: z
          .number()
          .min(0)
          .meta({ description: 'Relative variance of the estimated spend level.', example: 0.01 }),
      })
      .meta({ description: 'The fitted model, for display.' }),
  })
  .meta({ description: 'The core simulation result, money in integer nano-USD.' });

/** One horizon in dollars. */
export const forecastHorizonViewSchema = z
  .strictObject({
    horizon: horizonId,
    end: timestamp('End of the horizon.'),
    meanUsd: usd('Mean projected spend between now and end.', 30),
    p50Usd: usd('Median projected spend.', 29),
    p95Usd: usd('95th percentile of projected spend.', 41),
    p99Usd: usd('99th percentile of projected spend.', 47),
    toDateUsd: usd(
      'Spend already made in the period (today for restOfDay, this month for restOfMonth; else 0).',
      48.9,
    ),
    budgets: z
      .array(
        z.strictObject({
          budget: budgetKind,
          capUsd: usd('The hard cap.', 100),
          probability: crossingProbability,
        }),
      )
      .meta({ description: 'Probability of reaching each configured hard cap.' }),
  })
  .meta({ description: 'One horizon, in dollars.' });

/** One point of the daily fan: cumulative month spend at the end of a UTC day. */
export const forecastFanPointSchema = z
  .strictObject({
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .meta({ description: 'UTC day, YYYY-MM-DD.', example: '2026-04-30' }),
    p50Usd: usd('Median cumulative month spend.', 77.9),
    p95Usd: usd('95th percentile.', 89.9),
    p99Usd: usd('99th percentile.', 95.9),
  })
  .meta({ description: 'Cumulative month spend at the end of a UTC day (month-to-date + projection).' });

/** A forecast as the API serves it (lambdas/forecast/tasks.ts `ForecastView`). */
export const forecastViewSchema = z
  .strictObject({
    forecast: forecastResultSchema,
    horizons: z.array(forecastHorizonViewSchema).meta({ description: 'The horizons in dollars.' }),
    fan: z
      .array(forecastFanPointSchema)
      .meta({ description: 'One point per UTC day to the end of the month.' }),
  })
  .meta({ description: 'A Monte Carlo spend forecast (10,000 iterations).' });
export type ForecastViewBody = z.infer<typeof forecastViewSchema>;

export const forecastResponseSchema = z
  .strictObject({
    computedAt: timestamp('When the forecast was computed; null before the first run.').nullable(),
    forecast: forecastViewSchema.nullable(),
    run: z
      .strictObject({
        runId: z.string(),
        status: z.enum(['running', 'succeeded', 'failed']),
      })
      .optional()
      .meta({
        description:
          'Only when no forecast existed: the run this request started, still running after 5 s (poll GET /v1/forecast/runs/{runId}) or failed.',
      }),
  })
  .meta({ description: 'Response of GET /v1/forecast.' });
export type ForecastResponse = z.infer<typeof forecastResponseSchema>;

/** Response of POST /v1/forecast/run (202) and GET /v1/forecast/runs/{runId}. */
export const forecastRunSchema = z
  .strictObject({
    runId: z
      .string()
      .regex(/^od-[0-9a-f]{16}-[0-9a-f-]{36}$/)
      .meta({
        description: 'The run to poll.',
        example: 'od-5f2b1c0d9e8a7b6c-1b4e28ba-2fa1-11d2-883f-0016d3cca427',
      }),
    status: z
      .enum(['running', 'succeeded', 'failed'])
      .meta({ description: 'succeeded: GET /v1/forecast has the new forecast.' }),
    startedAt: timestamp('When the run started.'),
    stoppedAt: timestamp('When it finished; null while running.').nullable(),
  })
  .meta({ description: 'An on-demand forecast run (Monte Carlo, the same work as the hourly run).' });
export type ForecastRunBody = z.infer<typeof forecastRunSchema>;

/** Path of GET /v1/forecast/runs/{runId}. */
export const forecastRunPathSchema = z.strictObject({
  runId: z.string().min(1).max(80).meta({
    description: 'From POST /v1/forecast/run.',
    example: 'od-3f2a9c0d1b4e5f60-1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed',
  }),
});
