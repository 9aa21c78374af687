import { json } from '../../shared/http';
import type { Route } from './types';

/** GET /v1/health: the service answers and can read its tables. Never a 5xx: a failed check is reported. */
export const getHealth: Route = {
  auth: 'public',
  handle: async ({ services, logger }, deps) => {
    let dynamodb: 'ok' | 'unavailable' = 'ok';
    try {
      await services.config.get('org_health_check');
    } catch (err) {
      logger.warn('health check: data table unavailable', { error: err as Error });
      dynamodb = 'unavailable';
    }
    return json(dynamodb === 'ok' ? 200 : 503, {
      status: dynamodb === 'ok' ? 'ok' : 'degraded',
      version: deps.version,
      time: new Date(services.now()).toISOString(),
      checks: { dynamodb },
    });
  },
};
