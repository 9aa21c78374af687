/**
 * The proxy: CloudFront → Lambda@Edge guard (origin-request) → relay Function URL (response streaming).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, DockerImage, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { PROVIDERS } from '../core/providers/catalog';
import { esbuildDefineFor } from '../lambdas/edge-guard/config';
import { ORIGIN_SECRET_HEADER } from '../lambdas/relay/headers';
import { itemKeys } from '../lambdas/shared/item-keys';
import type { SpendguardData } from './data';
import {
  acknowledgeRuntimeChoice,
  DEFAULT_LAMBDA_RUNTIME,
  esbuildTarget,
  type FunctionDefaults,
  lambdaEntry,
  REPO_ROOT,
  SpendguardFunction,
} from './function';
import { acknowledge, acknowledgeGeneratedWildcards } from './nag';
import type { SpendguardPipeline } from './pipeline';
import { LAMBDA_EDGE_REGIONS, nearestReplicaMap } from './regions';
import { EDGE_SECRET_REGION, type SpendguardSecrets } from './secrets';
import { cloudFrontWebAclArn } from './web-acl';

/** Every provider slug of the catalog: one CloudFront behaviour each (`/<slug>/*`). */
export const PROVIDER_SLUGS: readonly string[] = [
  ...PROVIDERS.map((p) => p.slug),
  // Bedrock's OpenAI-compatible mantle host has its own route (lambdas/relay/bedrock-route.ts).
  'bedrock-mantle',
];

/** Lambda@Edge's limit for an origin-request function is 50 MB zipped; Spendguard holds its guard under 1 MB. */
export const EDGE_BUNDLE_BUDGET_BYTES = 1024 * 1024;

/** A custom domain with its ACM certificate (which CloudFront requires in us-east-1). */
export interface CustomDomain {
  readonly domainName: string;
  readonly certificate: acm.ICertificate;
}

/** Properties of {@link SpendguardEdge}. */
export interface SpendguardEdgeProps {
  readonly data: SpendguardData;
  readonly secrets: SpendguardSecrets;
  readonly pipeline: SpendguardPipeline;
  /** Bucket for CloudFront standard (legacy) access logs; needs ACLs (object writer). */
  readonly accessLogsBucket: s3.IBucket;
  /**
   * The proxy's own domain. Without one, the distribution uses the default `*.cloudfront.net`
   * certificate, for which CloudFront does not apply the minimum TLS version (it allows TLSv1).
   * @default - the distribution's `*.cloudfront.net` domain
   */
  readonly domain?: CustomDomain;
  /**
   * Minimum TLS version for viewers (custom domain only). TLS 1.3 is negotiated whenever the client
   * supports it; `TLS_V1_3_2025` refuses TLS 1.2 clients altogether.
   * @default cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021
   */
  readonly minimumTlsVersion?: cloudfront.SecurityPolicyProtocol;
  /**
   * How long CloudFront waits for the relay's first byte and between two bytes (CloudFront's origin
   * "response timeout"). A non-streaming call that takes longer gets a 504 (docs/deploy.md, "Long
   * calls"). 1–120 s with CloudFront's default quota; up to 180 s after AWS raises the
   * "Response timeout per origin" quota for the account.
   * @default DEFAULT_ORIGIN_READ_TIMEOUT (120 s)
   */
  readonly originReadTimeout?: Duration;
  /**
   * How long CloudFront keeps an idle connection to the relay open for reuse. 1–60 s with the default
   * quota ("Keep-alive timeout per origin"), up to 180 s after an increase.
   * @default - the read timeout, capped at 60 s
   */
  readonly originKeepaliveTimeout?: Duration;
  /**
   * Most concurrent executions the relay may use, reserved for it: a flood through the proxy then
   * throttles the relay (CloudFront answers 502/503) instead of starving ingest, the API and the
   * consumers of the account's shared concurrency (docs/operations.md, "Relay concurrency").
   * `undefined` reserves nothing.
   * @default DEFAULT_RELAY_RESERVED_CONCURRENCY (100)
   */
  readonly relayReservedConcurrency?: number;
  /**
   * Requests per client IP per 5 minutes above which an AWS WAF rate-based rule blocks that IP at the
   * edge, before the guard or the relay run (an unauthenticated flood then costs WAF requests only).
   * WAF bills a web ACL and a rule per month plus per million requests (docs/deploy.md, "Costs").
   * @default - no web ACL
   */
  readonly proxyRateLimitPerIp?: number;
  /**
   * Retention of the guard's log groups (`/aws/lambda/us-east-1.<function>`) in every region of
   * LAMBDA_EDGE_REGIONS: Lambda@Edge writes its logs in the region that ran it, to groups it creates
   * without a retention.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly edgeLogRetention?: logs.RetentionDays;
  /**
   * Pins the origin-secret version CloudFront sends (the `VersionId` from `put-secret-value`). Changing
   * it is what makes CloudFormation re-resolve the header on rotation (docs/operations.md).
   * @default - the current version at the time the distribution was last updated
   */
  readonly originSecretVersionId?: string;
  /** Lifetime of the guard's cached flag lookups (part of the propagation bound). @default Duration.seconds(1) */
  readonly flagCacheTtl?: Duration;
  /** @default cloudfront.PriceClass.PRICE_CLASS_ALL */
  readonly priceClass?: cloudfront.PriceClass;
  readonly functionDefaults?: FunctionDefaults;
}

