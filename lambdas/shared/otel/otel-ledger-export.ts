import { SpanKind, SpanStatusCode, type Counter, type Histogram, type Tracer } from '@opentelemetry/api';
import {
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { LedgerEntry } from '../../../core/ledger/ledger-entry';
import { genAiCallOf } from '../../../core/telemetry/gen-ai-call';
import { GEN_AI, GEN_AI_METRICS, SPENDGUARD } from '../../../core/telemetry/gen-ai-conventions';
import type { ExportedTrip, LedgerExport } from '../ledger-export';
import { EventIdGenerator } from './event-id-generator';
import { createMetricExporter, createSpanExporter, type SigV4Signing } from './otlp-exporters';
import type { OtelSettings } from './otel-settings';

/** The instrumentation scope of everything Spendguard exports. */
export const SCOPE_NAME = 'spendguard';

/** The convention's advised bucket boundaries for `gen_ai.client.token.usage` ({token}). */
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
/** The convention's advised bucket boundaries for `gen_ai.client.operation.duration` (s). */
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** What {@link OtelLedgerExport} is built from; exporters are injectable for tests and benches. */
export interface OtelLedgerExportOptions {
  spanExporter: SpanExporter | null;
  metricExporter: PushMetricExporter | null;
  settings: Pick<
    OtelSettings,
    'spanScheduleDelayMs' | 'spanMaxQueueSize' | 'spanMaxExportBatchSize' | 'metricExportIntervalMs'
  >;
  /** service.name when OTEL_SERVICE_NAME does not say. */
  serviceName: string;
  /** Where problems are reported (an exporter that fails). */
  onError?: (message: string, error: unknown) => void;
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Longest a batch waits for {@link OtelLedgerExport.flush}; past it the export goes on in the background
   * and later batches stop waiting until an export succeeds again. @default {@link DEFAULT_EXPORT_WAIT_MS}
   */
  exportWaitMs?: number;
}

/**
 * How long a consumer's batch waits for its export. Telemetry is a copy of the ledger: an OTLP endpoint
 * that is slow or silent (accepts the connection, never answers; the exporters give up after
 * `OTEL_EXPORTER_OTLP_TIMEOUT`, 10 s) must not hold back the ledger, the guardrails or the kill flags.
 */
export const DEFAULT_EXPORT_WAIT_MS = 1_000;

/** Longest {@link OtelLedgerExport.shutdown} waits for the providers to shut down. */
const SHUTDOWN_WAIT_MS = 2_000;

/** Resolves after `ms` without keeping the process alive. */
function pause(ms: number): { done: Promise<void>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref?.();
  });
  return { done, cancel: () => clearTimeout(timer) };
}

function resourceOf(serviceName: string): Resource {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default name (envDetector reads both).
  return resourceFromAttributes({ 'service.name': serviceName }).merge(
    detectResources({ detectors: [envDetector] }),
  );
}

/**
 * The OpenTelemetry side of the ledger: one CLIENT span per provider call, timed by the call itself
 * (`gen-ai-call.ts`), the GenAI client metrics and a cost counter, and guardrail trips as span events.
 * Built on the maintained SDK (BatchSpanProcessor, PeriodicExportingMetricReader) and its OTLP
 * exporters; `flush` forces both out (the consumer awaits it at the end of every batch, for at most
 * {@link DEFAULT_EXPORT_WAIT_MS}).
 */
export class OtelLedgerExport implements LedgerExport {
  private readonly tracerProvider: TracerProvider | null;
  private readonly meterProvider: MeterProvider | null;
  private readonly tracer: Tracer | null;
  private readonly tokenUsage: Histogram | null;
  private readonly duration: Histogram | null;
  private readonly cost: Counter | null;
  private readonly onError: (message: string, error: unknown) => void;
  private readonly ids = new EventIdGenerator();
  private readonly exportWaitMs: number;
  /** The export in progress (one at a time): true when it succeeded. */
  private exporting: Promise<boolean> | null = null;
  /** False after an export failed or outlasted {@link exportWaitMs}, until one succeeds. */
  private batchesWait = true;

  constructor(options: OtelLedgerExportOptions) {
    const resource = resourceOf(options.serviceName);
    this.onError = options.onError ?? (() => undefined);
    this.exportWaitMs = options.exportWaitMs ?? DEFAULT_EXPORT_WAIT_MS;
    const { settings } = options;
    this.tracerProvider = options.spanExporter
      ? new TracerProvider({
          resource,
          idGenerator: this.ids,
          spanProcessors: [
            new BatchSpanProcessor({
              exporter: options.spanExporter,
              scheduledDelayMillis: settings.spanScheduleDelayMs,
              maxQueueSize: settings.spanMaxQueueSize,
              maxExportBatchSize: Math.min(settings.spanMaxExportBatchSize, settings.spanMaxQueueSize),
            }),
          ],
        })
      : null;
    this.tracer = this.tracerProvider?.getTracer(SCOPE_NAME) ?? null;
    this.meterProvider = options.metricExporter
      ? new MeterProvider({
          resource,
          readers: [
            new PeriodicExportingMetricReader({
              exporter: options.metricExporter,
              exportIntervalMillis: settings.metricExportIntervalMs,
              exportTimeoutMillis: Math.min(30_000, settings.metricExportIntervalMs),
            }),
          ],
        })
      : null;
    const meter = this.meterProvider?.getMeter(SCOPE_NAME);
    this.tokenUsage =
      meter?.createHistogram(GEN_AI_METRICS.tokenUsage, {
        unit: '{token}',
        description: 'Number of input and output tokens used',
        advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
      }) ?? null;
    this.duration =
      meter?.createHistogram(GEN_AI_METRICS.operationDuration, {
        unit: 's',
        description: 'GenAI operation duration',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }) ?? null;
    this.cost =
      meter?.createCounter(GEN_AI_METRICS.cost, {
        unit: 'USD',
        description: "Cost of GenAI calls as Spendguard's ledger priced them (experimental)",
      }) ?? null;
  }

