/**
 * The OpenTelemetry export at the end of a consumer's batch: it never holds the ledger back for long
 * (an OTLP endpoint that accepts the connection and never answers used to stall each batch for the
 * exporters' 10 s timeout), and every ledger row is its own span (deduplication is per key).
 */
import { InMemorySpanExporter, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { LedgerEntry } from '../../../core/ledger/ledger-entry';
import { OtelLedgerExport, type OtelLedgerExportOptions } from './otel-ledger-export';

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];

const created: Array<{ otel: OtelLedgerExport; silent: SilentExporter | null }> = [];
function exportWith(
  exporter: SpanExporter,
  options: Partial<OtelLedgerExportOptions> = {},
): OtelLedgerExport {
  const otel = new OtelLedgerExport({
    spanExporter: exporter,
    metricExporter: null,
    settings: SETTINGS,
    serviceName: 'test',
    ...options,
  });
  created.push({ otel, silent: exporter instanceof SilentExporter ? exporter : null });
  return otel;
}
afterEach(async () => {
  for (const { otel, silent } of created.splice(0)) {
    silent?.answerAll(0);
    await otel.shutdown();
  }
});

const SETTINGS = {
  spanScheduleDelayMs: 60_000,
  spanMaxQueueSize: 10_000,
  spanMaxExportBatchSize: 512,
  metricExportIntervalMs: 60_000,
};

function entry(over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    eventId: 'evt_1',
    ts: '2026-11-26T00:30:00.000Z',
    source: 'proxy',
    kind: 'call',
    keyId: 'key_a',
    provider: 'openai',
    model: 'gpt-4o-2024-08-06',
    inputTokens: 100,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 20,
    reasoningTokens: 0,
    webSearchRequests: 0,
    costNanos: 450_000,
    costSource: 'LIST_PRICE',
    registryCostNanos: 450_000,
    toolFeesNanos: 0,
    pricedAs: 'gpt-4o-2024-08-06',
    clientCostUsd: null,
    providerCostUsd: null,
    estimated: false,
    latencyMs: 250,
    statusCode: 200,
    projectId: null,
    environment: null,
    featureId: null,
    sessionId: null,
    endpoint: '/v1/chat/completions',
    stream: false,
    verified: true,
    fingerprint: null,
    ...over,
  } as LedgerEntry;
}

/** An exporter whose endpoint accepts spans and answers only when the test says so. */
class SilentExporter implements SpanExporter {
  readonly pending: Array<(result: ExportResult) => void> = [];
  exported = 0;
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.pending.push((result) => {
      if (result.code === 0) this.exported += spans.length;
      done(result);
    });
  }
  answerAll(code: 0 | 1): void {
    for (const answer of this.pending.splice(0)) answer({ code });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function timed(work: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

describe('OtelLedgerExport.flush', () => {
  it('waits at most the export wait for a silent endpoint, then not at all until an export succeeds', async () => {
    const exporter = new SilentExporter();
    const errors: string[] = [];
    const otel = exportWith(exporter, { exportWaitMs: 200, onError: (message) => errors.push(message) });
    otel.calls('org_a', [entry()]);
    const first = await timed(() => otel.flush());
    expect(first).toBeGreaterThanOrEqual(190);
    expect(first).toBeLessThan(1_000);
    expect(errors).toEqual([expect.stringContaining('still running after 200 ms')]);

    // The next batches do not wait while the endpoint has not answered.
    otel.calls('org_a', [entry({ eventId: 'evt_2' })]);
    expect(await timed(() => otel.flush())).toBeLessThan(50);
    expect(await timed(() => otel.flush())).toBeLessThan(50);

    // The endpoint answers: the export succeeds, and batches wait for their export again.
    exporter.answerAll(0);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(exporter.exported).toBe(1);
    otel.calls('org_a', [entry({ eventId: 'evt_3' })]);
    const waiting = otel.flush();
    await new Promise((resolve) => setTimeout(resolve, 20));
    exporter.answerAll(0);
    await waiting;
    expect(exporter.exported).toBeGreaterThanOrEqual(2);
    expect(errors).toHaveLength(1);
  });

  it('stops waiting after an export fails, and a shutdown against a silent endpoint ends promptly', async () => {
    const exporter = new SilentExporter();
    const otel = exportWith(exporter, { exportWaitMs: 5_000 });
    otel.calls('org_a', [entry()]);
    const flushed = otel.flush();
    await new Promise((resolve) => setTimeout(resolve, 20));
    exporter.answerAll(1);
    await flushed;
    otel.calls('org_a', [entry({ eventId: 'evt_2' })]);
    expect(await timed(() => otel.flush())).toBeLessThan(50);
    expect(await timed(() => otel.shutdown())).toBeLessThan(3_000);
  });
});

describe('span ids', () => {
  it('differ for one event id sent by two keys (two ledger rows), and repeat for a replayed row', async () => {
    const memory = new InMemorySpanExporter();
    const otel = exportWith(memory);
    otel.calls('org_a', [entry({ keyId: 'key_a' }), entry({ keyId: 'key_b' }), entry({ keyId: 'key_a' })]);
    await otel.flush();
    const ids = memory.getFinishedSpans().map((s) => `${s.spanContext().traceId}/${s.spanContext().spanId}`);
    expect(ids).toHaveLength(3);
    expect(ids[0]).not.toBe(ids[1]);
    expect(ids[2]).toBe(ids[0]);
  });
});
