import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { HttpError, httpErrors } from '../http';
import { OriginCheck, type OriginSecretSource } from '../origin-check';
import { ORIGIN_CHECK_MODE_ENV, type OriginCheckMode } from '../origin-check-mode';
import { SecretsManagerVersions } from '../secrets';

type ApiMiddleware = MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

/** The 403 of a request that skipped the API's CloudFront distribution (and its web ACL). */
export const originRequired = (): HttpError =>
  new HttpError(
    403,
    'origin_required',
    'This API only accepts requests through its CloudFront URL (the ApiUrl output of the deployment).',
    undefined,
    undefined,
    'forbidden',
  );

/**
 * Refuses, before any handler work, a request without CloudFront's origin secret header: with the API's
 * WAF on, the `execute-api` URL stays reachable, and a call there would skip the web ACL's per-IP rate
 * rule and managed rules. 403 `origin_required` without the header (or a wrong one); 503 with
 * `Retry-After` while the secret cannot be read (fails closed, like the relay). Goes after
 * `httpErrorHandler`, which turns the thrown errors into JSON bodies.
 */
export function originVerify(
  source: OriginSecretSource,
  metrics: Metrics,
  options: { readonly mode?: OriginCheckMode; readonly now?: () => number } = {},
): ApiMiddleware {
  const check = new OriginCheck(source, {
    now: options.now ?? Date.now,
    onUnavailable: () => metrics.addMetric('ApiOriginUnavailable', MetricUnit.Count, 1),
  });
  const enforce = (options.mode ?? 'enforce') === 'enforce';
  return {
    before: async (request) => {
      const verdict = await check.allowed(request.event.headers ?? {});
      if (verdict === true) return;
      if (!enforce) {
        // An upgrade in progress: count what would be refused, serve it.
        if (verdict === false) metrics.addMetric('ApiOriginRefused', MetricUnit.Count, 1);
        return;
      }
      if (verdict === 'unavailable') {
        throw httpErrors.unavailable('the API cannot verify this request right now; retry shortly', 1);
      }
      metrics.addMetric('ApiOriginRefused', MetricUnit.Count, 1);
      throw originRequired();
    },
  };
}

/**
 * The AWS wiring: the check when the CDK set `ORIGIN_SECRET_ARN` (the API's WAF is on, lib/api-waf.ts),
 * in the mode of `ORIGIN_CHECK_MODE` (`report` during an upgrade, else `enforce`), else nothing (WAF off:
 * the API is called directly, as the local stack, which wires its handlers itself, always is). Current
 * and previous secret versions are accepted, as at the relay, so a rotation never locks CloudFront out.
 */
export function originVerifyFromEnvironment(metrics: Metrics): ApiMiddleware {
  const secretArn = process.env.ORIGIN_SECRET_ARN;
  if (!secretArn) return {};
  return originVerify(new SecretsManagerVersions(new SecretsManagerClient({}), secretArn), metrics, {
    mode: process.env[ORIGIN_CHECK_MODE_ENV] === 'report' ? 'report' : 'enforce',
  });
}