  calls(orgId: string, entries: readonly LedgerEntry[]): void {
    for (const entry of entries) {
      try {
        this.call(orgId, entry);
      } catch (err) {
        // An export problem never fails the ledger's batch.
        this.onError('could not record a call for export', err);
      }
    }
  }

  private call(orgId: string, entry: LedgerEntry): void {
    if (entry.kind !== 'call') return;
    const c = genAiCallOf(entry, orgId);
    if (this.tracer) {
      this.ids.next(orgId, entry.keyId, entry.eventId);
      let span;
      try {
        span = this.tracer.startSpan(c.name, {
          kind: SpanKind.CLIENT,
          startTime: new Date(c.startMs),
          attributes: c.attributes,
        });
      } finally {
        this.ids.done();
      }
      if (GEN_AI.errorType in c.metricAttributes) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(new Date(c.endMs));
    }
    this.tokenUsage?.record(c.inputTokens, { ...c.metricAttributes, [GEN_AI.tokenType]: 'input' });
    this.tokenUsage?.record(c.outputTokens, { ...c.metricAttributes, [GEN_AI.tokenType]: 'output' });
    if (c.durationSeconds !== null) this.duration?.record(c.durationSeconds, c.metricAttributes);
    this.cost?.add(c.costUsd, c.metricAttributes);
  }

  trip(trip: ExportedTrip): void {
    if (!this.tracer) return;
    try {
      const at = new Date(trip.at);
      const attributes = {
        [SPENDGUARD.organizationId]: trip.orgId,
        [SPENDGUARD.apiKeyId]: trip.keyId,
        [SPENDGUARD.guardrailLayer]: trip.layer,
        [SPENDGUARD.guardrailScope]: trip.scope,
        [SPENDGUARD.guardrailReason]: trip.triggerType,
        ...(trip.sessionId ? { [SPENDGUARD.sessionId]: trip.sessionId } : {}),
      };
      const span = this.tracer.startSpan(`guardrail_trip ${trip.layer}`, {
        kind: SpanKind.INTERNAL,
        startTime: at,
        attributes,
      });
      span.addEvent(
        'spendguard.guardrail.trip',
        {
          ...attributes,
          'spendguard.guardrail.action': trip.action,
          'spendguard.guardrail.observed': trip.observedValue,
          'spendguard.guardrail.threshold': trip.thresholdValue,
          'spendguard.guardrail.message': trip.message,
        },
        at,
      );
      span.end(at);
    } catch (err) {
      this.onError('could not record a guardrail trip for export', err);
    }
  }

  /**
   * Sends what is queued, waiting at most the export wait (1 s): a consumer calls it at the end of every
   * batch, because Lambda freezes the process between invocations. While the endpoint fails or is slow,
   * batches do not wait at all (the export still starts, one at a time, and the span processor's own
   * schedule goes on); the first export that succeeds makes them wait again. Never rejects.
   */
  async flush(): Promise<void> {
    const exporting = (this.exporting ??= this.exportQueued());
    if (!this.batchesWait) return;
    const timeout = pause(this.exportWaitMs);
    const finished = await Promise.race([exporting.then(() => true), timeout.done.then(() => false)]);
    timeout.cancel();
    if (!finished && this.batchesWait) {
      this.batchesWait = false;
      this.onError(
        `OTLP export still running after ${this.exportWaitMs} ms: batches no longer wait for it until an export succeeds`,
        null,
      );
    }
  }

  private async exportQueued(): Promise<boolean> {
    let ok = true;
    const failed = (what: string) => (err: unknown) => {
      ok = false;
      this.onError(what, err);
    };
    await Promise.all([
      this.tracerProvider?.forceFlush().catch(failed('span export failed')),
      this.meterProvider?.forceFlush().catch(failed('metric export failed')),
    ]);
    this.exporting = null;
    this.batchesWait = ok;
    return ok;
  }

  /** Flushes and stops both providers, waiting at most a few seconds for an endpoint that does not answer. */
  async shutdown(): Promise<void> {
    await this.flush();
    const timeout = pause(SHUTDOWN_WAIT_MS);
    await Promise.race([
      Promise.all([
        this.tracerProvider?.shutdown().catch(() => undefined),
        this.meterProvider?.shutdown().catch(() => undefined),
      ]),
      timeout.done,
    ]);
    timeout.cancel();
  }
}

/**
 * The export the environment asks for, or null when no OTLP endpoint is set (the default: nothing is
 * loaded beyond this module, nothing is sent).
 */
export function createOtelLedgerExport(
  settings: OtelSettings,
  options: {
    serviceName: string;
    signing?: (region: string) => SigV4Signing;
    onError?: (message: string, error: unknown) => void;
  },
): OtelLedgerExport | null {
  if (!settings.traces && !settings.metrics) return null;
  const signing = settings.sigV4Region && options.signing ? options.signing(settings.sigV4Region) : null;
  return new OtelLedgerExport({
    spanExporter: settings.traces ? createSpanExporter(settings.traces, signing) : null,
    metricExporter: settings.metrics ? createMetricExporter(settings.metrics, signing) : null,
    settings,
    serviceName: options.serviceName,
    ...(options.onError ? { onError: options.onError } : {}),
  });
}
