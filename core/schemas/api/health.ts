/**
 * `GET /v1/health`: the service answers and can read its tables. 200 with `status: "ok"`, or 503 with
 * `status: "degraded"` and the failed check: the same body either way.
 * @module
 */
import { z } from 'zod';
import { timestamp } from './common';

export const healthResponseSchema = z
  .strictObject({
    status: z.enum(['ok', 'degraded']).meta({ description: 'ok (200) or degraded (503).', example: 'ok' }),
    version: z.string().meta({ description: 'Deployed version of the service.', example: '0.1.0' }),
    time: timestamp('Server time.'),
    checks: z
      .strictObject({
        dynamodb: z
          .enum(['ok', 'unavailable'])
          .meta({ description: 'Whether the data table can be read.', example: 'ok' }),
      })
      .meta({ description: 'One entry per dependency checked.' }),
  })
  .meta({ description: 'Response of GET /v1/health.' });
export type HealthResponse = z.infer<typeof healthResponseSchema>;
