/**
 * The proxy: CloudFront → Lambda@Edge guard (origin-request) → relay Function URL (response streaming).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, DockerImage, Duration, SecretValue, Stack } from 'aws-cdk-lib';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { PROVIDERS } from '../core/providers/catalog';
import { esbuildDefineFor } from '../lambdas/edge-guard/config';
import { ORIGIN_SECRET_HEADER } from '../lambdas/relay/headers';
import type { SpendguardData } from './data';
import {
  acknowledgeRuntimeChoice,
  esbuildTarget,
  type FunctionDefaults,
  lambdaEntry,
  REPO_ROOT,
  SpendguardFunction,
} from './function';
import { acknowledge } from './nag';
import type { SpendguardPipeline } from './pipeline';
import { nearestReplicaMap } from './regions';
import { EDGE_SECRET_REGION, type SpendguardSecrets } from './secrets';

/** Every provider slug of the catalog: one CloudFront behaviour each (`/<slug>/*`). */
export const PROVIDER_SLUGS: readonly string[] = PROVIDERS.map((p) => p.slug);

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
   * How long CloudFront waits for the relay's first byte and between bytes. 1–120 s by default;
   * up to 180 s after a quota increase ("Response timeout per origin").
   * @default Duration.seconds(60)
   */
  readonly originReadTimeout?: Duration;
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
    const runtime = defaults.runtime ?? lambda.Runtime.NODEJS_20_X;

    // Relay: key check (GetItem + pepper), one event per request (PutRecords), origin secret.
    this.relayFunction = new SpendguardFunction(this, 'Relay', {
      name: 'relay',
      description: 'Proxy origin: forwards to the provider, streams the response back, records one event',
      memorySize: 1024,
      // Long generations stream for minutes; CloudFront's read timeout bounds only the gaps between bytes.
      timeout: Duration.minutes(5),
      defaults,
    });
    // Budget admission (docs/admission.md): GetItem keys, org config and lease items; PutItem lease items
    // (conditional on their version); Query the day / month aggregates that seed a new lease item.
    data.bindDataTable(this.relayFunction, ['GetItem', 'PutItem', 'Query']);
    data.bindFlagsTable(this.relayFunction, []);
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
      code: edgeBundleCode(lambdaEntry('edge-guard'), {
        define: esbuildDefineFor(guardConfig),
        target: esbuildTarget(runtime),
      }),
    });
    this.guardFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:GetItem'],
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

    // The proxy distribution: every provider slug goes through the guard to the relay, nothing cached.
    const origin = new origins.FunctionUrlOrigin(this.relayUrl, {
      readTimeout: props.originReadTimeout ?? Duration.seconds(60),
      keepaliveTimeout: Duration.seconds(60),
      customHeaders: {
        [ORIGIN_SECRET_HEADER]: (props.originSecretVersionId
          ? SecretValue.secretsManager(secrets.originSecret.secretArn, {
              versionId: props.originSecretVersionId,
            })
          : secrets.originSecret.secretValue
        ).unsafeUnwrap(),
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
      enableLogging: true,
      logBucket: props.accessLogsBucket,
      logFilePrefix: 'cloudfront/proxy/',
    });
    this.url = `https://${props.domain?.domainName ?? this.distribution.distributionDomainName}`;
    acknowledgeDistribution(this.distribution, props.domain !== undefined, 'proxy');
  }
}

/** The acknowledgements every Spendguard distribution shares, with their reasons. */
export function acknowledgeDistribution(
  distribution: cloudfront.Distribution,
  customDomain: boolean,
  what: 'proxy' | 'dashboard',
): void {
  acknowledge(
    distribution,
    'AwsSolutions-CFR1',
    `The ${what} serves customers' own applications and people wherever they are; geo restriction is left to the deployer.`,
  );
  acknowledge(
    distribution,
    'AwsSolutions-CFR2',
    what === 'proxy'
      ? 'WAF would inspect (and bill for) every model request body; the proxy authenticates each request with an API key at the edge and the guard rate-limits runaway keys.'
      : 'The dashboard is static files; its API calls go to API Gateway (throttled, JWT-authorized). A WAF web ACL can be attached by the deployer.',
  );
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
  /** @default 'node20' */
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
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs20.x'),
      local: {
        tryBundle(outputDir: string): boolean {
          const result = buildSync({
            entryPoints: [entry],
            outfile: path.join(outputDir, 'index.js'),
            bundle: true,
            platform: 'node',
            format: 'cjs',
            target: options.target ?? 'node20',
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
