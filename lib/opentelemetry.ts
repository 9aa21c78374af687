/**
 * OpenTelemetry export of the consumers (docs/opentelemetry.md): the OTEL_* variables the functions
 * read, and the IAM to send to CloudWatch's OTLP endpoints with the function's own role.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type { SpendguardFunction } from './function';
import { acknowledge } from './nag';

/** Where and how the consumers export spans and metrics. Every field is optional. */
export interface OpenTelemetryExport {
  /**
   * OTLP/HTTP traces URL.
   * @default `https://xray.<region>.amazonaws.com/v1/traces` (CloudWatch Application Signals / X-Ray; needs Transaction Search on)
   */
  readonly tracesEndpoint?: string;
  /**
   * OTLP/HTTP metrics URL.
   * @default `https://monitoring.<region>.amazonaws.com/v1/metrics` (CloudWatch)
   */
  readonly metricsEndpoint?: string;
  /** @default 'http/protobuf' */
  readonly protocol?: 'http/protobuf' | 'http/json';
  /**
   * `OTEL_EXPORTER_OTLP_HEADERS` for a third-party backend (`key=value,…`). Lands in the function's
   * environment in clear: pass no secret here that the environment's readers may not see.
   * @default - none
   */
  readonly headers?: string;
  /** `OTEL_RESOURCE_ATTRIBUTES` (`deployment.environment.name=prod,…`). @default - none */
  readonly resourceAttributes?: string;
  /** `OTEL_METRIC_EXPORT_INTERVAL` (ms); the consumers also flush at the end of every batch. @default 60000 */
  readonly metricExportIntervalMillis?: number;
}

/** True for an AWS endpoint that takes SigV4 (`xray.<region>.amazonaws.com`, `monitoring.<region>…`). */
function isAwsEndpoint(url: string): boolean {
  return /^https:\/\/(xray|monitoring)\.[a-z0-9-]+\.amazonaws\.com(\.cn)?\//.test(url);
}

/**
 * Sets the export's variables on a consumer and, for CloudWatch endpoints, turns SigV4 signing on and
 * grants exactly the actions used: `xray:PutSpans`/`PutSpansForIndexing`/`PutTraceSegments` for traces,
 * `cloudwatch:PutMetricData` for metrics (neither supports a resource narrower than `*`).
 */
export function bindOpenTelemetry(fn: SpendguardFunction, props: OpenTelemetryExport, region: string): void {
  const traces = props.tracesEndpoint ?? `https://xray.${region}.amazonaws.com/v1/traces`;
  const metrics = props.metricsEndpoint ?? `https://monitoring.${region}.amazonaws.com/v1/metrics`;
  const signTraces = isAwsEndpoint(traces);
  const signMetrics = isAwsEndpoint(metrics);
  if (signTraces !== signMetrics) {
    throw new Error(
      'openTelemetry: tracesEndpoint and metricsEndpoint must both be CloudWatch endpoints (signed with the role) or both not.',
    );
  }
  fn.addEnvironment('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces);
  fn.addEnvironment('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', metrics);
  fn.addEnvironment('OTEL_EXPORTER_OTLP_PROTOCOL', props.protocol ?? 'http/protobuf');
  fn.addEnvironment('OTEL_SERVICE_NAME', `spendguard-${fn.handlerName}`);
  // Many short-lived containers: delta counts add up across them, cumulative ones would reset.
  fn.addEnvironment('OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE', 'delta');
  if (props.headers) fn.addEnvironment('OTEL_EXPORTER_OTLP_HEADERS', props.headers);
  if (props.resourceAttributes) fn.addEnvironment('OTEL_RESOURCE_ATTRIBUTES', props.resourceAttributes);
  if (props.metricExportIntervalMillis !== undefined) {
    fn.addEnvironment('OTEL_METRIC_EXPORT_INTERVAL', String(props.metricExportIntervalMillis));
  }
  if (!signTraces) return;
  fn.addEnvironment('SPENDGUARD_OTEL_SIGV4', 'true');
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['xray:PutSpans', 'xray:PutSpansForIndexing', 'xray:PutTraceSegments'],
      resources: ['*'],
    }),
  );
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['cloudwatch:PutMetricData'], resources: ['*'] }));
  acknowledge(
    fn.role!,
    'AwsSolutions-IAM5[Resource::*]',
    'OpenTelemetry export to CloudWatch OTLP: xray:PutSpans and cloudwatch:PutMetricData support only Resource "*".',
  );
}
