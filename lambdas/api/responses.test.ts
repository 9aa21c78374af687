/**
 * Conformance: the real handlers, on real stores (test/backend-harness), answer exactly as the OpenAPI
 * document says — each body is parsed with the zod schema the document names for its status. A handler
 * that adds, drops or reshapes a field, or answers with an undocumented status, fails here.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { z } from 'zod';
import { aggregateDeltas, type PricedCall } from '../../core/ledger/aggregate-deltas';
import type { LedgerEntry } from '../../core/ledger/ledger-entry';
import { reconcile } from '../../core/reconciliation';
import { formatZodIssues } from '../../core/schemas';
import { createLambdaContext, createLocalIssuer, type LocalIssuer } from '../../local/runtime';
import { startBackendHarness, type BackendHarness } from '../../test/backend-harness';
import { createEnforceHandler } from '../enforce/handler';
import { createForecastRunner } from '../forecast/runner';
import { BackgroundForecastRuns } from '../forecast/runs';
import { createIngestHandler } from '../ingest/handler';
import type { IdTokenVerifier } from '../shared/services';
import { createApiHandler, ROUTES } from './handler';
import { COMPONENT_SCHEMAS, buildOpenApiDocument, type OpenApiResponse } from './openapi';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const ORG = 'org_conformance';
const HOUR = 3_600_000;

let h: BackendHarness;
let issuer: LocalIssuer;
let idTokens: IdTokenVerifier;
let token: string;
let key: { apiKey: string; publicId: string; prefix: string };

const ctx = createLambdaContext({ functionName: 'api' });
const doc = buildOpenApiDocument({ version: 'test', routes: ROUTES });

interface RequestOptions {
  token?: string;
  key?: string;
  body?: unknown;
  query?: Record<string, string>;
  params?: Record<string, string>;
}

function req(routeKey: string, opts: RequestOptions = {}): APIGatewayProxyEventV2 {
  const [, path] = routeKey.split(' ') as [string, string];
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.key ? { 'service-api-key': opts.key } : {}),
    },
    queryStringParameters: opts.query,
    pathParameters: opts.params,
    requestContext: {} as APIGatewayProxyEventV2['requestContext'],
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    isBase64Encoded: false,
  };
}

type Handler = (event: APIGatewayProxyEventV2, context: typeof ctx) => Promise<unknown>;

/** Calls a handler and returns the status and parsed body. */
async function call(handler: Handler, routeKey: string, opts: RequestOptions = {}) {
  const res = (await handler(req(routeKey, opts), ctx)) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode ?? 0, body: JSON.parse(res.body ?? 'null') as unknown };
}

let forecastRuns: BackgroundForecastRuns;
let forecastRunId = '';

const api = (routeKey: string, opts: RequestOptions = {}) =>
  call(
    createApiHandler({
      services: h.services,
      idTokens,
      registry: h.registry,
      logger: h.logger,
      forecastRuns,
      version: 'test',
    }),
    routeKey,
    opts,
  );

/** The zod schema the document names for this operation and status; throws for an undocumented status. */
function documentedSchema(routeKey: string, status: number): z.ZodType {
  const [method, path] = routeKey.split(' ') as [string, string];
  let response = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
  if (!response) throw new Error(`${routeKey} answered ${status}, which the document does not list`);
  if ('$ref' in response) response = doc.components.responses[response.$ref.split('/').pop()!]!;
  const ref = (response as OpenApiResponse).content['application/json'].schema.$ref;
  return COMPONENT_SCHEMAS[ref.split('/').pop() as keyof typeof COMPONENT_SCHEMAS];
}

/** The issues of a response against its documented schema ([] when it conforms). */
function nonConformance(routeKey: string, res: { status: number; body: unknown }) {
  const r = documentedSchema(routeKey, res.status).safeParse(res.body);
  return r.success ? [] : formatZodIssues(r.error);
}

