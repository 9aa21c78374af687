import fc from 'fast-check';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { EventEnvelope } from '../../core/events/telemetry-event';
import { createLambdaContext } from '../../local/runtime';
import { startBackendHarness, type BackendHarness } from '../../test/backend-harness';
import { type EventSink, SinkUnavailableError } from '../shared/event-sink';
import { createIngestHandler, MAX_BODY_BYTES } from './handler';

let h: BackendHarness;
let keyA: string;
let revoked: string;
const puts: EventEnvelope[][] = [];
let sinkDown = false;
const sink: EventSink = {
  put: async (envelopes) => {
    if (sinkDown) throw new SinkUnavailableError('down');
    puts.push(envelopes);
  },
};

beforeAll(async () => {
  h = await startBackendHarness();
  keyA = (await h.createKey('org_a')).apiKey;
  const r = await h.createKey('org_a', 'old');
  await h.services.keys.revoke('org_a', r.publicId, new Date().toISOString());
  revoked = r.apiKey;
});
afterAll(() => h.close());
beforeEach(() => {
  puts.length = 0;
  sinkDown = false;
});

const handler = () =>
  createIngestHandler({ services: { ...h.services, sink }, logger: h.logger, metrics: h.metrics });

function request(
  path: '/api/ingest' | '/v1/events',
  body: string,
  headers: Record<string, string> = {},
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `POST ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...headers },
    requestContext: {} as APIGatewayProxyEventV2['requestContext'],
    body,
    isBase64Encoded: false,
  };
}

async function call(event: APIGatewayProxyEventV2) {
  const res = (await handler()(
    event,
    createLambdaContext({ functionName: 'ingest' }),
  )) as APIGatewayProxyStructuredResultV2;
  return {
    status: res.statusCode ?? 0,
    body: JSON.parse(res.body ?? 'null') as Record<string, unknown>,
    headers: res.headers ?? {},
  };
}

const ingestEvent = (i: number) => ({
  model: 'gpt-4o',
  usage: { prompt_tokens: 100 + i, completion_tokens: 20 },
  timestamp: '2026-11-22T09:00:00.000Z',
  eventId: `evt_${i}`,
  featureId: 'search',
});

describe('POST /api/ingest', () => {
  it('accepts a batch, puts one envelope for the organization, and answers {status, count}', async () => {
    const res = await call(
      request('/api/ingest', JSON.stringify({ apiKey: keyA, events: [ingestEvent(1), ingestEvent(2)] })),
    );
    expect(res).toMatchObject({ status: 200, body: { status: 'ok', count: 2 } });
    expect(puts).toHaveLength(1);
    const [env] = puts[0]!;
    expect(env).toMatchObject({
      orgId: 'org_a',
      events: [
        { eventId: 'evt_1', inputTokens: 101, provider: 'openai', source: 'ingest' },
        { eventId: 'evt_2' },
      ],
    });
    // The raw key never travels past ingest.
    expect(JSON.stringify(puts)).not.toContain(keyA);
  });

  it('ingests a single event sent on its own (spec 4.1: "a single event or a batch")', async () => {
    const res = await call(request('/api/ingest', JSON.stringify({ apiKey: keyA, ...ingestEvent(7) })));
    expect(res).toMatchObject({ status: 200, body: { status: 'ok', count: 1 } });
    expect(puts[0]![0]).toMatchObject({ orgId: 'org_a', events: [{ eventId: 'evt_7', inputTokens: 107 }] });
  });

  it.each([
    [
      'too many events',
      413,
      () => JSON.stringify({ apiKey: keyA, events: Array.from({ length: 101 }, (_, i) => ingestEvent(i)) }),
    ],
    [
      'a body over 1 MB',
      413,
      () =>
        JSON.stringify({
          apiKey: keyA,
          events: [{ ...ingestEvent(1), featureId: 'x'.repeat(MAX_BODY_BYTES) }],
        }),
    ],
    [
      'an unknown key',
      401,
      () => JSON.stringify({ apiKey: 'abn_000000000000_' + 'A'.repeat(43), events: [ingestEvent(1)] }),
    ],
    ['a revoked key', 401, () => JSON.stringify({ apiKey: revoked, events: [ingestEvent(1)] })],
    ['no key', 401, () => JSON.stringify({ events: [ingestEvent(1)] })],
    ['invalid JSON', 400, () => '{"apiKey": '],
  ])('rejects %s with %i and stores nothing', async (_name, status, body) => {
    const res = await call(request('/api/ingest', body()));
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    expect(puts).toHaveLength(0);
  });

  it('says where the key goes when it is missing (body member apiKey; header Service-API-Key on /v1/events)', async () => {
    const res = await call(request('/api/ingest', JSON.stringify({ events: [ingestEvent(1)] })));
    expect(res).toMatchObject({ status: 401, body: { error: { message: expect.stringMatching(/apiKey/) } } });
  });

  it('lists every problem with the event index and field, and stores nothing of the batch', async () => {
    const events = [
      ingestEvent(0),
      { model: 'gpt-4o', usage: { prompt_tokens: -1, completion_tokens: 'many' } },
      { usage: {} },
    ];
    const res = await call(request('/api/ingest', JSON.stringify({ apiKey: keyA, events })));
    expect(res.status).toBe(400);
    const paths = (res.body.error as { problems: { path: string }[] }).problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'events[1].usage.prompt_tokens',
        'events[1].usage.completion_tokens',
        'events[2].model',
      ]),
    );
    expect(puts).toHaveLength(0);
  });

  it('refuses events dated more than 5 minutes ahead (they would spend a day not begun), storing none', async () => {
    const now = h.services.now();
    const at = (ms: number) => ({ ...ingestEvent(0), timestamp: new Date(now + ms).toISOString() });
    const ok = await call(request('/api/ingest', JSON.stringify({ apiKey: keyA, events: [at(4 * 60_000)] })));
    expect(ok.status).toBe(200);
    puts.length = 0;
    const events = [at(0), at(6 * 60_000), at(400 * 86_400_000)];
    const res = await call(request('/api/ingest', JSON.stringify({ apiKey: keyA, events })));
    expect(res.status).toBe(400);
    const problems = (res.body.error as { problems: { path: string; message: string }[] }).problems;
    expect(problems.map((p) => p.path)).toEqual(['events[1].timestamp', 'events[2].timestamp']);
    expect(problems[0]!.message).toMatch(/ahead of the server's clock/);
    expect(puts).toHaveLength(0);
  });

  it('answers 503 with Retry-After when the stream cannot take the batch', async () => {
    sinkDown = true;
    const res = await call(
      request('/api/ingest', JSON.stringify({ apiKey: keyA, events: [ingestEvent(1)] })),
    );
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
  });

  it('never answers 5xx, never throws, and stores nothing from a rejected batch (2,000 generated bodies)', async () => {
    const nasty = fc.oneof(
      fc.constant('__proto__'),
      fc.constant('constructor'),
      fc.constant('prototype'),
      fc.string({ maxLength: 12 }),
    );
    const num = fc.oneof(
      fc.integer(),
      fc.double(),
      fc.constant(1e308),
      fc.constant(-5),
      fc.constant(Number.MAX_SAFE_INTEGER + 2),
    );
    const anyValue = fc.oneof(
      num,
      fc.string({ maxLength: 20 }),
      fc.boolean(),
      fc.constant(null),
      fc.dictionary(nasty, num),
    );
    const eventArb = fc.oneof(
      fc.record(
        {
          model: fc.oneof(fc.constant('gpt-4o'), fc.string({ maxLength: 300 }), num),
          usage: fc.oneof(fc.record({ prompt_tokens: num, completion_tokens: num }), anyValue),
          timestamp: fc.oneof(fc.constant('2026-11-22T09:00:00Z'), fc.string({ maxLength: 30 })),
          eventId: fc.oneof(fc.constant('evt_1'), fc.string({ maxLength: 200 })),
        },
        { requiredKeys: [] },
      ),
      fc.dictionary(nasty, anyValue),
      anyValue,
    );
    const bodyArb = fc.oneof(
      fc.record(
        {
          apiKey: fc.oneof(fc.constant(keyA), fc.string(), anyValue),
          events: fc.oneof(fc.array(eventArb, { maxLength: 5 }), anyValue),
        },
        { requiredKeys: [] },
      ),
      fc.dictionary(nasty, anyValue),
      anyValue,
    );
    await fc.assert(
      fc.asyncProperty(bodyArb, fc.boolean(), async (body, raw) => {
        puts.length = 0;
        const text = raw ? JSON.stringify(body).slice(0, -1) : JSON.stringify(body);
        const res = await call(request('/api/ingest', text ?? 'null'));
        expect(res.status).toBeLessThan(500);
        if (res.status !== 200) expect(puts).toHaveLength(0);
        else expect(puts[0]![0]!.orgId).toBe('org_a');
      }),
      { numRuns: 2000 },
    );
  });
});

it('refuses a `__proto__` member anywhere, naming its path, and stores nothing (prototype pollution)', async () => {
  // Raw text: JSON.parse makes `__proto__` an own key; a careless merge or schema would copy it onward.
  const event = `{"model":"gpt-4o","usage":{"prompt_tokens":1,"completion_tokens":1,"__proto__":{"polluted":true}},"constructor":{"prototype":{"polluted":true}}}`;
  for (const [body, path] of [
    [`{"apiKey":"${keyA}","events":[${event}]}`, 'events[0].usage.__proto__'],
    [
      `{"apiKey":"${keyA}","events":[{"model":"gpt-4o","usage":{}}],"__proto__":{"polluted":true}}`,
      '__proto__',
    ],
    [`{"apiKey":"${keyA}","model":"gpt-4o","__proto__":{},"usage":{"prompt_tokens":1}}`, '__proto__'],
  ] as const) {
    const res = await call(request('/api/ingest', body));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ problems: [{ path, message: 'unknown field' }] });
  }
  const client = `{"events":[{"model":"gpt-4o","__proto__":{"polluted":true}}]}`;
  const res = await call(request('/v1/events', client, { 'service-api-key': keyA }));
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ problems: [{ path: 'events[0].__proto__' }] });
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(puts).toHaveLength(0);
});

describe('POST /v1/events', () => {
  const clientEvent = {
    id: '2b1f0a7e-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
    timestamp: '2026-11-22T09:00:00.000Z',
    provider: 'anthropic',
    model: 'claude-sonnet-4-20250514',
    promptTokens: 1200,
    completionTokens: 300,
    totalTokens: 1500,
    estimatedCostUsd: 0.0081,
    costSource: 'PROVIDER_REGISTRY',
    latencyMs: 850,
    statusCode: 200,
    projectId: 'agent',
    environment: 'production',
  };

  it('takes the client form with the Service-API-Key header', async () => {
    const res = await call(
      request('/v1/events', JSON.stringify({ events: [clientEvent] }), { 'service-api-key': keyA }),
    );
    expect(res).toMatchObject({ status: 200, body: { status: 'ok', count: 1 } });
    expect(puts[0]![0]!.events[0]).toMatchObject({
      eventId: clientEvent.id,
      source: 'sdk',
      clientCostUsd: 0.0081,
      inputTokens: 1200,
    });
  });

  it('401 without the header, even with a key in the body', async () => {
    const res = await call(request('/v1/events', JSON.stringify({ apiKey: keyA, events: [clientEvent] })));
    expect(res.status).toBe(401);
  });
});
