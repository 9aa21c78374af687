import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createLambdaContext, createLocalIssuer, type LocalIssuer } from '../../../local/runtime';
import {
  startBackendHarness,
  type BackendHarness,
  UNUSED_FORECAST_RUNS,
} from '../../../test/backend-harness';
import { envelopeOf, kinesisBatch, telemetryEvent } from '../../../test/fixtures';
import { createPricingConsumer } from '../../pricing-consumer/handler';
import { compileOrgRates, MAX_PROVIDER_RATES } from '../../../core/pricing';
import { createApiHandler } from '../handler';

let h: BackendHarness;
let issuer: LocalIssuer;
let token: string;
let otherToken: string;
let key: { apiKey: string };

beforeAll(async () => {
  h = await startBackendHarness();
  issuer = await createLocalIssuer({ memory: true, issuerUrl: 'http://127.0.0.1:1/local-issuer' });
  token = await issuer.issueIdToken({ sub: 'alice', email: 'a@example.com', orgId: 'org_rates' });
  otherToken = await issuer.issueIdToken({ sub: 'bob', email: 'b@example.com', orgId: 'org_other' });
  key = await h.createKey('org_rates');
});
afterAll(() => h.close());

const ctx = createLambdaContext({ functionName: 'api' });

async function call(routeKey: string, opts: { token?: string; key?: string; body?: unknown } = {}) {
  const verifier = issuer.createVerifier();
  const handler = createApiHandler({
    services: h.services,
    idTokens: { verify: async (t) => (await verifier.verify(t)) as Record<string, unknown> },
    registry: h.registry,
    logger: h.logger,
    forecastRuns: UNUSED_FORECAST_RUNS,
    version: 'test',
  });
  const event = {
    version: '2.0',
    routeKey,
    rawPath: routeKey.split(' ')[1]!,
    rawQueryString: '',
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.key ? { 'service-api-key': opts.key } : {}),
    },
    requestContext: {} as APIGatewayProxyEventV2['requestContext'],
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    isBase64Encoded: false,
  } as APIGatewayProxyEventV2;
  const res = (await handler(event, ctx)) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode, body: JSON.parse(res.body ?? 'null') as Record<string, unknown> };
}