/**
 * The relay (regional, Function URL with auth type NONE, RESPONSE_STREAM), the edge guard (Lambda@Edge
 * in us-east-1, configuration baked in at build, no environment variables) and the proxy distribution
 * with one behaviour per provider slug.
 *
 * Why the Function URL has auth type NONE (design decision 2): Origin Access Control would SigV4-sign
 * the origin request, overwriting the viewer's `Authorization` header, which carries the provider
 * credential, and requiring `x-amz-content-sha256` on every POST. Instead CloudFront adds a secret custom
 * header that the relay compares in constant time; requests without it are refused before any work.
 *
 * The secret reaches CloudFront as a plain custom header value: the template holds only a Secrets
 * Manager dynamic reference (`{{resolve:secretsmanager:…}}`), which CloudFormation resolves at deploy,
 * but the value is then visible to anyone allowed `cloudfront:GetDistributionConfig`. That is the
 * trade-off accepted here (no rotation custom resource); docs/operations.md gives the rotation steps.
 */
export class SpendguardEdge extends Construct {
  public readonly relayFunction: SpendguardFunction;
  public readonly relayUrl: lambda.FunctionUrl;
  public readonly guardFunction: cloudfront.experimental.EdgeFunction;
  public readonly distribution: cloudfront.Distribution;
  /** The configuration baked into the guard's bundle. */
  public readonly guardConfig: Record<string, unknown>;
  /** The proxy's base URL (`https://<domain>`, no trailing slash). */
  public readonly url: string;

