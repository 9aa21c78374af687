/**
 * The deployable app: one regional stack with {@link SpendGuardrails} (plus the us-east-1 stack that
 * `EdgeFunction` creates for the edge guard), configured from CDK context (cdk.json or `-c key=value`).
 */
import { App, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { OriginCheckMode } from '../lambdas/shared/origin-check-mode';
import type { CustomDomain } from './edge';
import { SpendGuardrails, type SpendGuardrailsProps } from './spend-guardrails';

/** A custom domain given by name and the ARN of its ACM certificate (in us-east-1, as CloudFront requires). */
export interface DomainByArn {
  readonly domainName: string;
  readonly certificateArn: string;
}

/** Properties of {@link SpendguardStack}. */
export interface SpendguardStackProps extends StackProps {
  /** @default {} (the defaults of SpendGuardrails) */
  readonly guardrails?: Omit<SpendGuardrailsProps, 'proxyDomain' | 'dashboardDomain'>;
  /** @default - the proxy distribution's `*.cloudfront.net` domain */
  readonly proxyDomain?: DomainByArn;
  /** @default - the dashboard distribution's `*.cloudfront.net` domain */
  readonly dashboardDomain?: DomainByArn;
}

/** The main regional stack: Spendguard and its outputs. */
export class SpendguardStack extends Stack {
  public readonly guardrails: SpendGuardrails;

  constructor(scope: Construct, id: string, props: SpendguardStackProps = {}) {
    super(scope, id, props);
    const domain = (d: DomainByArn | undefined, certId: string): CustomDomain | undefined =>
      d && {
        domainName: d.domainName,
        certificate: acm.Certificate.fromCertificateArn(this, certId, d.certificateArn),
      };
    this.guardrails = new SpendGuardrails(this, 'Spendguard', {
      ...props.guardrails,
      proxyDomain: domain(props.proxyDomain, 'ProxyCertificate'),
      dashboardDomain: domain(props.dashboardDomain, 'DashboardCertificate'),
    });
    const g = this.guardrails;
    const output = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    output('ProxyUrl', g.proxyUrl, 'Base URL for providers: <ProxyUrl>/<provider_slug>/<provider_path>');
    output(
      'ApiUrl',
      g.apiUrl,
      g.apiWaf
        ? 'HTTP API through its WAF distribution: /api/ingest, /api/guardrails/enforce, /v1/*'
        : 'HTTP API: /api/ingest, /api/guardrails/enforce, /v1/*',
    );
    output('DashboardUrl', g.dashboardUrl, 'The dashboard');
    output('UserPoolId', g.dashboardHosting.userPool.userPoolId, 'Cognito user pool (create users here)');
    output('UserPoolClientId', g.dashboardHosting.userPoolClient.userPoolClientId, 'Dashboard app client');
    output('HostedUiUrl', g.dashboardHosting.userPoolDomain.baseUrl(), 'Cognito Hosted UI');
    output('AlarmTopicArn', g.observability.topic.topicArn, 'Alarms and soft-cap warnings');
    output('EventsStreamName', g.pipeline.stream.streamName, 'Kinesis stream of telemetry events');
    output('PricingDeadLetterQueueUrl', g.pipeline.pricingDeadLetterQueue.queueUrl, 'Failed pricing records');
    output(
      'GuardrailDeadLetterQueueUrl',
      g.pipeline.guardrailDeadLetterQueue.queueUrl,
      'Failed guardrail records',
    );
    output('FlagsTableName', g.data.flagsTable.tableName, 'GUARDRAIL_FLAGS (global table)');
    output('DataTableName', g.data.dataTable.tableName, 'Ledger, aggregates, keys, budgets, forecasts');
    output('PricesBucketName', g.prices.bucket.bucketName, 'Weekly price snapshots');
  }
}

/** The region used when neither `-c region=…` nor the CLI's default region (CDK_DEFAULT_REGION) is set. */
export const FALLBACK_REGION = 'us-west-2';

function stringContext(app: App, key: string): string | undefined {
  const v: unknown = app.node.tryGetContext(key);
  if (v === undefined || v === null || v === '') return undefined;
  return String(v);
}

function listContext(app: App, key: string): string[] | undefined {
  const v: unknown = app.node.tryGetContext(key);
  if (v === undefined || v === null || v === '') return undefined;
  if (Array.isArray(v)) return v.map(String);
  const text = String(v).trim();
  if (text.startsWith('[')) return (JSON.parse(text) as unknown[]).map(String);
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function domainContext(app: App, prefix: 'proxy' | 'dashboard'): DomainByArn | undefined {
  const domainName = stringContext(app, `${prefix}DomainName`);
  const certificateArn = stringContext(app, `${prefix}CertificateArn`);
  if (!domainName && !certificateArn) return undefined;
  if (!domainName || !certificateArn) {
    throw new Error(
      `context ${prefix}DomainName and ${prefix}CertificateArn go together (certificate in us-east-1)`,
    );
  }
  return { domainName, certificateArn };
}

/**
 * The stack's id and props from context (cdk.json or `-c key=value`): `stackName`, `account`, `region`
 * (else the CLI's CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION; without an account the stacks are
 * account-agnostic, without a region {@link FALLBACK_REGION}), `replicaRegions` (the stack's own region is
 * dropped, so one list fits any home region), `alarmEmail`, `proxyDomainName` + `proxyCertificateArn`,
 * `dashboardDomainName` + `dashboardCertificateArn`, `minimumTlsVersion`, `removalPolicy`
 * (`retain` | `destroy`), `lambdaRuntime`, `logRetentionDays`, `originReadTimeoutSeconds`,
 * `originKeepaliveTimeoutSeconds`, `relayReservedConcurrency` (a number, or `none`),
 * `proxyRateLimitPerIp`, `apiWaf` (`false` turns the API's distribution and web ACL off),
 * `apiRateLimitPerIp`, `apiOriginCheck` (`report`: the `execute-api` URL still served, for an upgrade),
 * `mfaRequired` (`false` makes TOTP optional), `resourceGeneration`,
 * `threatProtection`, `originSecretVersionId`, `openTelemetry` (`cloudwatch`: export to the account's
 * CloudWatch OTLP endpoints).
 */
export function readSpendguardContext(app: App): { stackName: string; props: SpendguardStackProps } {
  const region = stringContext(app, 'region') ?? process.env.CDK_DEFAULT_REGION ?? FALLBACK_REGION;
  const account = stringContext(app, 'account') ?? process.env.CDK_DEFAULT_ACCOUNT;
  const runtimeName = stringContext(app, 'lambdaRuntime');
  const runtime = runtimeName ? lambda.Runtime.ALL.find((r) => r.name === runtimeName) : undefined;
  if (runtimeName && !runtime) throw new Error(`context lambdaRuntime: unknown runtime '${runtimeName}'`);
  const logDays = stringContext(app, 'logRetentionDays');
  const tls = stringContext(app, 'minimumTlsVersion');
  const readTimeout = stringContext(app, 'originReadTimeoutSeconds');
  const keepalive = stringContext(app, 'originKeepaliveTimeoutSeconds');
  const reserved = stringContext(app, 'relayReservedConcurrency');
  const rateLimit = stringContext(app, 'proxyRateLimitPerIp');
  const apiRateLimit = stringContext(app, 'apiRateLimitPerIp');
  const generation = stringContext(app, 'resourceGeneration');
  return {
    stackName: stringContext(app, 'stackName') ?? 'Spendguard',
    props: {
      env: { account, region },
      description: 'Spendguard: AI spend telemetry, forecasts and runaway-agent guardrails',
      proxyDomain: domainContext(app, 'proxy'),
      dashboardDomain: domainContext(app, 'dashboard'),
      guardrails: {
        replicaRegions: listContext(app, 'replicaRegions')?.filter((r) => r !== region),
        alarmEmail: stringContext(app, 'alarmEmail'),
        minimumTlsVersion: tls ? (tls as cloudfront.SecurityPolicyProtocol) : undefined,
        removalPolicy:
          stringContext(app, 'removalPolicy') === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
        lambdaRuntime: runtime,
        logRetention: logDays ? (Number(logDays) as logs.RetentionDays) : undefined,
        originReadTimeout: readTimeout ? Duration.seconds(Number(readTimeout)) : undefined,
        originKeepaliveTimeout: keepalive ? Duration.seconds(Number(keepalive)) : undefined,
        relayReservedConcurrency:
          reserved === undefined ? undefined : reserved === 'none' ? null : Number(reserved),
        proxyRateLimitPerIp: rateLimit ? Number(rateLimit) : undefined,
        apiWaf: stringContext(app, 'apiWaf') === 'false' ? false : undefined,
        apiRateLimitPerIp: apiRateLimit ? Number(apiRateLimit) : undefined,
        apiOriginCheck: stringContext(app, 'apiOriginCheck') as OriginCheckMode | undefined,
        mfaRequired: stringContext(app, 'mfaRequired') === 'false' ? false : undefined,
        resourceGeneration: generation ? Number(generation) : undefined,
        threatProtection: stringContext(app, 'threatProtection') === 'true',
        originSecretVersionId: stringContext(app, 'originSecretVersionId'),
        openTelemetry: stringContext(app, 'openTelemetry') === 'cloudwatch' ? {} : undefined,
      },
    },
  };
}

/** Builds the app's stacks from context; returns the main stack. */
export function createSpendguardApp(app: App): SpendguardStack {
  const { stackName, props } = readSpendguardContext(app);
  return new SpendguardStack(app, stackName, props);
}
