/**
 * What the OpenTelemetry export is told by the environment: the standard OTEL_* variables (the same a
 * collector-fed service reads) plus `SPENDGUARD_OTEL_SIGV4`, which the CDK sets when the target is
 * CloudWatch's OTLP endpoints. Off unless an endpoint is set.
 */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface OtelSignalSettings {
  /** The full URL of the signal (`…/v1/traces`, `…/v1/metrics`). */
  url: string;
  protocol: OtlpProtocol;
}

export interface OtelSettings {
  traces: OtelSignalSettings | null;
  metrics: OtelSignalSettings | null;
  /** Sign requests with SigV4 in this region (CloudWatch OTLP); null: plain OTLP with OTEL_EXPORTER_OTLP_HEADERS. */
  sigV4Region: string | null;
  /** OTEL_BSP_SCHEDULE_DELAY (ms). @default 5000 */
  spanScheduleDelayMs: number;
  /**
   * OTEL_BSP_MAX_QUEUE_SIZE. @default 10000 — above one consumer batch (50 records × 100 events), so a
   * batch's spans are never dropped before the end-of-batch flush.
   */
  spanMaxQueueSize: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE. @default 512 */
  spanMaxExportBatchSize: number;
  /** OTEL_METRIC_EXPORT_INTERVAL (ms). @default 60000 */
  metricExportIntervalMs: number;
  /** Problems found (an unsupported protocol…), for the caller to log once. */
  warnings: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

function positiveInt(env: Env, name: string, fallback: number, warnings: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (Number.isInteger(n) && n > 0) return n;
  warnings.push(`${name}=${raw} is not a positive integer; using ${fallback}`);
  return fallback;
}

function protocolOf(env: Env, signal: 'TRACES' | 'METRICS', warnings: string[]): OtlpProtocol {
  const name = env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]
    ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const raw = env[name]?.trim();
  if (!raw || raw === 'http/protobuf') return 'http/protobuf';
  if (raw === 'http/json') return 'http/json';
  warnings.push(`${name}=${raw} is not supported (http/protobuf or http/json); using http/protobuf`);
  return 'http/protobuf';
}

function urlOf(env: Env, signal: 'TRACES' | 'METRICS', path: string): string | null {
  const specific = env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim();
  if (specific) return specific;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  // The specification: the base endpoint gets the signal's path appended, after a slash.
  return base ? `${base.replace(/\/+$/, '')}/${path}` : null;
}

/**
 * Reads the settings from the environment. Traces and metrics are each on when their endpoint (or
 * the shared one) is set, and both off with `OTEL_SDK_DISABLED=true`.
 *
 * @example otelSettingsFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })
 * // traces.url 'http://127.0.0.1:4318/v1/traces', metrics.url '…/v1/metrics', protocol 'http/protobuf'
 */
export function otelSettingsFromEnvironment(env: Env): OtelSettings {
  const warnings: string[] = [];
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  const signal = (name: 'TRACES' | 'METRICS', path: string): OtelSignalSettings | null => {
    const url = disabled ? null : urlOf(env, name, path);
    return url ? { url, protocol: protocolOf(env, name, warnings) } : null;
  };
  const sigV4 = env.SPENDGUARD_OTEL_SIGV4?.trim().toLowerCase() === 'true';
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? null;
  if (sigV4 && !region) warnings.push('SPENDGUARD_OTEL_SIGV4 is set but AWS_REGION is not; sending unsigned');
  return {
    traces: signal('TRACES', 'v1/traces'),
    metrics: signal('METRICS', 'v1/metrics'),
    sigV4Region: sigV4 ? region : null,
    spanScheduleDelayMs: positiveInt(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, warnings),
    spanMaxQueueSize: positiveInt(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 10_000, warnings),
    spanMaxExportBatchSize: positiveInt(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, warnings),
    metricExportIntervalMs: positiveInt(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000, warnings),
    warnings,
  };
}

/** The SigV4 signing name of a CloudWatch OTLP host: `xray.<region>…` → `xray`, `monitoring.<region>…` → `monitoring`. */
export function sigV4ServiceOf(url: string): string {
  return new URL(url).hostname.split('.')[0] ?? '';
}