  constructor(scope: Construct, id: string, props: SpendguardEdgeProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { data, secrets, pipeline } = props;
    const defaults = props.functionDefaults ?? {};
    const runtime = defaults.runtime ?? DEFAULT_LAMBDA_RUNTIME;

    // Relay: key check (GetItem + pepper), one event per request (PutRecords), origin secret.
    this.relayFunction = new SpendguardFunction(this, 'Relay', {
      name: 'relay',
      description: 'Proxy origin: forwards to the provider, streams the response back, records one event',
      memorySize: 1024,
      // Long generations stream for minutes (64k–128k output tokens take longer than 5): Lambda's maximum.
      // CloudFront's read timeout bounds only the gaps between bytes. A call still running near the end
      // is cut by the relay itself, settled and recorded (lambda-adapter.ts, RELAY_DEADLINE_MARGIN_MS).
      timeout: Duration.minutes(15),
      reservedConcurrentExecutions:
        'relayReservedConcurrency' in props
          ? props.relayReservedConcurrency
          : DEFAULT_RELAY_RESERVED_CONCURRENCY,
      defaults,
    });
    // Budget admission (docs/admission.md): GetItem keys, org config and the budget counter; Query the day /
    // month aggregates. Writes: the budget counter, by conditional ADD (UpdateItem), in the counter's own
    // partition `BUDGET#ORG#<orgId>` (issue 21: IAM cannot narrow a grant by sort key, so the counter has a
    // partition no other item shares; config, rates and profile stay out of reach), and the shared loop
    // runs in theirs, `LOOPRUN#ORG#<orgId>` (layer 2 in line).
    data.bindDataTable(this.relayFunction, ['GetItem', 'Query']);
    data.bindDataPutsTo(
      this.relayFunction,
      [itemKeys.budgetCounter('*').pk, itemKeys.loopRun('*', '', '').pk],
      ['UpdateItem'],
    );
    // The kill flags, checked again at the origin (issue 19.5): one BatchGetItem per key and session a second.
    data.bindFlagsTable(this.relayFunction, ['BatchGetItem']);
    secrets.bindPepper(this.relayFunction);
    secrets.bindOriginSecret(this.relayFunction);
    pipeline.bindStream(this.relayFunction);
    this.relayUrl = this.relayFunction.addFunctionUrl({
      authType: lambda.FunctionUrlAuthType.NONE,
      invokeMode: lambda.InvokeMode.RESPONSE_STREAM,
    });

    // Guard: Lambda@Edge (x86_64 only, no environment variables, no X-Ray), configuration baked in.
    const flagCacheTtl = props.flagCacheTtl ?? Duration.seconds(1);
    const guardConfig = {
      flagsTableName: data.flagsTableName,
      replicaRegions: nearestReplicaMap(data.flagsTableRegions),
      homeRegion: stack.region,
      // Secrets Manager accepts the name as SecretId; the ARN's random suffix is unknown at synth.
      pepperSecretArn: secrets.pepperSecretName,
      pepperSecretRegion: EDGE_SECRET_REGION,
      cacheTtlMs: flagCacheTtl.toMilliseconds(),
    };
    this.guardConfig = guardConfig;
    this.guardFunction = new cloudfront.experimental.EdgeFunction(this, 'Guard', {
      stackId: `${stack.stackName}-edge`,
      description: 'Spendguard edge guard: kill-flag check before any provider contact (fails open)',
      runtime,
      architecture: lambda.Architecture.X86_64,
      handler: 'index.handler',
      memorySize: 256,
      timeout: Duration.seconds(5),
      // CloudFront keeps running a replaced version at edge locations for hours; Lambda refuses to
      // delete a version that is still replicated, so CloudFormation must not try (docs/operations.md,
      // "Edge function versions" gives the cleanup).
      currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
      code: edgeBundleCode(lambdaEntry('edge-guard'), {
        define: esbuildDefineFor(guardConfig),
        target: esbuildTarget(runtime),
      }),
    });
    this.guardFunction.addToRolePolicy(
      new iam.PolicyStatement({
        // One BatchGetItem per (key, session): the key, organization and session items (kill scopes).
        actions: ['dynamodb:BatchGetItem'],
        resources: data.flagsTableArnsInAllRegions(),
      }),
    );
    this.guardFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [secrets.edgePepperArnPattern()],
      }),
    );
    acknowledge(
      this.guardFunction.lambda,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'Lambda@Edge writes its logs in whichever region ran it, to log groups named after that region (/aws/lambda/us-east-1.<fn>); the basic execution policy is the documented way to allow that.',
    );
    acknowledgeRuntimeChoice(this.guardFunction.lambda, runtime);
    this.retainEdgeLogs(props.edgeLogRetention ?? logs.RetentionDays.ONE_MONTH);

    // The proxy distribution: every provider slug goes through the guard to the relay, nothing cached.
    const readTimeout = props.originReadTimeout ?? DEFAULT_ORIGIN_READ_TIMEOUT;
    const origin = new origins.FunctionUrlOrigin(this.relayUrl, {
      readTimeout,
      keepaliveTimeout:
        props.originKeepaliveTimeout ?? Duration.seconds(Math.min(readTimeout.toSeconds(), 60)),
      customHeaders: {
        [ORIGIN_SECRET_HEADER]: secrets.originSecretHeaderValue(props.originSecretVersionId),
      },
    });
    const behavior: cloudfront.BehaviorOptions = {
      origin,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachedMethods: cloudfront.CachedMethods.CACHE_GET_HEAD,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      compress: false,
      edgeLambdas: [
        {
          functionVersion: this.guardFunction,
          eventType: cloudfront.LambdaEdgeEventType.ORIGIN_REQUEST,
          includeBody: false,
        },
      ],
    };
    const additionalBehaviors: Record<string, cloudfront.BehaviorOptions> = {};
    for (const slug of PROVIDER_SLUGS) additionalBehaviors[`/${slug}/*`] = behavior;

    this.distribution = new cloudfront.Distribution(this, 'Proxy', {
      comment: 'Spendguard proxy',
      // Unknown paths still go through the guard; the relay answers 404 for them.
      defaultBehavior: behavior,
      additionalBehaviors,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: props.priceClass ?? cloudfront.PriceClass.PRICE_CLASS_ALL,
      enableIpv6: true,
      domainNames: props.domain ? [props.domain.domainName] : undefined,
      certificate: props.domain?.certificate,
      minimumProtocolVersion: props.domain
        ? (props.minimumTlsVersion ?? cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021)
        : undefined,
      // No standard logging: its log lines always carry the query string, and Gemini clients send their
      // provider key as `?key=…` (15.9). The relay records every call (without credentials) as an event.
      enableLogging: false,
      webAclId:
        props.proxyRateLimitPerIp === undefined ? undefined : this.rateLimitWebAcl(props.proxyRateLimitPerIp),
    });
    this.url = `https://${props.domain?.domainName ?? this.distribution.distributionDomainName}`;
    acknowledgeDistribution(
      this.distribution,
      props.domain !== undefined,
      'proxy',
      props.proxyRateLimitPerIp,
    );
    acknowledge(
      this.distribution,
      'AwsSolutions-CFR3',
      "Standard logs always include the query string, where Gemini clients put their provider key (?key=…); keys must never be logged. Every proxied call is recorded by the relay as a telemetry event (no credentials), and CloudFront's request metrics remain.",
    );
  }

  /** The stack holding the guard: EdgeFunction's us-east-1 stack, or this one when it is in us-east-1. */
  public edgeStack(): Stack {
    return Stack.of(this.guardFunction.lambda);
  }

  /**
   * Log groups with a retention in every region where the guard can run, created before the guard's
   * first log line there (Lambda@Edge would create them without one). CDK's LogRetention custom resource
   * creates the group if missing and sets the retention, in any region; it lives in the guard's stack.
   */
  private retainEdgeLogs(retention: logs.RetentionDays): void {
    const edgeStack = this.edgeStack();
    const scope = edgeStack === Stack.of(this) ? this : edgeStack;
    const groupName = `/aws/lambda/${EDGE_SECRET_REGION}.${this.guardFunction.lambda.functionName}`;
    for (const region of LAMBDA_EDGE_REGIONS) {
      new logs.LogRetention(scope, `GuardLogRetention-${region}`, {
        logGroupName: groupName,
        logGroupRegion: region,
        retention,
      });
    }
    acknowledgeLogRetentionProvider(edgeStack);
  }

  /**
   * A CLOUDFRONT-scope web ACL with one rate-based rule, created in the guard's stack (us-east-1, where
   * AWS WAF accepts that scope) and read back here (lib/web-acl.ts).
   */
  private rateLimitWebAcl(limit: number): string {
    const parameterName = `/spendguard/${Stack.of(this).stackName}/proxy-web-acl-arn`;
    return cloudFrontWebAclArn(this, {
      edgeStack: this.edgeStack(),
      ids: { acl: 'ProxyRateLimit', parameter: 'ProxyWebAclArn', reader: 'ProxyWebAclArnReader' },
      parameterName,
      // Re-read whenever the limit changes.
      readKey: `${parameterName}:${limit}`,
      acl: {
        description: 'Spendguard proxy: blocks a client IP above the rate limit',
        defaultAction: { allow: {} },
        visibilityConfig: {
          cloudWatchMetricsEnabled: true,
          metricName: 'SpendguardProxyWebAcl',
          sampledRequestsEnabled: false,
        },
        rules: [
          {
            name: 'RateLimitPerIp',
            priority: 0,
            action: { block: {} },
            statement: { rateBasedStatement: { limit, aggregateKeyType: 'IP', evaluationWindowSec: 300 } },
            visibilityConfig: {
              cloudWatchMetricsEnabled: true,
              metricName: 'SpendguardProxyRateLimit',
              sampledRequestsEnabled: false,
            },
          },
        ],
      },
    });
  }
}

