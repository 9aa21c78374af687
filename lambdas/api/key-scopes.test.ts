/**
 * Key scopes (issue 15.3): chosen at creation, enforced on every route a key reaches (ingest, the v1
 * reads), and every scope for keys stored before scopes existed or created without a list.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { errorBodySchema } from '../../core/schemas/api';
import { createLambdaContext, createLocalIssuer } from '../../local/runtime';
import { startBackendHarness, type BackendHarness, UNUSED_FORECAST_RUNS } from '../../test/backend-harness';
import { createIngestHandler } from '../ingest/handler';
import { ApiKeyAuthenticator } from '../shared/api-key-auth';
import type { EventSink } from '../shared/event-sink';
import type { IdTokenVerifier } from '../shared/services';
import { createApiHandler, ROUTES } from './handler';

let h: BackendHarness;
let idTokens: IdTokenVerifier;
let token: string;
const sink: EventSink = { put: async () => undefined };

beforeAll(async () => {
  h = await startBackendHarness();
  h.setNow(Date.now());
  const issuer = await createLocalIssuer({ memory: true, issuerUrl: 'http://127.0.0.1:1/local-issuer' });
  const v = issuer.createVerifier();
  idTokens = { verify: async (t) => (await v.verify(t)) as Record<string, unknown> };
  token = await issuer.issueIdToken({ sub: 'alice', email: 'a@example.com', orgId: 'org_s' });
});
afterAll(() => h.close());

const ctx = createLambdaContext({ functionName: 'api' });

function event(
  routeKey: string,
  opts: { token?: string; key?: string; body?: unknown } = {},
): APIGatewayProxyEventV2 {
  const [, path] = routeKey.split(' ');
  return {
    version: '2.0',
    routeKey,
    rawPath: path!,
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.key ? { 'service-api-key': opts.key } : {}),
    },
    requestContext: {} as APIGatewayProxyEventV2['requestContext'],
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    isBase64Encoded: false,
  };
}

type Answer = { status: number; body: any; headers: Record<string, unknown> }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function run(
  handler: (e: APIGatewayProxyEventV2, c: typeof ctx) => Promise<unknown>,
  e: APIGatewayProxyEventV2,
): Promise<Answer> {
  const res = (await handler(e, ctx)) as APIGatewayProxyStructuredResultV2;
  return {
    status: res.statusCode ?? 0,
    body: JSON.parse(res.body ?? 'null'),
    headers: (res.headers ?? {}) as Record<string, unknown>,
  };
}

const api = (e: APIGatewayProxyEventV2) =>
  run(
    createApiHandler({
      services: h.services,
      idTokens,
      registry: h.registry,
      logger: h.logger,
      forecastRuns: UNUSED_FORECAST_RUNS,
      version: 'test',
    }),
    e,
  );
const ingest = (e: APIGatewayProxyEventV2) =>
  run(createIngestHandler({ services: { ...h.services, sink }, logger: h.logger, metrics: h.metrics }), e);

const sdkBatch = {
  events: [
    {
      id: '2b1f0a7e-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
      timestamp: '2026-11-22T09:00:00.000Z',
      provider: 'openai',
      model: 'gpt-4o-mini',
      promptTokens: 10,
      completionTokens: 5,
      totalTokens: 15,
      estimatedCostUsd: 0.00001,
      costSource: 'PROVIDER_REGISTRY',
      latencyMs: 100,
      statusCode: 200,
    },
  ],
};
const plainEvents = [{ model: 'gpt-4o-mini', usage: { prompt_tokens: 10, completion_tokens: 5 } }];

async function createKey(body: unknown): Promise<Answer> {
  return api(event('POST /v1/keys', { token, body }));
}

/** What a key may reach: ingest (both forms) and a v1 read. */
async function reach(apiKey: string) {
  const [events, plain, ledger, spend] = await Promise.all([
    ingest(event('POST /v1/events', { key: apiKey, body: sdkBatch })),
    ingest(event('POST /api/ingest', { body: { apiKey, events: plainEvents } })),
    api(event('GET /v1/ledger', { key: apiKey })),
    api(event('GET /v1/spend', { key: apiKey })),
  ]);
  return { events: events.status, plain: plain.status, ledger: ledger.status, spend: spend.status };
}

