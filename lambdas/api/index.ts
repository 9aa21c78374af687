import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';
import { StepFunctionsForecastRuns } from '../forecast/runs';
import {
  idTokenVerifierFromEnvironment,
  logger,
  metrics,
  priceRegistryFromEnvironment,
  servicesFromEnvironment,
} from '../shared/environment';
import { originVerifyFromEnvironment } from '../shared/middleware/origin-verify';
import { createApiHandler } from './handler';
import { lambdaReconciliationInvoker } from './reconciliation-invoker';

const services = servicesFromEnvironment();

/**
 * AWS entry: every /v1 route of the HTTP API. POST /v1/forecast/run starts the forecast state machine
 * (`FORECAST_STATE_MACHINE_ARN`) for the caller's organization; POST /v1/reconciliation/run invokes the
 * reconciliation function (`RECONCILIATION_FUNCTION_NAME`; without it the route answers 503). With
 * `ORIGIN_SECRET_ARN` (the API's WAF on) only requests through CloudFront are served.
 */
export const handler = createApiHandler({
  services,
  idTokens: idTokenVerifierFromEnvironment(),
  registry: priceRegistryFromEnvironment(),
  logger,
  forecastRuns: new StepFunctionsForecastRuns(
    new SFNClient({}),
    process.env.FORECAST_STATE_MACHINE_ARN ?? 'FORECAST_STATE_MACHINE_ARN is not set',
  ),
  ...(process.env.RECONCILIATION_FUNCTION_NAME
    ? {
        runReconciliation: lambdaReconciliationInvoker(
          new LambdaClient({}),
          process.env.RECONCILIATION_FUNCTION_NAME,
        ),
      }
    : {}),
  version: process.env.SPENDGUARD_VERSION ?? '0.1.0',
})
  .use(logMetrics(metrics))
  .use(originVerifyFromEnvironment(metrics));