/** The default of {@link SpendguardEdgeProps.originReadTimeout}: the most CloudFront allows without a quota increase. */
export const DEFAULT_ORIGIN_READ_TIMEOUT = Duration.seconds(120);

/**
 * The default of {@link SpendguardEdgeProps.relayReservedConcurrency}: 100 calls in flight. By Little's
 * law that serves 10 calls/s of 10 s each; the account keeps the rest of its concurrency (1,000 by
 * default; Lambda requires 100 left unreserved) for ingest, the API and the consumers.
 */
export const DEFAULT_RELAY_RESERVED_CONCURRENCY = 100;

/** The singleton Lambda of CDK's LogRetention custom resource, acknowledged once per stack. */
function acknowledgeLogRetentionProvider(stack: Stack): void {
  for (const child of stack.node.children) {
    if (!child.node.id.startsWith('LogRetention')) continue;
    acknowledge(
      child,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "CDK's LogRetention handler (a custom resource that only runs at deploy) uses the basic execution policy for its own logs.",
    );
    acknowledgeGeneratedWildcards(
      child,
      "logs:PutRetentionPolicy / logs:CreateLogGroup on the guard's regional log groups, whose names and regions CDK's LogRetention handler policy cannot narrow (it is generated by aws-cdk-lib).",
    );
  }
}