describe('key scopes', () => {
  it('a key created without a list carries every scope, and reaches everything', async () => {
    const created = await createKey({ name: 'everything' });
    expect(created.status).toBe(201);
    expect(created.body.key.scopes).toEqual(['proxy', 'ingest', 'read']);
    expect(await reach(created.body.apiKey)).toEqual({ events: 200, plain: 200, ledger: 200, spend: 200 });
  });

  it('a key stored before scopes existed carries every scope (listed so, and enforced so)', async () => {
    const legacy = await h.createKey('org_s', 'legacy'); // written without a scopes attribute
    const list = await api(event('GET /v1/keys', { token }));
    expect(list.body.keys.find((k: { publicId: string }) => k.publicId === legacy.publicId).scopes).toEqual([
      'proxy',
      'ingest',
      'read',
    ]);
    expect(await reach(legacy.apiKey)).toEqual({ events: 200, plain: 200, ledger: 200, spend: 200 });
  });

  it('an ingest-only key sends telemetry but cannot read the ledger (403 scope_missing)', async () => {
    const created = await createKey({ name: 'browser telemetry', scopes: ['ingest'] });
    expect(created.body.key.scopes).toEqual(['ingest']);
    expect(await reach(created.body.apiKey)).toEqual({ events: 200, plain: 200, ledger: 403, spend: 403 });
    const refused = await api(event('GET /v1/ledger', { key: created.body.apiKey }));
    expect(errorBodySchema.safeParse(refused.body).success).toBe(true);
    expect(refused.body).toEqual({
      error: {
        type: 'permission_error',
        code: 'scope_missing',
        message: expect.stringContaining("'read'"),
      },
    });
  });

  it('a read-only key reads but cannot post events, in either ingest form', async () => {
    const created = await createKey({ name: 'reporting', scopes: ['read'] });
    expect(await reach(created.body.apiKey)).toEqual({ events: 403, plain: 403, ledger: 200, spend: 200 });
    const refused = await ingest(event('POST /v1/events', { key: created.body.apiKey, body: sdkBatch }));
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'scope_missing' });
  });

  it('an ingest-only key (the SDK) still reads its kill state from GET /v1/budget; a proxy-only key cannot', async () => {
    const sdk = await createKey({ name: 'sdk', scopes: ['ingest'] });
    expect((await api(event('GET /v1/budget', { key: sdk.body.apiKey }))).status).toBe(200);
    const browser = await createKey({ name: 'browser', scopes: ['proxy'] });
    expect((await api(event('GET /v1/budget', { key: browser.body.apiKey }))).status).toBe(403);
  });

  it('a proxy-only key neither posts events nor reads', async () => {
    const created = await createKey({ name: 'proxy', scopes: ['proxy'] });
    expect(await reach(created.body.apiKey)).toEqual({ events: 403, plain: 403, ledger: 403, spend: 403 });
  });

  it('tells a request without a credential which one the route takes (401, code unauthorized)', async () => {
    const messageOf = async (routeKey: string) => {
      const res = await api(event(routeKey, { body: { holderId: 'h1', consumedUsd: 0 } }));
      expect([routeKey, res.status, res.body.error.code]).toEqual([routeKey, 401, 'unauthorized']);
      return res.body.error.message as string;
    };

    // Key-only: a lease belongs to a running program; an ID token would be refused with 403 anyway.
    for (const routeKey of ['POST /v1/budget/lease', 'POST /v1/budget/lease/release']) {
      expect(await messageOf(routeKey)).toBe('Service-API-Key is required (this route is for programs)');
    }
    for (const routeKey of ['GET /v1/ledger', 'GET /v1/spend', 'GET /v1/budget']) {
      expect(await messageOf(routeKey)).toBe(
        'Service-API-Key or Authorization: Bearer <ID token> is required',
      );
    }
    expect(await messageOf('GET /v1/keys')).toBe('Authorization: Bearer <ID token> is required');
  });

  it("docs/api.md's program row lists exactly the routes that take a Service-API-Key", () => {
    const doc = readFileSync(join(__dirname, '../../docs/api.md'), 'utf8');
    const row = doc.split('\n').find((line) => line.startsWith('| programs (SDK, scripts)'));
    const listed = [...(row ?? '').split('|')[3]!.matchAll(/`((?:GET|POST|PUT|DELETE) [^`]+)`/g)].map(
      (m) => m[1],
    );
    const keyRoutes = Object.entries(ROUTES)
      .filter(([, route]) => route.auth === 'any')
      .map(([routeKey]) => routeKey);

    // The ingest function's two routes take a key too (lambdas/ingest).
    expect(listed.sort()).toEqual([...keyRoutes, 'POST /api/ingest', 'POST /v1/events'].sort());
  });

  it('keeps the people routes for people: a key with every scope cannot list or create keys', async () => {
    const created = await createKey({ name: 'all' });
    const listed = await api(event('GET /v1/keys', { key: created.body.apiKey }));
    expect(listed.status).toBe(401);
  });

  it.each([
    [{ name: 'x', scopes: [] }, 'scopes'],
    [{ name: 'x', scopes: ['admin'] }, 'scopes[0]'],
    [{ name: 'x', scopes: ['read', 'read'] }, 'scopes'],
    [{ name: 'x', scopes: 'read' }, 'scopes'],
  ])('400 for bad scopes %j, naming where', async (body, path) => {
    const res = await createKey(body);
    expect(res.status).toBe(400);
    expect(res.body.error.problems).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  it('503 with Retry-After, never a guess, when the key store cannot be read', async () => {
    const created = await createKey({ name: 'x' });
    const unreachable = () => Promise.reject(new Error('dynamodb unreachable'));
    const broken = {
      ...h.services,
      sink,
      apiKeys: new ApiKeyAuthenticator({
        keys: { create: unreachable, get: unreachable, listByOrg: unreachable, revoke: unreachable },
        pepper: async () => h.pepper,
      }),
    };
    const res = await run(
      createIngestHandler({ services: broken, logger: h.logger, metrics: h.metrics }),
      event('POST /v1/events', { key: created.body.apiKey, body: sdkBatch }),
    );
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
  });
});
