/**
 * Issue 15.2: anything ingest accepts, both consumers process. Bodies are drawn from (and past) the
 * accepted input space, sent through the real ingest handler, and every envelope it puts on the sink
 * goes through the pricing and the guardrail consumer on dynalite; no record may fail. Implausible
 * events are refused with a 400 naming the event and the field.
 */
import fc from 'fast-check';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { EventEnvelope } from '../../core/events/telemetry-event';
import { aggregateSk } from '../../core/ledger/aggregate-deltas';
import { MAX_SUM } from '../../core/ledger/saturating-sum';
import { MAX_CALL_TOKENS } from '../../core/schemas';
import { createLambdaContext } from '../../local/runtime';
import { startBackendHarness, type BackendHarness } from '../../test/backend-harness';
import { kinesisBatch } from '../../test/fixtures';
import { createGuardrailConsumer } from '../guardrail-consumer/handler';
import { createPricingConsumer } from '../pricing-consumer/handler';
import type { EventSink } from '../shared/event-sink';
import { createIngestHandler } from './handler';

jest.setTimeout(240_000);

let h: BackendHarness;
const puts: EventEnvelope[] = [];
const sink: EventSink = { put: async (envelopes) => void puts.push(...envelopes) };
let seq = 1000;

beforeAll(async () => {
  h = await startBackendHarness();
});
afterAll(() => h.close());

/** A fresh context per invocation, as Lambda gives: one shared context's 30 s deadline ran out mid-file. */
const context = () => createLambdaContext({ functionName: 'test' });
const ingest = () =>
  createIngestHandler({ services: { ...h.services, sink }, logger: h.logger, metrics: h.metrics });
const pricing = () =>
  createPricingConsumer({
    services: h.services,
    registry: h.registry,
    logger: h.logger,
    metrics: h.metrics,
  });
const guardrails = () =>
  createGuardrailConsumer({
    services: h.services,
    registry: h.registry,
    logger: h.logger,
    metrics: h.metrics,
  });

async function post(path: '/api/ingest' | '/v1/events', body: unknown, apiKey: string) {
  const res = (await ingest()(
    {
      version: '2.0',
      routeKey: `POST ${path}`,
      rawPath: path,
      rawQueryString: '',
      headers: { 'content-type': 'application/json', 'service-api-key': apiKey },
      requestContext: {} as APIGatewayProxyEventV2['requestContext'],
      body: JSON.stringify(path === '/api/ingest' ? { apiKey, ...(body as object) } : body),
      isBase64Encoded: false,
    },
    context(),
  )) as APIGatewayProxyStructuredResultV2;
  return {
    status: res.statusCode ?? 0,
    body: JSON.parse(res.body ?? 'null') as {
      error?: { message: string; problems?: Array<{ path: string; message: string }> };
    },
  };
}

/** Runs every envelope put so far through both consumers; returns their failed records. */
async function consumeAll(): Promise<string[]> {
  const records = puts.splice(0).map((envelope) => ({ seq: String(++seq), envelope }));
  if (records.length === 0) return [];
  const batch = kinesisBatch(records);
  const a = await pricing()(batch, context());
  const b = await guardrails()(batch, context());
  return [...a.batchItemFailures, ...b.batchItemFailures].map((f) => f.itemIdentifier);
}

const MODELS = ['o1-pro', 'gpt-4o', 'claude-opus-4-1', 'gemini-2.5-pro', 'llama-4-scout', 'no-such-model'];
// eslint-disable-next-line no-control-regex -- labels must not carry control characters (the schema refuses them)
const printable = fc.string({ minLength: 1, maxLength: 24 }).filter((s) => !/[\x00-\x1f\x7f]/.test(s));
/** Plausible token counts up to `max`, biased to the edges. */
const tokens = (max: number) => fc.oneof(fc.constant(0), fc.constant(max), fc.integer({ min: 0, max }));
/** Prompt and completion tokens of one call, together within the bound. */
const callTokens = fc
  .integer({ min: 0, max: MAX_CALL_TOKENS })
  .chain((p) => fc.tuple(fc.constant(p), tokens(MAX_CALL_TOKENS - p)));