/** The acknowledgements every Spendguard distribution shares, with their reasons. */
export function acknowledgeDistribution(
  distribution: cloudfront.Distribution,
  customDomain: boolean,
  what: 'proxy' | 'dashboard' | 'api',
  proxyRateLimitPerIp?: number,
): void {
  acknowledge(
    distribution,
    'AwsSolutions-CFR1',
    `The ${what} serves customers' own applications and people wherever they are; geo restriction is left to the deployer.`,
  );
  // The API's distribution always has its web ACL (it exists only when the API's WAF is on).
  if (what === 'dashboard' || (what === 'proxy' && proxyRateLimitPerIp === undefined)) {
    acknowledge(
      distribution,
      'AwsSolutions-CFR2',
      what === 'proxy'
        ? 'The optional WAF rate rule is off (prop proxyRateLimitPerIp): WAF bills per request, and model calls are large. Without it the edge guard checks only that Service-API-Key is well-formed (else 401) and looks up its kill flag (SUSPENDED: 429; THROTTLED: a token bucket); it cannot tell a real key from a random well-formed one. The relay verifies the key against the store and answers 401. An unauthenticated flood therefore costs guard and relay invocations (docs/security.md).'
        : "The dashboard is static files; its API calls go to the API's own distribution and web ACL (on by default, prop apiWaf), behind which API Gateway throttles and authorizes. A WAF web ACL can be attached by the deployer.",
    );
  }
  if (!customDomain) {
    acknowledge(
      distribution,
      'AwsSolutions-CFR4',
      'Without a custom domain CloudFront uses the default *.cloudfront.net certificate, whose security policy CloudFront fixes at TLSv1; pass a domain and certificate to enforce TLSv1.2_2021 or TLSv1.3_2025 (docs/deploy.md).',
    );
  }
}

/** Options of {@link edgeBundleCode}. */
export interface EdgeBundleOptions {
  /** esbuild `define` (the baked configuration). */
  readonly define: Readonly<Record<string, string>>;
  /** @default 'node22' */
  readonly target?: string;
}

/**
 * The edge function's code: one minified CommonJS file (`index.js`, AWS SDK included) bundled on this
 * machine with esbuild, so that `define` can bake the configuration in. `EdgeFunction` takes plain
 * `lambda.Code`, not `NodejsFunction` props. Skipped like every bundling step when the stack is not
 * being bundled (`cdk synth --exclusively`, tests).
 */
export function edgeBundleCode(entry: string, options: EdgeBundleOptions): lambda.Code {
  return lambda.Code.fromAsset(path.dirname(entry), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
      local: {
        tryBundle(outputDir: string): boolean {
          const result = buildSync({
            entryPoints: [entry],
            outfile: path.join(outputDir, 'index.js'),
            bundle: true,
            platform: 'node',
            format: 'cjs',
            target: options.target ?? 'node22',
            minify: true,
            legalComments: 'none',
            mainFields: ['module', 'main'],
            define: { ...options.define },
            absWorkingDir: REPO_ROOT,
            tsconfig: path.join(REPO_ROOT, 'tsconfig.json'),
            logLevel: 'error',
          });
          if (result.errors.length > 0 || !fs.existsSync(path.join(outputDir, 'index.js'))) {
            throw new Error(`esbuild failed for ${entry}`);
          }
          return true;
        },
      },
    },
  });
}
