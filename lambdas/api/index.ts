import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { simulateOrganization, storeForecast } from '../forecast/tasks';
import {
  idTokenVerifierFromEnvironment,
  logger,
  metrics,
  priceRegistryFromEnvironment,
  servicesFromEnvironment,
} from '../shared/environment';
import { createApiHandler } from './handler';

const services = servicesFromEnvironment();

/** AWS entry: every /v1 route of the HTTP API. POST /v1/forecast/run runs the forecast tasks in-process. */
export const handler = createApiHandler({
  services,
  idTokens: idTokenVerifierFromEnvironment(),
  registry: priceRegistryFromEnvironment(),
  logger,
  runForecast: async (orgId) => storeForecast(services, orgId, await simulateOrganization(services, orgId)),
  version: process.env.SPENDGUARD_VERSION ?? '0.1.0',
}).use(logMetrics(metrics));
