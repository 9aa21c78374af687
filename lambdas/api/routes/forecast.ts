import { forecastRunPathSchema } from '../../../core/schemas/api';
import { httpErrors, json } from '../../shared/http';
import type { Route } from './types';

/** GET /v1/forecast: the latest stored Monte Carlo forecast (computed hourly, or on demand). */
export const getForecast: Route = {
  auth: 'any',
  handle: async ({ principal, services }) => {
    const stored = await services.forecasts.get(principal.orgId);
    return json(200, stored ?? { computedAt: null, forecast: null });
  },
};

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
