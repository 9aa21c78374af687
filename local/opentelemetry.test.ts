/* eslint-disable @typescript-eslint/no-explicit-any -- OTLP/JSON bodies, read as a receiver reads them */
/**
 * Issue 22, "what it must show": the local stack with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an
 * OTLP/HTTP receiver on 127.0.0.1 and OTEL_EXPORTER_OTLP_PROTOCOL=http/json. A proxied call (official
 * OpenAI client through the proxy), an SDK call (wrapFetch) and an ingest call each arrive as one span
 * with the GenAI attributes, the cost equal to the ledger's, input tokens inclusive of cache; the
 * token-usage metric arrives. The receiver decodes OTLP/JSON as any collector would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { LedgerEntry } from '../core/ledger/ledger-entry';
import { flush as flushSdk, shutdown as shutdownSdk, wrapFetch } from '../sdk/src';
import type { LocalStack } from './stack';
import { startTestStack } from './test-stack';

type OtlpValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
};
type OtlpAttribute = { key: string; value: OtlpValue };
interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  events?: { name: string; attributes: OtlpAttribute[] }[];
}

const received: { path: string; contentType: string; body: any }[] = [];
let receiver: http.Server;
const OTEL_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
];
let stack: LocalStack;

function valueOf(v: OtlpValue): string | number | boolean | undefined {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return v.boolValue;
}
const attrs = (list: OtlpAttribute[]) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

function spans(): OtlpSpan[] {
  return received
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) => r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)));
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  // As a user would start it: `OTEL_EXPORTER_OTLP_ENDPOINT=… npm start` (this worker's own environment).
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'spendguard-otel-test',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
  });
  stack = await startTestStack();
}, 60_000);

afterAll(async () => {
  await shutdownSdk({ timeoutMs: 1000 }).catch(() => undefined);
  await stack.stop();
  await new Promise((r) => receiver.close(r));
  for (const name of OTEL_VARIABLES) delete process.env[name];
});

describe('OpenTelemetry export from the local stack (OTLP/HTTP JSON)', () => {
  it('exports one span per call from the proxy, the SDK and ingest, costed as the ledger, and the token metric', async () => {
    const proxied = new OpenAI({
      apiKey: 'sk-test',
      baseURL: `${stack.proxyUrl}/openai/v1`,
      defaultHeaders: { 'Service-API-Key': stack.apiKey, 'x-spendguard-session': 'otel-session' },
      maxRetries: 0,
    });
    const viaSdk = new OpenAI({
      apiKey: 'sk-test',
      baseURL: `${stack.mockProviderUrls!.openai}/v1`,
      maxRetries: 0,
      fetch: wrapFetch(fetch, {
        apiKey: stack.apiKey,
        endpoint: stack.apiUrl,
        provider: 'openai',
        flushIntervalMs: 100,
      }),
    });
    await proxied.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'through the proxy' }],
    });
    await viaSdk.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'recorded by the SDK' }],
    });
    await flushSdk({ timeoutMs: 5000 });
    // An ingest event with prompt caching: 12,000 prompt tokens of which 8,000 read from the cache and
    // 1,500 written to it (Anthropic's cache, reported inclusive as ingest expects).
    const ingestAt = '2026-11-25T10:00:00.000Z';
    const ingest = await fetch(`${stack.apiUrl}/api/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiKey: stack.apiKey,
        events: [
          {
            model: 'claude-sonnet-4-5',
            provider: 'anthropic',
            eventId: 'evt_otel_ingest',
            timestamp: ingestAt,
            featureId: 'triage',
            sessionId: 'otel-ingest-session',
            usage: {
              prompt_tokens: 12_000,
              completion_tokens: 700,
              cache_read_tokens: 8_000,
              cache_write_5m_tokens: 1_500,
              reasoning_tokens: 200,
            },
          },
        ],
      }),
    });
    expect(ingest.status).toBe(200);
    await stack.drain();

    const page = await stack.services.ledger.query(stack.orgId, {}, 50, null);
    const ledger = new Map<string, LedgerEntry>(page.entries.map((e) => [e.eventId, e]));
    const exported = spans();
    const bySource = (source: string) =>
      exported.filter((s) => attrs(s.attributes)['spendguard.event.source'] === source);
    // Exactly one span per call, whatever the door.
    expect(bySource('proxy')).toHaveLength(1);
    expect(bySource('sdk')).toHaveLength(1);
    expect(bySource('ingest')).toHaveLength(1);
    expect(exported).toHaveLength(3);

    for (const span of exported) {
      const a = attrs(span.attributes);
      const entry = ledger.get(a['spendguard.event.id'] as string)!;
      expect(entry).toBeDefined();
      expect(span.kind).toBe(3); // SPAN_KIND_CLIENT
      // What each request named (the mock answers with the model it was asked for).
      const requested = entry.source === 'ingest' ? 'claude-sonnet-4-5' : 'gpt-4o-mini';
      expect(span.name).toBe(`chat ${requested}`);
      expect(a).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': entry.provider,
        'gen_ai.request.model': requested,
        'gen_ai.response.model': entry.model,
        'gen_ai.usage.input_tokens': entry.inputTokens,
        'gen_ai.usage.output_tokens': entry.outputTokens,
        'gen_ai.usage.cost.currency': 'USD',
        'gen_ai.usage.cost.source': entry.costSource.toLowerCase(),
        'spendguard.cost.nanos': entry.costNanos,
        'spendguard.api_key.id': entry.keyId,
        'spendguard.usage.estimated': entry.estimated,
      });
      expect(entry.costNanos).toBeGreaterThan(0);
      expect(a['gen_ai.usage.cost.amount']).toBe(entry.costNanos / 1e9);
      // Times are the call's own, not the export's.
      const startMs = Number(BigInt(span.startTimeUnixNano) / 1_000_000n);
      const endMs = Number(BigInt(span.endTimeUnixNano) / 1_000_000n);
      expect(startMs).toBe(Date.parse(entry.ts));
      expect(endMs - startMs).toBe(entry.latencyMs ?? 0);
    }
    expect(attrs(bySource('proxy')[0]!.attributes)['spendguard.session.id']).toBe('otel-session');

    const cached = attrs(bySource('ingest')[0]!.attributes);
    expect(cached).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.usage.input_tokens': 12_000, // inclusive of the 8,000 read and 1,500 written
      'gen_ai.usage.cache_read.input_tokens': 8_000,
      'gen_ai.usage.cache_creation.input_tokens': 1_500,
      'gen_ai.usage.reasoning.output_tokens': 200,
      'spendguard.feature.id': 'triage',
      'spendguard.session.id': 'otel-ingest-session',
    });
    expect(Number(BigInt(bySource('ingest')[0]!.startTimeUnixNano) / 1_000_000n)).toBe(Date.parse(ingestAt));

    // The resource carries OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
    const resource = attrs(
      received.find((r) => r.path === '/v1/traces')!.body.resourceSpans[0].resource.attributes,
    );
    expect(resource).toMatchObject({
      'service.name': 'spendguard-otel-test',
      'deployment.environment.name': 'test',
    });
    expect(received.every((r) => r.contentType.startsWith('application/json'))).toBe(true);

    // gen_ai.client.token.usage: the last (cumulative) export sums every call's input and output tokens.
    const metricExports = received.filter((r) => r.path === '/v1/metrics');
    expect(metricExports.length).toBeGreaterThan(0);
    const last = metricExports.at(-1)!.body;
    const metrics = last.resourceMetrics.flatMap((rm: any) =>
      rm.scopeMetrics.flatMap((sm: any) => sm.metrics),
    );
    const usage = metrics.find((m: { name: string }) => m.name === 'gen_ai.client.token.usage');
    expect(usage.unit).toBe('{token}');
    const sumOf = (type: string) =>
      usage.histogram.dataPoints
        .filter((p: { attributes: OtlpAttribute[] }) => attrs(p.attributes)['gen_ai.token.type'] === type)
        .reduce((s: number, p: { sum: number }) => s + p.sum, 0);
    const calls = [...ledger.values()].filter((e) => e.kind === 'call');
    expect(sumOf('input')).toBe(calls.reduce((s, e) => s + e.inputTokens, 0));
    expect(sumOf('output')).toBe(calls.reduce((s, e) => s + e.outputTokens, 0));
    expect(metrics.map((m: { name: string }) => m.name)).toEqual(
      expect.arrayContaining(['gen_ai.client.operation.duration', 'spendguard.gen_ai.client.cost']),
    );
  }, 60_000);
});
