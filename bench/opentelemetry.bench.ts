/**
 * OpenTelemetry export (issue 22): the pricing consumer's throughput with the export off and on (real
 * OTLP/HTTP protobuf exporters to a receiver on 127.0.0.1, flushed at the end of every batch), on
 * dynalite, in Lambda's batch shape (50 records × 100 events); and what loading the SDK adds to a cold
 * start (a fresh `node` requiring the modules the export loads, which it does only when an endpoint is set).
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { getDefaultPriceRegistry } from '../core/pricing';
import { createPricingConsumer } from '../lambdas/pricing-consumer/handler';
import { ledgerExportFromEnvironment } from '../lambdas/shared/otel/ledger-export-from-environment';
import { DynamoAggregateStore } from '../lambdas/shared/stores/aggregate-store';
import { DynamoEventDedupeStore } from '../lambdas/shared/stores/event-dedupe-store';
import { DynamoLedgerStore } from '../lambdas/shared/stores/ledger-store';
import { LOCAL_RESOURCE_NAMES } from '../lambdas/shared/table-definitions';
import {
  createLambdaContext,
  createLocalAwsClients,
  provisionLocalResources,
  startStandIns,
} from '../local/runtime';
import { envelopeOf, kinesisBatch, telemetryEvent } from '../test/fixtures';

process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const BATCHES = 1;
const RECORDS = 50;
const EVENTS = 100;

const OTEL_MODULES = [
  '@opentelemetry/sdk-trace',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/exporter-metrics-otlp-proto',
];

/** Milliseconds a fresh Node process spends requiring the export's modules (median of 5). */
function sdkLoadMs(): number {
  const script = `const t=process.hrtime.bigint();${OTEL_MODULES.map((m) => `require('${m}');`).join('')}console.log(Number(process.hrtime.bigint()-t)/1e6)`;
  const runs = Array.from({ length: 5 }, () =>
    Number(execFileSync(process.execPath, ['-e', script]).toString()),
  );
  return runs.sort((a, b) => a - b)[2]!;
}

export default async function openTelemetryBench(): Promise<void> {
  let spans = 0;
  const receiver = http.createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      if (req.url === '/v1/traces') spans++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const standIns = await startStandIns({ memory: true });
  const clients = createLocalAwsClients(standIns);
  try {
    await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
    const table = { doc: clients.documentClient, tableName: LOCAL_RESOURCE_NAMES.dataTable };
    const services = {
      ledger: new DynamoLedgerStore(table),
      aggregates: new DynamoAggregateStore(table),
      dedupe: new DynamoEventDedupeStore(table),
      now: Date.now,
    };
    const registry = getDefaultPriceRegistry();
    const context = createLambdaContext({ functionName: 'pricing' });
    let exportMs = 0;
    const run = async (label: string, exportOn: boolean) => {
      const exported = exportOn
        ? ledgerExportFromEnvironment(
            { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
            { serviceName: 'bench', warn: (m) => console.warn(m) },
          )
        : undefined;
      // The export's own time (recording plus the end-of-batch flush), apart from dynalite's noise.
      const timed = exported && {
        calls: (...a: Parameters<typeof exported.calls>) => {
          const t = performance.now();
          exported.calls(...a);
          exportMs += performance.now() - t;
        },
        trip: exported.trip.bind(exported),
        flush: async () => {
          const t = performance.now();
          await exported.flush();
          exportMs += performance.now() - t;
        },
        shutdown: exported.shutdown.bind(exported),
      };
      const consumer = createPricingConsumer({
        services,
        registry: async () => registry,
        logger: new Logger({ logLevel: 'SILENT' }),
        metrics: new Metrics({ namespace: 'bench' }),
        ...(timed ? { export: timed } : {}),
      });
      let seq = 0;
      const started = performance.now();
      for (let b = 0; b < BATCHES; b++) {
        const records = Array.from({ length: RECORDS }, (_, r) => ({
          seq: String(++seq).padStart(6, '0'),
          envelope: envelopeOf(
            `org_${label}_${r % 10}`,
            Array.from({ length: EVENTS }, (_, i) =>
              telemetryEvent({ eventId: `${label}_${b}_${r}_${i}`, cacheReadTokens: 256, latencyMs: 800 }),
            ),
          ),
        }));
        const out = await consumer(kinesisBatch(records), context);
        if (out.batchItemFailures.length) throw new Error('bench batch failed');
      }
      const seconds = (performance.now() - started) / 1000;
      await exported?.shutdown();
      return (BATCHES * RECORDS * EVENTS) / seconds;
    };
    await run('warm', false); // JIT and table warm-up, not reported
    // Interleaved, best of two each: the shared machine's noise is larger than the export's cost.
    const off = Math.max(await run('off1', false), 0);
    const on = Math.max(await run('on1', true), 0);
    const offBest = Math.max(off, await run('off2', false));
    const onBest = Math.max(on, await run('on2', true));
    const perEventUs = (exportMs * 1000) / (2 * BATCHES * RECORDS * EVENTS);
    console.table([
      { measure: 'pricing consumer, export off (best of 2)', value: `${Math.round(offBest)} events/s` },
      {
        measure: 'pricing consumer, export on (OTLP/HTTP protobuf, flush per batch; best of 2)',
        value: `${Math.round(onBest)} events/s`,
      },
      { measure: 'export’s own time per event (record + flush)', value: `${perEventUs.toFixed(1)} µs` },
      { measure: 'trace requests received (export on)', value: String(spans) },
      {
        measure: 'cold start: requiring the OTel SDK + exporters',
        value: `${sdkLoadMs().toFixed(0)} ms (only when on)`,
      },
    ]);
  } finally {
    clients.destroy();
    await standIns.close();
    await new Promise((r) => receiver.close(r));
  }
}