function ledgerEntry(i: number): LedgerEntry {
  return {
    eventId: `evt_conf_${i}`,
    ts: new Date(NOW - i * 60_000).toISOString(),
    source: i % 2 ? 'proxy' : 'sdk',
    kind: i === 2 ? 'budget_warning' : 'call',
    keyId: key.publicId,
    provider: 'openai',
    model: 'gpt-4o-mini',
    inputTokens: 1200,
    cacheReadTokens: 200,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 350,
    reasoningTokens: 0,
    webSearchRequests: 0,
    costNanos: i === 2 ? 0 : 390_000,
    costSource: 'PROVIDER_REGISTRY',
    registryCostNanos: i === 2 ? 0 : 390_000,
    toolFeesNanos: 0,
    pricedAs: 'gpt-4o-mini',
    clientCostUsd: i === 0 ? 0.0004 : null,
    providerCostUsd: null,
    estimated: i === 1,
    latencyMs: i === 0 ? null : 850,
    statusCode: 200,
    projectId: i === 0 ? 'checkout-bot' : null,
    environment: 'production',
    featureId: 'summarize',
    sessionId: i === 1 ? 'sess_42' : null,
    endpoint: '/v1/chat/completions',
    stream: i === 1 ? true : null,
    verified: true,
    fingerprint: i === 1 ? '9f2c4e1a7b3d5f60' : null,
  };
}

/**
 * The seeding hooks write fourteen days of calls and an issuer key through dynalite: about 7 s on a quiet
 * 2-core machine, over 30 s (Jest's default) when other suites load both cores. They wait rather than
 * fail; a stand-in that does not answer at all still fails fast (waitForStandIns, connection timeout).
 */
const SEED_TIMEOUT_MS = 180_000;

beforeAll(async () => {
  h = await startBackendHarness();
  const runner = createForecastRunner({ services: h.services, registry: h.registry, logger: h.logger });
  forecastRuns = new BackgroundForecastRuns((orgId) => runner.runOrganization(orgId));
  h.setNow(NOW);
  issuer = await createLocalIssuer({ memory: true, issuerUrl: 'http://127.0.0.1:1/local-issuer' });
  const verifier = issuer.createVerifier();
  idTokens = { verify: async (t) => (await verifier.verify(t)) as Record<string, unknown> };
  token = await issuer.issueIdToken({ sub: 'conformance', email: 'c@example.com', orgId: ORG });
  key = await h.createKey(ORG);

  // Fourteen days of calls, denser in the last hour: every series and breakdown has rows.
  const calls: PricedCall[] = [];
  for (let t = NOW - 14 * 24 * HOUR; t < NOW; t += t > NOW - HOUR ? 5 * 60_000 : 37 * 60_000) {
    const anthropic = Math.floor(t / HOUR) % 3 === 0;
    calls.push({
      ts: t,
      provider: anthropic ? 'anthropic' : 'openai',
      model: anthropic ? 'claude-sonnet-4-20250514' : 'gpt-4o-mini',
      projectId: 'checkout-bot',
      featureId: 'summarize',
      inputTokens: 1200,
      outputTokens: 350,
      costNanos: anthropic ? 8_850_000 : 390_000,
    });
  }
  await h.services.aggregates.applyRecord(ORG, '1', aggregateDeltas(calls));
  await h.services.ledger.putForRecord(ORG, '1', [0, 1, 2].map(ledgerEntry));
  await h.services.trips.add(ORG, {
    at: new Date(NOW - HOUR).toISOString(),
    layer: 'identicalLoop',
    triggerType: 'token_loop_identical',
    observedValue: 4,
    thresholdValue: 4,
    mode: 'hard_stop',
    action: 'SUSPENDED',
    keyId: key.publicId,
    sessionId: null,
    message: '4 identical consecutive requests',
  });
}, SEED_TIMEOUT_MS);
afterAll(() => h.close());

