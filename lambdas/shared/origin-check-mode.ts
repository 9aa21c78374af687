/**
 * How the API's functions treat a request without CloudFront's origin secret (lib/api-waf.ts sets it,
 * lambdas/shared/middleware/origin-verify.ts reads it). A module of its own, without AWS SDK imports, so
 * that the CDK code can name it.
 */

/** `enforce`: refuse (403, or 503 while the secret cannot be read). `report`: count and serve (upgrades). */
export type OriginCheckMode = 'enforce' | 'report';

/** The environment variable that carries a non-default mode (absent: `enforce`). */
export const ORIGIN_CHECK_MODE_ENV = 'ORIGIN_CHECK_MODE';
