import { json } from '../../shared/http';
import type { Route } from './types';

/** GET /v1/forecast: the latest stored Monte Carlo forecast (computed hourly, or on demand). */
export const getForecast: Route = {
  auth: 'any',
  handle: async ({ principal, services }) => {
    const stored = await services.forecasts.get(principal.orgId);
    return json(200, stored ?? { computedAt: null, forecast: null });
  },
};

/** POST /v1/forecast/run: recompute now (the dashboard's refresh), then answer as GET. */
export const runForecast: Route = {
  auth: 'person',
  handle: async ({ principal, services }, deps) => {
    await deps.runForecast(principal.orgId);
    const stored = await services.forecasts.get(principal.orgId);
    return json(200, stored ?? { computedAt: null, forecast: null });
  },
};
