import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import {
  idTokenVerifierFromEnvironment,
  logger,
  metrics,
  servicesFromEnvironment,
} from '../shared/environment';
import { createEnforceHandler } from './handler';

/** AWS entry: POST /api/guardrails/enforce. */
export const handler = createEnforceHandler({
  services: servicesFromEnvironment(),
  idTokens: idTokenVerifierFromEnvironment(),
  logger,
  metrics,
}).use(logMetrics(metrics));
