/**
 * Spendguard as one reusable construct: telemetry pipeline, HTTP API, edge proxy, forecast, dashboard,
 * observability and the weekly price refresh, wired together with least-privilege grants.
 */
import { Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { type ApiThrottle, SpendguardApi } from './api';
import type { OriginCheckMode } from '../lambdas/shared/origin-check-mode';
import { SpendguardApiWaf } from './api-waf';
import { SpendguardDashboardHosting } from './dashboard-hosting';
import { SpendguardData } from './data';
import { type CustomDomain, DEFAULT_RELAY_RESERVED_CONCURRENCY, SpendguardEdge } from './edge';
import { SpendguardForecast } from './forecast';
import { DEFAULT_LAMBDA_RUNTIME, type FunctionDefaults } from './function';
import { SpendguardObservability } from './observability';
import type { OpenTelemetryExport } from './opentelemetry';
import { SpendguardPipeline } from './pipeline';
import { SpendguardPrices } from './prices';
import { SpendguardReconciliation } from './reconciliation';
import { REGION_PATTERN } from './regions';
import { retainedNames } from './retained-names';
import { SpendguardSecrets } from './secrets';

/** Viewer TLS policies Spendguard accepts: TLS 1.2 (2021 or 2025 ciphers) or TLS 1.3 only. */
export const ALLOWED_TLS_POLICIES: readonly cloudfront.SecurityPolicyProtocol[] = [
  cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
  cloudfront.SecurityPolicyProtocol.TLS_V1_2_2025,
  cloudfront.SecurityPolicyProtocol.TLS_V1_3_2025,
];

/**
 * CloudFront's origin response timeout: 1–120 s with the default quota, up to 180 s once AWS raises the
 * account's "Response timeout per origin" quota (Service Quotas, CloudFront, us-east-1).
 */
export const MAX_ORIGIN_READ_TIMEOUT = Duration.seconds(180);

/** CloudFront's origin keep-alive timeout: 1–60 s by default, up to 180 s with a quota increase. */
export const MAX_ORIGIN_KEEPALIVE_TIMEOUT = Duration.seconds(180);

/** Properties of {@link SpendGuardrails}. */
export interface SpendGuardrailsProps {
  /**
   * Regions of the Flags global table's replicas, besides the stack's own region. Choose regions near
   * your users' CloudFront regional edge caches; the edge guard reads the nearest copy.
   * @default [] (the guard reads the stack's region)
   */
  readonly replicaRegions?: readonly string[];
  /** Receives alarms and soft-cap warnings (SNS e-mail subscription). @default - no subscription */
  readonly alarmEmail?: string;
  /** The dashboard's domain and its us-east-1 ACM certificate. @default - `*.cloudfront.net` */
  readonly dashboardDomain?: CustomDomain;
  /** The proxy's domain and its us-east-1 ACM certificate. @default - `*.cloudfront.net` */
  readonly proxyDomain?: CustomDomain;
  /**
   * Minimum viewer TLS version of both distributions; applies only with a custom domain (the default
   * `*.cloudfront.net` certificate allows TLSv1 whatever is set). Never below TLS 1.2.
   * @default cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021
   */
  readonly minimumTlsVersion?: cloudfront.SecurityPolicyProtocol;
  /** Retention of every log group. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /**
   * What happens to stateful resources (tables, stream, secrets, buckets of prices and logs, user pool,
   * log groups) on stack deletion. RETAIN also turns on deletion protection of the tables and user pool.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /** Lambda runtime of every function, the edge guard included. @default DEFAULT_LAMBDA_RUNTIME (nodejs22.x) */
  readonly lambdaRuntime?: lambda.Runtime;
  /** Default-stage throttling of the HTTP API. @default { rateLimit: 200, burstLimit: 400 } */
  readonly apiThrottle?: ApiThrottle;
  /**
   * CloudFront's wait for the relay's first byte and between bytes (1–180 s; above 120 s needs the
   * "Response timeout per origin" quota raised). Non-streaming calls longer than this get a 504.
   * @default Duration.seconds(120)
   */
  readonly originReadTimeout?: Duration;
  /** CloudFront's idle keep-alive to the relay (1–180 s; above 60 s needs a quota increase). @default min(read timeout, 60 s) */
  readonly originKeepaliveTimeout?: Duration;
  /**
   * Concurrency reserved for (and capping) the relay, so a proxy flood cannot starve ingest, the API and
   * the consumers. `null` reserves nothing (accounts whose concurrency quota is below this + 100).
   * @default 100
   */
  readonly relayReservedConcurrency?: number | null;
  /**
   * The API behind a CloudFront distribution with an AWS WAF web ACL (per-IP rate rule, AWS managed
   * common and known-bad-inputs rules); calls to the `execute-api` URL are refused (403). `false`: the
   * API is called directly (no distribution, no ACL, no check; docs/deploy.md, "Costs").
   * @default true
   */
  readonly apiWaf?: boolean;
  /** Requests per client IP per 5 minutes before the API's web ACL answers 429. @default 10,000 */
  readonly apiRateLimitPerIp?: number;
  /**
   * With the API WAF on, calls that skip its distribution (to the `execute-api` URL): `enforce` refuses
   * them; `report` counts them (`ApiOriginRefused`) and serves them, for the deploys while existing
   * clients move to the new `ApiUrl` (docs/deploy.md, "Runbook: update").
   * @default 'enforce'
   */
  readonly apiOriginCheck?: OriginCheckMode;
  /** Requests per client IP per 5 minutes before an AWS WAF rate rule blocks it at the proxy. @default - no WAF */
  readonly proxyRateLimitPerIp?: number;
  /** TOTP required for every dashboard user. @default true */
  readonly mfaRequired?: boolean;
  /**
   * Generation of the fixed-name retained resources (Flags table, pepper secret, state machine log
   * group). Raise it to deploy again after `cdk destroy` left the previous ones behind.
   * @default 1
   */
  readonly resourceGeneration?: number;
  /** The origin-secret version CloudFront sends; set it when rotating (docs/operations.md). @default - current */
  readonly originSecretVersionId?: string;
  /** Lifetime of the edge guard's cached flag lookups. @default Duration.seconds(1) */
  readonly flagCacheTtl?: Duration;
  /** How long the stream keeps records (the redrive window of dead letters). @default Duration.days(7) */
  readonly streamRetention?: Duration;
  /** @default hourly */
  readonly forecastSchedule?: scheduler.ScheduleExpression;
  /** @default every Monday 06:00 UTC */
  readonly priceRefreshSchedule?: scheduler.ScheduleExpression;
  /** Cognito threat protection (Plus plan, billed per active user). @default false */
  readonly threatProtection?: boolean;
  /** The built dashboard; deployed when it exists. @default `dashboard/dist` */
  readonly dashboardAssetsPath?: string;
  /**
   * OpenTelemetry export of every priced call (GenAI spans, token, duration and cost metrics) and of
   * guardrail trips. `{}` sends to the account's CloudWatch OTLP endpoints, signed with the functions'
   * roles; see docs/opentelemetry.md.
   * @default - no export
   */
  readonly openTelemetry?: OpenTelemetryExport;
}

/**
 * Validates the props before anything is created; every message names the prop and the fix.
 * @throws Error on the first invalid prop.
 */
export function validateSpendGuardrailsProps(props: SpendGuardrailsProps, stackRegion: string): void {
  if (Token.isUnresolved(stackRegion)) {
    throw new Error(
      'SpendGuardrails needs a stack with an explicit region (env.region): the edge function and the global table are regional.',
    );
  }
  const replicas = props.replicaRegions ?? [];
  for (const region of replicas) {
    if (!REGION_PATTERN.test(region)) throw new Error(`replicaRegions: '${region}' is not a region name`);
  }
  if (replicas.includes(stackRegion)) {
    throw new Error(
      `replicaRegions must not contain the stack's own region (${stackRegion}): it holds the table itself`,
    );
  }
  if (new Set(replicas).size !== replicas.length) throw new Error('replicaRegions contains a region twice');
  if (props.minimumTlsVersion !== undefined) {
    if (!ALLOWED_TLS_POLICIES.includes(props.minimumTlsVersion)) {
      throw new Error(
        `minimumTlsVersion ${props.minimumTlsVersion} is below TLS 1.2; use one of ${ALLOWED_TLS_POLICIES.join(', ')}`,
      );
    }
    if (!props.proxyDomain && !props.dashboardDomain) {
      throw new Error(
        'minimumTlsVersion needs proxyDomain or dashboardDomain: with the default *.cloudfront.net certificate CloudFront ignores it',
      );
    }
  }
  const timeout = props.originReadTimeout;
  if (
    timeout !== undefined &&
    (timeout.toSeconds() < 1 || timeout.toSeconds() > MAX_ORIGIN_READ_TIMEOUT.toSeconds())
  ) {
    throw new Error(
      `originReadTimeout must be 1–180 seconds (above 120 only after AWS raises the "Response timeout per origin" quota); got ${timeout.toSeconds()}`,
    );
  }
  const keepalive = props.originKeepaliveTimeout;
  if (
    keepalive !== undefined &&
    (keepalive.toSeconds() < 1 || keepalive.toSeconds() > MAX_ORIGIN_KEEPALIVE_TIMEOUT.toSeconds())
  ) {
    throw new Error(
      `originKeepaliveTimeout must be 1–180 seconds (above 60 only after a "Keep-alive timeout per origin" quota increase); got ${keepalive.toSeconds()}`,
    );
  }
  const reserved = props.relayReservedConcurrency;
  if (reserved !== undefined && reserved !== null && (!Number.isInteger(reserved) || reserved < 1)) {
    throw new Error(
      `relayReservedConcurrency must be a positive integer or null (no reservation); got ${reserved}`,
    );
  }
  const rate = props.proxyRateLimitPerIp;
  if (rate !== undefined && (!Number.isInteger(rate) || rate < 10 || rate > 2_000_000_000)) {
    throw new Error(
      `proxyRateLimitPerIp must be an integer from 10 to 2,000,000,000 (AWS WAF's range); got ${rate}`,
    );
  }
  const apiRate = props.apiRateLimitPerIp;
  if (apiRate !== undefined && (!Number.isInteger(apiRate) || apiRate < 10 || apiRate > 2_000_000_000)) {
    throw new Error(
      `apiRateLimitPerIp must be an integer from 10 to 2,000,000,000 (AWS WAF's range); got ${apiRate}`,
    );
  }
  if (apiRate !== undefined && props.apiWaf === false) {
    throw new Error('apiRateLimitPerIp needs the API WAF: drop apiWaf: false, or the rate limit');
  }
  if (props.apiOriginCheck !== undefined && !['enforce', 'report'].includes(props.apiOriginCheck)) {
    throw new Error(`apiOriginCheck must be 'enforce' or 'report'; got '${String(props.apiOriginCheck)}'`);
  }
  if (props.apiOriginCheck !== undefined && props.apiWaf === false) {
    throw new Error(
      'apiOriginCheck needs the API WAF (without its distribution there is no origin to check)',
    );
  }
  if (props.flagCacheTtl !== undefined && props.flagCacheTtl.toMilliseconds() > 60_000) {
    throw new Error('flagCacheTtl above 60 seconds would let a suspended key through for that long');
  }
  if (props.alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(props.alarmEmail)) {
    throw new Error(`alarmEmail '${props.alarmEmail}' is not an e-mail address`);
  }
}

export class SpendGuardrails extends Construct {
  public readonly secrets: SpendguardSecrets;
  public readonly data: SpendguardData;
  public readonly observability: SpendguardObservability;
  public readonly prices: SpendguardPrices;
  public readonly pipeline: SpendguardPipeline;
  public readonly dashboardHosting: SpendguardDashboardHosting;
  public readonly api: SpendguardApi;
  public readonly edge: SpendguardEdge;
  /** The API's distribution and web ACL; undefined when `apiWaf` is false. */
  public readonly apiWaf: SpendguardApiWaf | undefined;
  public readonly forecast: SpendguardForecast;
  public readonly reconciliation: SpendguardReconciliation;
  /** The proxy's base URL: `{proxy_url}/<provider_slug>/<provider_path>` (spec 4.3). */
  public readonly proxyUrl: string;
  /**
   * The HTTP API's public base URL (`{base_url}` of spec 4.1 / 4.2, and the /v1 routes): its CloudFront
   * distribution's with the API WAF on (the default), else the `execute-api` URL.
   */
  public readonly apiUrl: string;
  public readonly dashboardUrl: string;

  constructor(scope: Construct, id: string, props: SpendGuardrailsProps = {}) {
    super(scope, id);
    validateSpendGuardrailsProps(props, Stack.of(this).region);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const names = retainedNames(Stack.of(this).stackName, props.resourceGeneration ?? 1);
    const functionDefaults: FunctionDefaults = {
      runtime: props.lambdaRuntime ?? DEFAULT_LAMBDA_RUNTIME,
      logRetention,
      logRemovalPolicy: removalPolicy,
    };

    this.secrets = new SpendguardSecrets(this, 'Secrets', {
      removalPolicy,
      pepperSecretName: names.pepperSecret,
    });
    this.data = new SpendguardData(this, 'Data', {
      replicaRegions: props.replicaRegions,
      removalPolicy,
      flagsTableName: names.flagsTable,
    });
    this.observability = new SpendguardObservability(this, 'Observability', {
      alarmEmail: props.alarmEmail,
      removalPolicy,
    });
    this.prices = new SpendguardPrices(this, 'Prices', {
      accessLogsBucket: this.observability.accessLogsBucket,
      schedule: props.priceRefreshSchedule,
      removalPolicy,
      functionDefaults,
    });
    this.pipeline = new SpendguardPipeline(this, 'Pipeline', {
      data: this.data,
      secrets: this.secrets,
      prices: this.prices,
      notifyTopic: this.observability.topic,
      streamRetention: props.streamRetention,
      removalPolicy,
      functionDefaults,
      openTelemetry: props.openTelemetry,
    });
    this.dashboardHosting = new SpendguardDashboardHosting(this, 'Dashboard', {
      accessLogsBucket: this.observability.accessLogsBucket,
      domain: props.dashboardDomain,
      minimumTlsVersion: props.minimumTlsVersion,
      assetsPath: props.dashboardAssetsPath,
      threatProtection: props.threatProtection,
      mfaRequired: props.mfaRequired,
      removalPolicy,
    });
    this.api = new SpendguardApi(this, 'Api', {
      data: this.data,
      secrets: this.secrets,
      prices: this.prices,
      pipeline: this.pipeline,
      userPool: this.dashboardHosting.userPool,
      userPoolClient: this.dashboardHosting.userPoolClient,
      corsOrigins: [this.dashboardHosting.url],
      throttle: props.apiThrottle,
      logRetention,
      removalPolicy,
      functionDefaults,
    });
    this.edge = new SpendguardEdge(this, 'Edge', {
      data: this.data,
      secrets: this.secrets,
      pipeline: this.pipeline,
      accessLogsBucket: this.observability.accessLogsBucket,
      domain: props.proxyDomain,
      minimumTlsVersion: props.minimumTlsVersion,
      originReadTimeout: props.originReadTimeout,
      originKeepaliveTimeout: props.originKeepaliveTimeout,
      relayReservedConcurrency:
        props.relayReservedConcurrency === null
          ? undefined
          : (props.relayReservedConcurrency ?? DEFAULT_RELAY_RESERVED_CONCURRENCY),
      proxyRateLimitPerIp: props.proxyRateLimitPerIp,
      edgeLogRetention: logRetention,
      originSecretVersionId: props.originSecretVersionId,
      flagCacheTtl: props.flagCacheTtl,
      functionDefaults,
    });
    // Admission reserves and settles at the prices the ledger uses (issue 18.2): the same weekly snapshot.
    this.prices.bindPrices(this.edge.relayFunction);
    this.forecast = new SpendguardForecast(this, 'Forecast', {
      data: this.data,
      secrets: this.secrets,
      accessLogsBucket: this.observability.accessLogsBucket,
      schedule: props.forecastSchedule,
      logGroupName: names.forecastLogGroup,
      logRetention,
      removalPolicy,
      functionDefaults,
    });

    this.reconciliation = new SpendguardReconciliation(this, 'Reconciliation', {
      data: this.data,
      secrets: this.secrets,
      notifyTopic: this.observability.topic,
      apiFunction: this.api.apiFunction,
      functionDefaults,
    });
    this.forecast.bindRunStarter(this.api.apiFunction);

    this.apiWaf =
      props.apiWaf === false
        ? undefined
        : new SpendguardApiWaf(this, 'ApiWaf', {
            api: this.api,
            secrets: this.secrets,
            edgeStack: this.edge.edgeStack(),
            rateLimitPerIp: props.apiRateLimitPerIp,
            originCheck: props.apiOriginCheck,
            originSecretVersionId: props.originSecretVersionId,
          });

    this.proxyUrl = this.edge.url;
    // What the outputs, the dashboard's config and CSP, and the SDK docs call the API.
    this.apiUrl = this.apiWaf?.url ?? this.api.url;
    this.dashboardUrl = this.dashboardHosting.url;
    this.dashboardHosting.deployConfig(
      { apiUrl: this.apiUrl, proxyUrl: this.proxyUrl },
      this.apiConnectSource(props.dashboardDomain !== undefined),
    );
    this.observability.watch({
      ingest: this.pipeline.ingestFunction,
      pricingConsumer: this.pipeline.pricingConsumer,
      guardrailConsumer: this.pipeline.guardrailConsumer,
      relay: this.edge.relayFunction,
      enforce: this.api.enforceFunction,
      api: this.api.apiFunction,
      forecast: this.forecast.forecastFunction,
      priceRefresh: this.prices.refreshFunction,
      pricingDeadLetterQueue: this.pipeline.pricingDeadLetterQueue,
      guardrailDeadLetterQueue: this.pipeline.guardrailDeadLetterQueue,
      httpApi: this.api.httpApi,
      forecastStateMachine: this.forecast.stateMachine,
    });
  }

  /**
   * The dashboard CSP's connect-src for the API. The API's CORS names the dashboard's origin, so with
   * the dashboard on its generated `*.cloudfront.net` domain, naming the API's generated domain in the
   * dashboard's CSP would be a CloudFormation reference cycle (dashboard → CSP → API → CORS → dashboard):
   * the CSP then allows the host pattern of the API's kind (any CloudFront distribution with the WAF on,
   * any of the region's HTTP APIs without it). With a custom dashboard domain, the exact API URL.
   */
  private apiConnectSource(customDashboardDomain: boolean): string {
    if (customDashboardDomain) return this.apiUrl;
    const stack = Stack.of(this);
    return this.apiWaf
      ? 'https://*.cloudfront.net'
      : `https://*.execute-api.${stack.region}.${stack.urlSuffix}`;
  }
}