describe('every GET route answers as the OpenAPI document says', () => {
  /** How to call each GET route, and what shows its response is not trivially empty. */
  const GETS: Record<string, { opts: () => RequestOptions; filled: (body: never) => boolean }> = {
    'GET /v1/health': { opts: () => ({}), filled: (b: { status: string }) => b.status === 'ok' },
    'GET /v1/openapi.json': {
      opts: () => ({}),
      filled: (b: { paths: object }) => Object.keys(b.paths).length > 10,
    },
    'GET /v1/ledger': {
      opts: () => ({ key: key.apiKey, query: { limit: '10' } }),
      filled: (b: { entries: unknown[] }) => b.entries.length === 3,
    },
    'GET /v1/spend': {
      opts: () => ({ token }),
      filled: (b: { byModel: unknown[]; byProvider: unknown[]; hourly: unknown[]; minutes: unknown[] }) =>
        b.byModel.length === 2 && b.byProvider.length === 2 && b.hourly.length > 0 && b.minutes.length > 0,
    },
    'GET /v1/forecast': {
      opts: () => ({ key: key.apiKey }),
      filled: (b: { forecast: { fan: unknown[]; horizons: Array<{ budgets: unknown[] }> } | null }) =>
        b.forecast !== null &&
        b.forecast.fan.length > 0 &&
        b.forecast.horizons.some((x) => x.budgets.length > 0),
    },
    'GET /v1/budget': {
      opts: () => ({ token }),
      filled: (b: { flag: unknown; budget: { dailyLimitUsd: unknown } }) =>
        b.flag !== null && b.budget.dailyLimitUsd !== null,
    },
    'GET /v1/keys': {
      opts: () => ({ token }),
      filled: (b: { keys: Array<{ revokedAt: unknown }> }) => b.keys.some((k) => k.revokedAt !== null),
    },
    'GET /v1/flags': { opts: () => ({ token }), filled: (b: { flags: unknown[] }) => b.flags.length > 0 },
    'GET /v1/guardrails/trips': {
      opts: () => ({ token, query: { limit: '5' } }),
      filled: (b: { trips: unknown[] }) => b.trips.length === 1,
    },
    'GET /v1/reconciliation': {
      opts: () => ({ token }),
      filled: (b: { providers: Array<{ days: Array<{ model?: string }> }> }) =>
        b.providers.length === 1 && b.providers[0]!.days.some((d) => d.model === undefined),
    },
    'GET /v1/reconciliation/credentials': {
      opts: () => ({ token }),
      filled: (b: { providers: Array<{ configured: boolean; regions?: string[] }> }) =>
        b.providers.length === 4 && b.providers.some((p) => p.configured && p.regions?.[0] === 'us-east-1'),
    },
    'GET /v1/sessions': {
      opts: () => ({ token, query: { hours: '24' } }),
      filled: (b: { sessions: Array<{ sessionId: string; calls: number }> }) =>
        b.sessions.length === 1 && b.sessions[0]!.sessionId === 'sess_42' && b.sessions[0]!.calls === 1,
    },
    'GET /v1/pricing/rates': {
      opts: () => ({ token }),
      filled: (b: { rates: { models?: object } }) => b.rates.models !== undefined,
    },
    'GET /v1/audit': {
      opts: () => ({ token, query: { limit: '50' } }),
      filled: (b: { entries: Array<{ action: string; before: unknown; after: unknown }> }) =>
        ['budget.updated', 'pricing_rates.updated', 'key.created', 'key.revoked', 'flag.set'].every((a) =>
          b.entries.some((e) => e.action === a && e.after !== null),
        ),
    },
    'GET /v1/forecast/runs/{runId}': {
      opts: () => ({ token, params: { runId: forecastRunId } }),
      filled: (b: { status: string; stoppedAt: unknown }) => b.status === 'succeeded' && b.stoppedAt !== null,
    },
  };

  beforeAll(async () => {
    // State that only the API itself writes: a budget, a revoked key, a flag, a forecast.
    const budget = {
      dailyLimitUsd: 50,
      monthlyLimitUsd: 1000,
      dailySoftLimitUsd: 40,
      monthlySoftLimitUsd: 800,
      action: 'block',
    };
    const put = await api('PUT /v1/budget', {
      token,
      body: { budget, policy: { layers: { rpsBurst: { maxRequests: 20 } } } },
    });
    expect([put.status, nonConformance('PUT /v1/budget', put)]).toEqual([200, []]);
    const rates = await api('PUT /v1/pricing/rates', {
      token,
      body: { models: { 'llama:*': { inputUsdPerMTok: 0, outputUsdPerMTok: 0 } } },
    });
    expect([rates.status, nonConformance('PUT /v1/pricing/rates', rates)]).toEqual([200, []]);
    const created = await api('POST /v1/keys', { token, body: { name: ' ci ' } });
    expect([created.status, nonConformance('POST /v1/keys', created)]).toEqual([201, []]);
    const publicId = (created.body as { key: { publicId: string } }).key.publicId;
    const revoked = await api('DELETE /v1/keys/{publicId}', { token, params: { publicId } });
    expect([revoked.status, nonConformance('DELETE /v1/keys/{publicId}', revoked)]).toEqual([200, []]);
    const enforce = createEnforceHandler({
      services: h.services,
      idTokens,
      logger: h.logger,
      metrics: h.metrics,
    });
    const push = {
      apiKey: key.prefix,
      action: 'SUSPENDED',
      triggerType: 'token_loop_identical',
      observedValue: 4,
      thresholdValue: 4,
      mode: 'hard_stop',
    };
    const pushed = await call(enforce, 'POST /api/guardrails/enforce', { token, body: push });
    expect([pushed.status, nonConformance('POST /api/guardrails/enforce', pushed)]).toEqual([200, []]);
    const run = await api('POST /v1/forecast/run', { token });
    expect([run.status, nonConformance('POST /v1/forecast/run', run)]).toEqual([202, []]);
    forecastRunId = (run.body as { runId: string }).runId;
    await forecastRuns.settled();
    const cred = await api('PUT /v1/reconciliation/credentials', {
      token,
      body: { provider: 'anthropic', adminKey: 'sk-ant-admin01-conformance' },
    });
    expect([cred.status, nonConformance('PUT /v1/reconciliation/credentials', cred)]).toEqual([200, []]);
    const bedrock = await api('PUT /v1/reconciliation/credentials', {
      token,
      body: { provider: 'bedrock', regions: ['us-east-1'] },
    });
    expect([bedrock.status, nonConformance('PUT /v1/reconciliation/credentials', bedrock)]).toEqual([
      200,
      [],
    ]);
    // A stored run (the run route itself reads the providers' reports: local/reconciliation.test.ts).
    const day = new Date(NOW).toISOString().slice(0, 10);
    await h.services.reconciliations.put(ORG, {
      computedAt: new Date(NOW).toISOString(),
      window: { from: day, to: day },
      providers: reconcile(
        [
          {
            date: day,
            provider: 'anthropic',
            model: 'claude-sonnet-4-20250514',
            costNanos: 8_850_000,
            tokens: 1550,
          },
        ],
        [
          {
            provider: 'anthropic',
            coveredDays: [day],
            rows: [
              { date: day, model: 'claude-sonnet-4', costNanos: 8_850_000, tokens: 1550 },
              { date: day, model: null, costNanos: 30_000_000, tokens: 0 },
            ],
          },
        ],
      ),
      errors: [],
    });
  }, SEED_TIMEOUT_MS);

  const getRoutes = Object.keys(ROUTES).filter((k) => k.startsWith('GET '));

  it('has a request for every GET route of ROUTES', () => {
    expect(getRoutes.filter((k) => !(k in GETS))).toEqual([]);
  });

  it.each(getRoutes)('%s', async (routeKey) => {
    const spec = GETS[routeKey];
    if (!spec) throw new Error(`no request for ${routeKey} in GETS`);
    const res = await api(routeKey, spec.opts());
    expect(nonConformance(routeKey, res)).toEqual([]);
    expect(res.status).toBe(200);
    expect(spec.filled(res.body as never)).toBe(true);
  });

  it('GET /v1/openapi.json serves the document built from the schemas', async () => {
    expect((await api('GET /v1/openapi.json')).body).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('GET /v1/forecast before any run computes the first forecast and answers it', async () => {
    const other = await issuer.issueIdToken({
      sub: 'x',
      email: 'x@example.com',
      orgId: 'org_conformance_empty',
    });
    const res = await api('GET /v1/forecast', { token: other });
    expect(res.body).toMatchObject({
      computedAt: expect.any(String),
      forecast: { horizons: expect.arrayContaining([expect.objectContaining({ p50Usd: 0, p99Usd: 0 })]) },
    });
    expect(nonConformance('GET /v1/forecast', res)).toEqual([]);
  });
});

describe('the other endpoints and the errors answer as documented', () => {
  it('POST /api/ingest and POST /v1/events: 200', async () => {
    const ingest = createIngestHandler({ services: h.services, logger: h.logger, metrics: h.metrics });
    const plain = await call(ingest, 'POST /api/ingest', {
      body: {
        apiKey: key.apiKey,
        events: [{ model: 'gpt-4o-mini', usage: { prompt_tokens: 10, completion_tokens: 2 } }],
      },
    });
    expect([plain.status, nonConformance('POST /api/ingest', plain)]).toEqual([200, []]);
    const sdk = await call(ingest, 'POST /v1/events', {
      key: key.apiKey,
      body: {
        events: [
          {
            id: '5f0c8a4e-3b7d-4c21-9a6e-2d1f0b9c7e34',
            timestamp: new Date(NOW).toISOString(),
            provider: 'openai',
            model: 'gpt-4o-mini',
            promptTokens: 10,
            completionTokens: 2,
            totalTokens: 12,
            estimatedCostUsd: 0.00001,
            costSource: 'PROVIDER_REGISTRY',
            latencyMs: 300,
            statusCode: 200,
          },
        ],
      },
    });
    expect([sdk.status, nonConformance('POST /v1/events', sdk)]).toEqual([200, []]);
  });

  it('POST /api/ingest: 400 and 401 with the error body', async () => {
    const ingest = createIngestHandler({ services: h.services, logger: h.logger, metrics: h.metrics });
    const bad = await call(ingest, 'POST /api/ingest', {
      body: { apiKey: key.apiKey, events: [{ model: 'm', usage: {} }] },
    });
    expect([bad.status, nonConformance('POST /api/ingest', bad)]).toEqual([400, []]);
    const unknown = await call(ingest, 'POST /api/ingest', { body: { apiKey: 'abn_nope', events: [] } });
    expect([unknown.status, nonConformance('POST /api/ingest', unknown)]).toEqual([401, []]);
    const many = await call(ingest, 'POST /v1/events', {
      key: key.apiKey,
      body: { events: new Array(101).fill({}) },
    });
    expect([many.status, nonConformance('POST /v1/events', many)]).toEqual([413, []]);
  });

  it('POST /api/guardrails/enforce: clear, and 403 for a key of another organization', async () => {
    const enforce = createEnforceHandler({
      services: h.services,
      idTokens,
      logger: h.logger,
      metrics: h.metrics,
    });
    const otherToken = await issuer.issueIdToken({
      sub: 'y',
      email: 'y@example.com',
      orgId: 'org_conformance_other',
    });
    const otherKey = await h.createKey('org_conformance_other');
    const cleared = await call(enforce, 'POST /api/guardrails/enforce', {
      token: otherToken,
      body: { apiKey: otherKey.prefix, action: 'ACTIVE' },
    });
    expect([cleared.status, nonConformance('POST /api/guardrails/enforce', cleared)]).toEqual([200, []]);
    const forbidden = await call(enforce, 'POST /api/guardrails/enforce', {
      token: otherToken,
      body: { apiKey: key.prefix, action: 'ACTIVE' },
    });
    expect([forbidden.status, nonConformance('POST /api/guardrails/enforce', forbidden)]).toEqual([403, []]);
  });

  it.each<[string, number, () => RequestOptions]>([
    ['GET /v1/ledger', 400, () => ({ token, query: { limit: '0', source: 'fax' } })],
    ['GET /v1/ledger', 401, () => ({ key: 'abn_nope' })],
    ['GET /v1/guardrails/trips', 400, () => ({ token, query: { limit: 'many' } })],
    ['GET /v1/sessions', 400, () => ({ token, query: { hours: '0' } })],
    ['PUT /v1/budget', 400, () => ({ token, body: { budget: { action: 'explode' } } })],
    [
      'PUT /v1/pricing/rates',
      400,
      () => ({ token, body: { models: { 'llama:*': { inputUsdPerMTok: -1 } } } }),
    ],
    ['POST /v1/keys', 400, () => ({ token, body: {} })],
    ['DELETE /v1/keys/{publicId}', 400, () => ({ token, params: { publicId: 'NOT-AN-ID' } })],
    ['DELETE /v1/keys/{publicId}', 404, () => ({ token, params: { publicId: 'abcdefabcdef' } })],
  ])('%s → %i with the error body', async (routeKey, status, opts) => {
    const res = await api(routeKey, opts());
    expect([res.status, nonConformance(routeKey, res)]).toEqual([status, []]);
  });
});
