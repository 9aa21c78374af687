/**
 * The API's WAF: a CloudFront distribution in front of the HTTP API with a CLOUDFRONT-scope web ACL (a
 * per-IP rate rule and AWS managed rule groups), because AWS WAF cannot be associated with an API
 * Gateway HTTP API. The `execute-api` URL stays reachable, so CloudFront adds the origin secret header
 * and every function behind a route refuses requests without it (lambdas/shared/middleware/origin-verify.ts).
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ORIGIN_CHECK_MODE_ENV, type OriginCheckMode } from '../lambdas/shared/origin-check-mode';
import { ORIGIN_SECRET_HEADER } from '../lambdas/relay/headers';
import type { SpendguardApi } from './api';
import { acknowledge } from './nag';
import { acknowledgeDistribution } from './edge';
import type { SpendguardSecrets } from './secrets';
import { cloudFrontWebAclArn } from './web-acl';

/**
 * The default of {@link SpendguardApiWafProps.rateLimitPerIp}: 10,000 requests per IP per 5 minutes
 * (33/s sustained). One address then takes at most a sixth of the default stage throttle (200/s), while
 * a NAT in front of 150 SDK processes (one flush per 5 s each, plus lease calls) stays under it.
 */
export const DEFAULT_API_RATE_LIMIT_PER_IP = 10_000;

/** The AWS managed rule groups on the API (vendor AWS; no subscription). */
export const API_MANAGED_RULE_GROUPS = [
  'AWSManagedRulesCommonRuleSet',
  'AWSManagedRulesKnownBadInputsRuleSet',
] as const;

/**
 * Rules of the common rule set that only count: `SizeRestrictions_BODY` blocks bodies over 8 KB, and an
 * ingest batch is up to 1 MB (lambdas/ingest/handler.ts MAX_BODY_BYTES), which the handler bounds itself.
 */
export const API_COUNTED_COMMON_RULES = ['SizeRestrictions_BODY'] as const;

/** Properties of {@link SpendguardApiWaf}. */
export interface SpendguardApiWafProps {
  readonly api: SpendguardApi;
  readonly secrets: SpendguardSecrets;
  /** The stack in us-east-1 where CLOUDFRONT-scope web ACLs can be created (the edge guard's). */
  readonly edgeStack: Stack;
  /** Requests per client IP per 5 minutes before the web ACL answers 429. @default DEFAULT_API_RATE_LIMIT_PER_IP */
  readonly rateLimitPerIp?: number;
  /**
   * What the functions behind the routes do with a request without the origin secret: `enforce` refuses
   * it (403); `report` only counts it (`ApiOriginRefused`) and serves it, for the upgrade of a deployment
   * whose clients still call the `execute-api` URL (docs/deploy.md, "Runbook: update").
   * @default 'enforce'
   */
  readonly originCheck?: OriginCheckMode;
  /** The origin-secret version CloudFront sends (shared with the proxy; docs/operations.md). @default - current */
  readonly originSecretVersionId?: string;
  /** @default cloudfront.PriceClass.PRICE_CLASS_ALL */
  readonly priceClass?: cloudfront.PriceClass;
}

/** The API's distribution, its web ACL and the origin check of the functions behind it. */
export class SpendguardApiWaf extends Construct {
  public readonly distribution: cloudfront.Distribution;
  /** The API's public base URL (`https://<id>.cloudfront.net`, no trailing slash). */
  public readonly url: string;
  public readonly rateLimitPerIp: number;

