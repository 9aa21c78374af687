import {
  OTLPMetricExporter as JsonMetricExporter,
  OTLPMetricExporterBase,
} from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  OTLPExporterBase,
  createOtlpNetworkExportDelegate,
  getSharedConfigurationDefaults,
  mergeOtlpSharedConfigurationWithDefaults,
} from '@opentelemetry/otlp-exporter-base';
import { createOtlpHttpExporterMetrics } from '@opentelemetry/otlp-exporter-base/node-http';
import {
  JsonMetricsSerializer,
  JsonTraceSerializer,
  MetricsExporterMetricsHelper,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from '@opentelemetry/otlp-transformer';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { sigV4ServiceOf, type OtelSignalSettings } from './otel-settings';
import { SigV4Transport } from './sigv4-transport';

/** Signing, when the target is CloudWatch's OTLP endpoints. */
export interface SigV4Signing {
  region: string;
  credentials: AwsCredentialIdentityProvider;
}

const CONTENT_TYPE = { 'http/protobuf': 'application/x-protobuf', 'http/json': 'application/json' } as const;

function sharedConfiguration() {
  // Timeout, concurrency and compression as the exporters' own defaults (timeout 10 s).
  return mergeOtlpSharedConfigurationWithDefaults({}, {}, getSharedConfigurationDefaults());
}

/** A span exporter that posts through the SigV4 seam with the maintained serializer. */
class SignedTraceExporter extends OTLPExporterBase<ReadableSpan[]> implements SpanExporter {
  constructor(settings: OtelSignalSettings, signing: SigV4Signing) {
    const transport = new SigV4Transport({
      url: settings.url,
      service: sigV4ServiceOf(settings.url),
      region: signing.region,
      credentials: signing.credentials,
      contentType: CONTENT_TYPE[settings.protocol],
    });
    super(
      createOtlpNetworkExportDelegate(
        sharedConfiguration(),
        settings.protocol === 'http/json' ? JsonTraceSerializer : ProtobufTraceSerializer,
        createOtlpHttpExporterMetrics(
          'otlp_http_span_exporter',
          TraceExporterMetricsHelper,
          settings.url,
          undefined,
        ),
        transport,
      ),
    );
  }
}

function signedMetricExporter(settings: OtelSignalSettings, signing: SigV4Signing): PushMetricExporter {
  const transport = new SigV4Transport({
    url: settings.url,
    service: sigV4ServiceOf(settings.url),
    region: signing.region,
    credentials: signing.credentials,
    contentType: CONTENT_TYPE[settings.protocol],
  });
  return new OTLPMetricExporterBase(
    createOtlpNetworkExportDelegate(
      sharedConfiguration(),
      settings.protocol === 'http/json' ? JsonMetricsSerializer : ProtobufMetricsSerializer,
      createOtlpHttpExporterMetrics(
        'otlp_http_metric_exporter',
        MetricsExporterMetricsHelper,
        settings.url,
        undefined,
      ),
      transport,
    ),
  );
}

/**
 * The span exporter for the settings: OpenTelemetry's own OTLP/HTTP exporter (protobuf or JSON; it
 * reads OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT and _COMPRESSION itself), or the same serializer behind
 * the SigV4 seam.
 */
export function createSpanExporter(settings: OtelSignalSettings, signing: SigV4Signing | null): SpanExporter {
  if (signing) return new SignedTraceExporter(settings, signing);
  return settings.protocol === 'http/json'
    ? new JsonTraceExporter({ url: settings.url })
    : new ProtoTraceExporter({ url: settings.url });
}

/** The metric exporter for the settings (temporality from OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE). */
export function createMetricExporter(
  settings: OtelSignalSettings,
  signing: SigV4Signing | null,
): PushMetricExporter {
  if (signing) return signedMetricExporter(settings, signing);
  return settings.protocol === 'http/json'
    ? new JsonMetricExporter({ url: settings.url })
    : new ProtoMetricExporter({ url: settings.url });
}
