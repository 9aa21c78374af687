import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { logger, metrics, servicesFromEnvironment } from '../shared/environment';
import { originVerifyFromEnvironment } from '../shared/middleware/origin-verify';
import { createIngestHandler } from './handler';

/** AWS entry: POST /api/ingest and POST /v1/events (through CloudFront only when the API's WAF is on). */
export const handler = createIngestHandler({ services: servicesFromEnvironment(), logger, metrics })
  .use(logMetrics(metrics))
  .use(originVerifyFromEnvironment(metrics));