/** A count past the bound, for the events that must be refused. */
const implausibleCount = fc.integer({ min: MAX_CALL_TOKENS + 1, max: 2_000_000_000 });
/** Any past time, up to the harness's clock plus the 5 minutes ahead ingest accepts (the boundary included). */
const timestamp = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2026-11-22T10:05:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

const ingestEvent = fc.record(
  {
    model: fc.oneof(fc.constantFrom(...MODELS), printable),
    usage: fc
      .tuple(
        callTokens,
        fc.record(
          {
            cache_read_tokens: tokens(MAX_CALL_TOKENS),
            cache_write_5m_tokens: tokens(MAX_CALL_TOKENS),
            cache_write_1h_tokens: tokens(MAX_CALL_TOKENS),
            reasoning_tokens: tokens(MAX_CALL_TOKENS),
          },
          { requiredKeys: [] },
        ),
      )
      .map(([[prompt, completion], rest]) => ({
        prompt_tokens: prompt,
        completion_tokens: completion,
        ...rest,
      })),
    timestamp,
    eventId: fc.stringMatching(/^evt_[A-Za-z0-9_-]{1,16}$/),
    featureId: printable,
    projectId: printable,
    sessionId: printable,
    provider: fc.constantFrom('openai', 'anthropic', 'google', 'x-custom'),
  },
  { requiredKeys: ['model', 'usage'] },
);

const clientEvent = fc
  .tuple(
    callTokens,
    fc.record(
      {
        id: fc.uuid({ version: 4 }),
        timestamp,
        provider: fc.constantFrom('openai', 'anthropic', 'google', 'x-custom'),
        model: fc.oneof(fc.constantFrom(...MODELS), printable),
        totalTokens: tokens(MAX_CALL_TOKENS),
        estimatedCostUsd: fc.double({ min: 0, max: 1_000_000, noNaN: true }),
        costSource: fc.constantFrom('PROVIDER_REGISTRY', 'FALLBACK_ECONOMICS'),
        latencyMs: fc.double({ min: 0, max: 86_400_000, noNaN: true }),
        statusCode: fc.constantFrom(0, 200, 429, 500),
        kind: fc.constantFrom('call', 'budget_warning'),
        sessionId: printable,
        cacheReadTokens: tokens(MAX_CALL_TOKENS),
        reasoningTokens: tokens(MAX_CALL_TOKENS),
        fingerprint: fc.constant('sha256:' + 'ab'.repeat(32)),
      },
      {
        requiredKeys: [
          'id',
          'timestamp',
          'provider',
          'model',
          'totalTokens',
          'estimatedCostUsd',
          'costSource',
          'latencyMs',
          'statusCode',
        ],
      },
    ),
  )
  .map(([[promptTokens, completionTokens], rest]) => ({ ...rest, promptTokens, completionTokens }));

/** Sets one token field of one event past the bound (which field: the prompt, or another one). */
function corrupt(events: AnyEvent[], at: number, field: number, count: number): AnyEvent[] {
  const i = at % events.length;
  const e = structuredClone(events[i]!);
  const holder = (e.usage ?? e) as Record<string, number>;
  const names = Object.keys(holder).filter((k) => /tokens/i.test(k));
  holder[names[field % names.length]!] = count;
  return events.map((x, j) => (j === i ? e : x));
}

type AnyEvent = { usage?: Record<string, number> } & Record<string, unknown>;

/** The token fields of an event that are over the plausibility bound (each alone or prompt + completion). */
function implausible(e: AnyEvent): boolean {
  const fields = e.usage ?? e;
  const counts = Object.entries(fields)
    .filter(([k]) => /tokens/i.test(k))
    .map(([, v]) => v as number);
  const prompt = (fields.prompt_tokens ?? fields.promptTokens) as number;
  const completion = (fields.completion_tokens ?? fields.completionTokens) as number;
  return counts.some((n) => n > MAX_CALL_TOKENS) || prompt + completion > MAX_CALL_TOKENS;
}

