/**
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document of the API, generated from these schemas
 * (lambdas/api/openapi.ts). Described here only by its required top-level members.
 * @module
 */
import { z } from 'zod';

export const openApiDocumentSchema = z
  .looseObject({
    openapi: z.literal('3.1.0').meta({ description: 'OpenAPI version.', example: '3.1.0' }),
    info: z
      .looseObject({
        title: z.string().meta({ description: 'Name of the API.', example: 'Spendguard API' }),
        version: z.string().meta({ description: 'Deployed version of the service.', example: '0.1.0' }),
      })
      .meta({ description: 'About the API.' }),
    paths: z
      .record(z.string(), z.looseObject({}))
      .meta({ description: 'Every endpoint, by path.', example: { '/v1/health': {} } }),
  })
  .meta({ description: 'An OpenAPI 3.1 document.' });
export type OpenApiDocumentBody = z.infer<typeof openApiDocumentSchema>;
