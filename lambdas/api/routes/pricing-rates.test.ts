import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createLambdaContext, createLocalIssuer, type LocalIssuer } from '../../../local/runtime';
import {
  startBackendHarness,
  type BackendHarness,
  UNUSED_FORECAST_RUNS,
} from '../../../test/backend-harness';
import { envelopeOf, kinesisBatch, telemetryEvent } from '../../../test/fixtures';
import { createPricingConsumer } from '../../pricing-consumer/handler';
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
});
