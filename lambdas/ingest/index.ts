import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { logger, metrics, servicesFromEnvironment } from '../shared/environment';
import { createIngestHandler } from './handler';

/** AWS entry: POST /api/ingest and POST /v1/events. */
export const handler = createIngestHandler({ services: servicesFromEnvironment(), logger, metrics }).use(
  logMetrics(metrics),
);