  constructor(scope: Construct, id: string, props: SpendguardApiWafProps) {
    super(scope, id);
    const { api, secrets } = props;
    this.rateLimitPerIp = props.rateLimitPerIp ?? DEFAULT_API_RATE_LIMIT_PER_IP;

    // Every route's function refuses a request without the header (fails closed if it cannot read it), or
    // during an upgrade only counts it.
    for (const fn of api.routeFunctions) {
      secrets.bindOriginSecret(fn);
      if (props.originCheck === 'report') fn.addEnvironment(ORIGIN_CHECK_MODE_ENV, 'report');
    }

    const origin = new origins.HttpOrigin(api.domainName, {
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      // API Gateway's integration timeout is 30 s (the api function's own is 29 s).
      readTimeout: Duration.seconds(30),
      customHeaders: {
        [ORIGIN_SECRET_HEADER]: secrets.originSecretHeaderValue(props.originSecretVersionId),
      },
    });

    const parameterName = `/spendguard/${Stack.of(this).stackName}/api-web-acl-arn`;
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Spendguard API',
      defaultBehavior: {
        origin,
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
        // Nothing cached; every viewer header but Host (Authorization, Service-API-Key, Origin for CORS)
        // and every query string reach the API, whose host API Gateway needs as its own.
        cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
        originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        compress: false,
      },
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: props.priceClass ?? cloudfront.PriceClass.PRICE_CLASS_ALL,
      enableIpv6: true,
      enableLogging: false,
      webAclId: cloudFrontWebAclArn(this, {
        edgeStack: props.edgeStack,
        ids: { acl: 'ApiWebAcl', parameter: 'ApiWebAclArn', reader: 'ApiWebAclArnReader' },
        parameterName,
        readKey: `${parameterName}:${this.rateLimitPerIp}`,
        acl: apiWebAcl(this.rateLimitPerIp),
      }),
    });
    this.url = `https://${this.distribution.distributionDomainName}`;
    acknowledgeDistribution(this.distribution, false, 'api');
    acknowledge(
      this.distribution,
      'AwsSolutions-CFR3',
      "Every request is in the API stage's access log (request id, route, status, latency; no query string, where list cursors travel). CloudFront's request metrics and the web ACL's metrics remain.",
    );
  }
}

/**
 * The API's web ACL: per-IP rate rule first (a flood costs WAF requests only), then the AWS managed
 * common and known-bad-inputs rule groups. A rate-limited client gets a 429 with a JSON body (the SDK
 * backs off on 429); the managed groups block with WAF's default 403.
 */
export function apiWebAcl(rateLimitPerIp: number): Omit<wafv2.CfnWebACLProps, 'scope'> {
  // No sampled requests: they keep request headers, and API keys and ID tokens travel in headers.
  const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
    cloudWatchMetricsEnabled: true,
    metricName,
    sampledRequestsEnabled: false,
  });
  return {
    description: 'Spendguard API: per-IP rate limit and AWS managed rules',
    defaultAction: { allow: {} },
    visibilityConfig: visibility('SpendguardApiWebAcl'),
    customResponseBodies: {
      rateLimited: {
        contentType: 'APPLICATION_JSON',
        content: JSON.stringify({
          error: {
            code: 'rate_limited',
            message: 'too many requests from this IP address; retry in a few minutes',
          },
        }),
      },
    },
    rules: [
      {
        name: 'RateLimitPerIp',
        priority: 0,
        action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: 'rateLimited' } } },
        statement: {
          rateBasedStatement: { limit: rateLimitPerIp, aggregateKeyType: 'IP', evaluationWindowSec: 300 },
        },
        visibilityConfig: visibility('SpendguardApiRateLimit'),
      },
      ...API_MANAGED_RULE_GROUPS.map((name, i) => ({
        name,
        priority: i + 1,
        overrideAction: { none: {} },
        statement: {
          managedRuleGroupStatement: {
            vendorName: 'AWS',
            name,
            ruleActionOverrides:
              name === 'AWSManagedRulesCommonRuleSet'
                ? API_COUNTED_COMMON_RULES.map((rule) => ({ name: rule, actionToUse: { count: {} } }))
                : undefined,
          },
        },
        visibilityConfig: visibility(`SpendguardApi${name.replace('AWSManagedRules', '')}`),
      })),
    ],
  };
}
