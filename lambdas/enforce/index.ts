import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import {
  idTokenVerifierFromEnvironment,
  logger,
  metrics,
  servicesFromEnvironment,
} from '../shared/environment';
import { originVerifyFromEnvironment } from '../shared/middleware/origin-verify';
import { createEnforceHandler } from './handler';

/** AWS entry: POST /api/guardrails/enforce (through CloudFront only when the API's WAF is on). */
export const handler = createEnforceHandler({
  services: servicesFromEnvironment(),
  idTokens: idTokenVerifierFromEnvironment(),
  logger,
  metrics,
  // Set by the stack from its replica regions (lib/api.ts); absent: the guards' cache lifetime alone.
  ...(process.env.FLAG_PROPAGATION_MS ? { flagPropagationMs: Number(process.env.FLAG_PROPAGATION_MS) } : {}),
})
  .use(logMetrics(metrics))
  .use(originVerifyFromEnvironment(metrics));