describe('the pipeline processes whatever ingest accepts (issue 15.2)', () => {
  it('both consumers process every accepted batch; implausible events get a 400 naming event and field', async () => {
    const { apiKey } = await h.createKey('org_prop');
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(ingestEvent, { minLength: 1, maxLength: 100 }),
        fc.array(clientEvent, { minLength: 1, maxLength: 100 }),
        fc.option(fc.tuple(fc.nat(), fc.nat(), implausibleCount), { freq: 3 }),
        async (clientForm, ingestEvents, clientEvents, corruption) => {
          const drawn: AnyEvent[] = clientForm ? clientEvents : ingestEvents;
          const events = corruption === null ? drawn : corrupt(drawn, ...corruption);
          const res = await post(clientForm ? '/v1/events' : '/api/ingest', { events }, apiKey);
          const bad = events.findIndex(implausible);
          if (bad >= 0) {
            expect(res.status).toBe(400);
            expect(res.body.error?.problems?.some((i) => i.path.startsWith(`events[${bad}].`))).toBe(true);
            expect(puts).toHaveLength(0);
            return;
          }
          expect(res.status).toBe(200);
          expect(await consumeAll()).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
    // Every stored counter stayed a safe integer, and reads back.
    const rows = await h.services.aggregates.list('org_prop', 'MONTH#');
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      for (const v of [r.costNanos, r.calls, r.inputTokens, r.outputTokens]) {
        expect(Number.isSafeInteger(v)).toBe(true);
      }
    }
  });

  it('refuses the reported batch (100 events of 10^9 tokens on o1-pro) with a 400 that names the field', async () => {
    const { apiKey } = await h.createKey('org_wedge');
    const events = Array.from({ length: 100 }, (_, i) => ({
      model: 'o1-pro',
      usage: { prompt_tokens: 1_000_000_000, completion_tokens: 1_000_000_000 },
      eventId: `evt_w${i}`,
    }));
    const res = await post('/api/ingest', { events }, apiKey);
    expect(res.status).toBe(400);
    expect(res.body.error?.problems).toEqual(
      expect.arrayContaining([
        { path: 'events[0].usage.prompt_tokens', message: expect.stringContaining(`${MAX_CALL_TOKENS}`) },
      ]),
    );
    expect(puts).toHaveLength(0);
  });

  it('saturates the sums of the largest accepted batches instead of failing the record, and keeps going', async () => {
    const { apiKey } = await h.createKey('org_sat');
    const ts = '2026-11-22T09:00:00.000Z';
    // $12,000 per event (o1-pro output): 100 events are 1.2·10^15 nano-USD, so 8 batches pass 2^53.
    for (let batch = 0; batch < 9; batch++) {
      const events = Array.from({ length: 100 }, (_, i) => ({
        model: 'o1-pro',
        usage: { prompt_tokens: 0, completion_tokens: MAX_CALL_TOKENS },
        eventId: `evt_s${batch}_${i}`,
        timestamp: ts,
      }));
      expect((await post('/api/ingest', { events }, apiKey)).status).toBe(200);
      expect(await consumeAll()).toEqual([]);
    }
    const month = (await h.services.aggregates.list('org_sat', aggregateSk.month('2026-11'))).find(
      (r) => r.sk === aggregateSk.month('2026-11'),
    );
    expect(month).toMatchObject({ costNanos: MAX_SUM, calls: 900, outputTokens: 900 * MAX_CALL_TOKENS });
    // An ordinary event afterwards still reaches the ledger (the shard is not held back).
    const ok = await post(
      '/api/ingest',
      {
        events: [
          { model: 'gpt-4o', usage: { prompt_tokens: 10, completion_tokens: 5 }, eventId: 'evt_after' },
        ],
      },
      apiKey,
    );
    expect(ok.status).toBe(200);
    expect(await consumeAll()).toEqual([]);
    const page = await h.services.ledger.query('org_sat', { model: 'gpt-4o' }, 5, null);
    expect(page.entries.map((e) => e.eventId)).toContain('evt_after');
  });
});