describe('GET/PUT /v1/pricing/rates', () => {
  it('answers {} before any rate is saved', async () => {
    const res = await call('GET /v1/pricing/rates', { token: otherToken });

    expect(res).toEqual({ status: 200, body: { rates: {}, updatedAt: null } });
  });

  it('saves a self-hosted endpoint rate that the pricing consumer then applies (ORG_RATE)', async () => {
    const rates = { models: { 'llama:*': { inputUsdPerMTok: 0.1, outputUsdPerMTok: 0.4 } } };

    const put = await call('PUT /v1/pricing/rates', { token, body: rates });
    const got = await call('GET /v1/pricing/rates', { token });
    const consumer = createPricingConsumer({
      services: h.services,
      registry: h.registry,
      logger: h.logger,
      metrics: h.metrics,
    });
    const event = telemetryEvent({
      eventId: 'evt_llama_rate',
      provider: 'llama',
      model: 'Llama-3.3-70B-Instruct',
      inputTokens: 10_000,
      outputTokens: 2_000,
    });
    await consumer(kinesisBatch([{ seq: '500', envelope: envelopeOf('org_rates', [event]) }]), ctx);
    const page = await h.services.ledger.query('org_rates', {}, 10, null);

    expect(put.status).toBe(200);
    expect(got.body.rates).toEqual(rates);
    // 10,000 × $0.10 + 2,000 × $0.40 per MTok = 1,000,000 + 800,000 nanos
    expect(page.entries[0]).toMatchObject({ costNanos: 1_800_000, costSource: 'ORG_RATE' });
    // other organizations are untouched
    expect((await call('GET /v1/pricing/rates', { token: otherToken })).body.rates).toEqual({});
  });

  it('refuses API keys: people only', async () => {
    expect((await call('GET /v1/pricing/rates', { key: key.apiKey })).status).toBe(401);
  });

  it('answers 400 with the field path of a bad rate, and keeps the stored rates', async () => {
    const before = await call('GET /v1/pricing/rates', { token });
    const res = await call('PUT /v1/pricing/rates', {
      token,
      body: { models: { 'llama:*': { inputUsdPerMTok: -1, outputUsdPerMTok: 0 } } },
    });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: {
        problems: [{ path: 'models["llama:*"].inputUsdPerMTok', message: expect.stringContaining('>=0') }],
      },
    });
    expect((await call('GET /v1/pricing/rates', { token })).body).toEqual(before.body);
  });

  it('bounds providers at MAX_PROVIDER_RATES and checks each key as a provider id, naming it', async () => {
    const before = await call('GET /v1/pricing/rates', { token });
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, 0.9]));
    // 60,000 entries were a 500 (DynamoDB item size); the bound answers first, with one problem.
    for (const n of [MAX_PROVIDER_RATES + 1, 60_000]) {
      const res = await call('PUT /v1/pricing/rates', { token, body: { providers: many(n) } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: {
          problems: [{ path: 'providers', message: `at most ${MAX_PROVIDER_RATES} provider multipliers` }],
        },
      });
    }
    const long = 'a'.repeat(65);
    for (const [bad, path] of [
      ['open ai', 'providers["open ai"]'],
      ['-openai', 'providers["-openai"]'],
      [long, `providers.${long}`],
      ['open\u0000ai', 'providers["open\\u0000ai"]'],
      ['', 'providers[""]'],
    ]) {
      const res = await call('PUT /v1/pricing/rates', { token, body: { providers: { [bad!]: 0.9 } } });
      expect(res.status).toBe(400);
      expect((res.body.error as { problems: { path: string }[] }).problems[0]!.path).toBe(path);
    }
    const twice = await call('PUT /v1/pricing/rates', {
      token,
      body: { providers: { OpenAI: 0.5, openai: 0.9 } },
    });
    expect(twice.status).toBe(400);
    expect((await call('GET /v1/pricing/rates', { token })).body).toEqual(before.body);

    const atBound = await call('PUT /v1/pricing/rates', {
      token,
      body: { providers: many(MAX_PROVIDER_RATES) },
    });
    expect(atBound.status).toBe(200);
    // Mixed case is a provider id too (lower-cased when compiled), as rates saved before this check are.
    const mixed = await call('PUT /v1/pricing/rates', { token, body: { providers: { OpenAI: 0.5 } } });
    expect(mixed.status).toBe(200);
  });

  it('keeps pricing and showing rates stored before provider keys were checked', async () => {
    const legacy = {
      providers: { 'Open AI ': 0.5, ...Object.fromEntries([...Array(150).keys()].map((i) => [`p${i}`, 1])) },
    };
    await h.services.pricingRates.put(
      'org_legacy_rates',
      { rates: legacy, updatedAt: '2026-01-01T00:00:00.000Z' },
      0,
    );
    const legacyToken = await issuer.issueIdToken({
      sub: 'carol',
      email: 'c@example.com',
      orgId: 'org_legacy_rates',
    });

    const got = await call('GET /v1/pricing/rates', { token: legacyToken });

    expect(got.body.rates).toEqual(legacy);
    expect(compileOrgRates(legacy).providers.get('open ai')).toEqual({ num: 1, den: 2 });
  });

  it('records concurrent PUTs as one chain: each audit before is the previous after', async () => {
    const org = 'org_rates_race';
    const raceToken = await issuer.issueIdToken({ sub: 'dave', email: 'd@example.com', orgId: org });
    const N = 10;
    const bodies = Array.from({ length: N }, (_, i) => ({ multiplier: (i + 1) / 10 }));

    const answers = await Promise.all(
      bodies.map((body) => call('PUT /v1/pricing/rates', { token: raceToken, body })),
    );

    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));
    const page = await h.services.audit.list(
      org,
      { limit: 50, cursor: null, action: 'pricing_rates.updated' },
      h.services.now(),
    );
    expect(page.entries).toHaveLength(N);
    // Walk the chain from the empty rates: every entry must be reached exactly once.
    const byBefore = new Map<string, unknown[]>();
    for (const e of page.entries) {
      const k = JSON.stringify(e.before);
      byBefore.set(k, [...(byBefore.get(k) ?? []), e.after]);
    }
    let at = JSON.stringify({});
    const walked: unknown[] = [];
    while (byBefore.has(at)) {
      const next = byBefore.get(at)!;
      expect(next).toHaveLength(1);
      byBefore.delete(at);
      walked.push(next[0]);
      at = JSON.stringify(next[0]);
    }
    expect(walked).toHaveLength(N);
    // The chain ends at what is stored.
    expect((await call('GET /v1/pricing/rates', { token: raceToken })).body.rates).toEqual(walked.at(-1));
  });
});
