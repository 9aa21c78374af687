/**
 * The error body of every endpoint (docs/api.md): `{ error: { code, message, problems? } }`, where each
 * problem names where in the request it is (`events[3].usage.prompt_tokens`, `limit`, '' for the body).
 * The codes are those of `lambdas/shared/http.ts` (its test checks that they stay the same).
 * @module
 */
import { z } from 'zod';

/** Machine-readable error codes, one per HTTP status the API uses for errors. */
export const ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'scope_missing',
  'role_required',
  'not_found',
  'conflict',
  'payload_too_large',
  'rate_limited',
  'unavailable',
  'internal_error',
] as const;

export const errorCodeSchema = z.enum(ERROR_CODES).meta({
  description:
    'invalid_request (400), unauthorized (401), forbidden (403), scope_missing (403: the API key lacks the scope the route needs), role_required (403: the person’s role may not do this), not_found (404), conflict (409: another organization already holds what the request claims), payload_too_large (413), rate_limited (429), unavailable (503), internal_error (500).',
  example: 'invalid_request',
});
export type ErrorCode = z.infer<typeof errorCodeSchema>;

/** One problem in a request (the same shape as `FieldIssue` of core/schemas/issues). */
export const problemSchema = z
  .strictObject({
    path: z.string().meta({
      description:
        "Where in the request: a body path such as events[3].usage.prompt_tokens, a query parameter, or '' for the whole body.",
      example: 'events[3].usage.prompt_tokens',
    }),
    message: z.string().meta({
      description: 'What is wrong (never echoes the rejected value).',
      example: 'required (expected a whole number of tokens)',
    }),
  })
  .meta({ description: 'One problem in a request.' });
export type Problem = z.infer<typeof problemSchema>;

export const errorBodySchema = z
  .strictObject({
    error: z.strictObject({
      type: z
        .enum(['permission_error', 'forbidden'])
        .meta({
          description:
            'Present with scope_missing (permission_error: a valid key without the permission) and with role_required (forbidden: a person whose role may not do this).',
        })
        .optional(),
      code: errorCodeSchema,
      message: z
        .string()
        .meta({ description: 'What went wrong, for people.', example: 'invalid ingest request' }),
      problems: z
        .array(problemSchema)
        .max(50)
        .meta({ description: 'Present on 400: each problem and where it is (at most 50).' })
        .optional(),
    }),
  })
  .meta({ description: 'The body of every error response.' });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * The body API Gateway itself sends when its JWT authorizer refuses a request (the `person` routes and
 * `POST /api/guardrails/enforce` without a valid ID token): not the service's error body.
 */
export const gatewayErrorSchema = z
  .strictObject({
    message: z.string().meta({ description: "The gateway's message.", example: 'Unauthorized' }),
  })
  .meta({ description: "The gateway's own error body (JWT authorizer refusals)." });
export type GatewayError = z.infer<typeof gatewayErrorSchema>;
