import { forecastRunPathSchema } from '../../../core/schemas/api';
import { httpErrors, json } from '../../shared/http';
import type { Route } from './types';
import type { ForecastRun } from '../../forecast/runs';

/** GET /v1/forecast: the latest stored Monte Carlo forecast (computed on a schedule, on demand, or by the first read). */
export const getForecast: Route = {
  auth: 'any',
  handle: async ({ principal, services, logger }, deps) => {
    const stored = await services.forecasts.get(principal.orgId);
    if (stored !== undefined) return json(200, stored);
    // None yet (a new organization, before the schedule's first run): compute one now and wait for it a
    // few seconds, so the first reader gets P50/P95/P99 rather than nothing; a longer run answers null
    // with the run to poll.
    const none = { computedAt: null, forecast: null };
    let run: ForecastRun;
    try {
      run = await deps.forecastRuns.start(principal.orgId);
    } catch (err) {
      // The schedule computes it later; a reader is never failed for a forecast not yet made.
      logger.warn('could not start a first forecast', { error: err as Error });
      return json(200, none);
    }
    const deadline = Date.now() + FIRST_FORECAST_WAIT_MS;
    let status = run.status;
    while (status === 'running' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, FIRST_FORECAST_POLL_MS));
      status = (await deps.forecastRuns.get(principal.orgId, run.runId))?.status ?? 'failed';
    }
    const computed = status === 'succeeded' ? await services.forecasts.get(principal.orgId) : undefined;
    return json(200, computed ?? { ...none, run: { runId: run.runId, status } });
  },
};

/** How long the first `GET /v1/forecast` of an organization waits for the forecast it starts. */
const FIRST_FORECAST_WAIT_MS = 5_000;
const FIRST_FORECAST_POLL_MS = 100;

/**
 * POST /v1/forecast/run: starts a recomputation with the scheduled job's limits (the forecast state
 * machine in AWS), 202 `{ runId, status: 'running', … }`; poll GET /v1/forecast/runs/{runId}, then read
 * GET /v1/forecast.
 */
export const runForecast: Route = {
  auth: 'person',
  role: 'member',
  handle: async ({ principal }, deps) => json(202, await deps.forecastRuns.start(principal.orgId)),
};

/** GET /v1/forecast/runs/{runId}: a run's status; 404 for an unknown run or another organization's. */
export const getForecastRun: Route = {
  auth: 'person',
  handle: async ({ principal, event }, deps) => {
    const path = forecastRunPathSchema.safeParse(event.pathParameters ?? {});
    if (!path.success) throw httpErrors.badRequest('runId: expected the runId from POST /v1/forecast/run');
    const run = await deps.forecastRuns.get(principal.orgId, path.data.runId);
    if (!run) throw httpErrors.notFound(`no forecast run ${path.data.runId} in this organization`);
    return json(200, run);
  },
};
