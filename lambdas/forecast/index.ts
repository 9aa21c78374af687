import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { logger, servicesFromEnvironment } from '../shared/environment';
import { forecastBatch, loadOrganizations, simulateOrganization, storeForecast } from './tasks';

const orgId = z.string().min(1).max(256);
const inputSchema = z.discriminatedUnion('task', [
  z.object({
    task: z.literal('load'),
    // The execution's input: `{}` from the hourly schedule, `{ orgId }` from POST /v1/forecast/run.
    input: z.object({ orgId: orgId.optional() }).passthrough().default({}),
    executionName: z.string().min(1).max(80),
  }),
  z.object({ task: z.literal('forecastBatch'), orgIds: z.array(orgId).max(1_000) }),
  z.object({ task: z.literal('simulate'), orgId }),
  z.object({ task: z.literal('store'), orgId, view: z.any() }),
]);

const s3 = new S3Client({});

/**
 * AWS entry for the forecast state machine (lib/forecast.ts):
 * - `{task: 'load', input, executionName}` writes the organizations to forecast (all of them, or the
 *   one of an on-demand run) as a JSON array to `FORECAST_RUNS_BUCKET` and returns `{bucket, key, count}`
 *   for the Distributed Map's item reader (a list of 100,000 ids is over Step Functions' 256 KB state limit);
 * - `{task: 'forecastBatch', orgIds}` → `{stored, failed}` (one child execution's batch);
 * - `{task: 'simulate', orgId}` / `{task: 'store', orgId, view}`: the single steps, for manual runs.
 */
export const handler = async (input: unknown) => {
  const services = servicesFromEnvironment();
  const task = inputSchema.parse(input);
  switch (task.task) {
    case 'load': {
      const bucket = process.env.FORECAST_RUNS_BUCKET;
      if (!bucket) throw new Error('environment variable FORECAST_RUNS_BUCKET is not set');
      const orgIds = task.input.orgId ? [task.input.orgId] : (await loadOrganizations(services)).orgIds;
      const key = `org-lists/${task.executionName}.json`;
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: JSON.stringify(orgIds),
          ContentType: 'application/json',
        }),
      );
      return { bucket, key, count: orgIds.length };
    }
    case 'forecastBatch':
      return forecastBatch(services, task.orgIds, (failedOrg, err) =>
        logger.warn('forecast failed', { orgId: failedOrg, error: err as Error }),
      );
    case 'simulate':
      return { orgId: task.orgId, view: await simulateOrganization(services, task.orgId) };
    case 'store':
      await storeForecast(services, task.orgId, task.view);
      logger.info('forecast stored', { orgId: task.orgId });
      return { orgId: task.orgId, stored: true };
  }
};
