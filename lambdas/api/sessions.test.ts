/**
 * GET /v1/sessions on real stores (dynalite): sessions from the ledger, their trip and their session
 * flag, one organization only, people only.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { LedgerEntry } from '../../core/ledger/ledger-entry';
import { sessionListResponseSchema } from '../../core/schemas/api';
import { createLambdaContext, createLocalIssuer } from '../../local/runtime';
import { startBackendHarness, type BackendHarness, UNUSED_FORECAST_RUNS } from '../../test/backend-harness';
import type { FlagRecord } from '../shared/stores/flag-store';
import type { IdTokenVerifier } from '../shared/services';
import { createApiHandler } from './handler';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const MIN = 60_000;
let h: BackendHarness;
let idTokens: IdTokenVerifier;
let token: string;
let otherToken: string;
let key: { apiKey: string; publicId: string };

function entry(i: number, over: Partial<LedgerEntry>): LedgerEntry {
  return {
    eventId: `evt_s_${i}`,
    ts: new Date(NOW - (60 - i) * MIN).toISOString(),
    source: 'proxy',
    kind: 'call',
    keyId: key.publicId,
    provider: 'openai',
    model: 'gpt-4o-mini',
    inputTokens: 1000 * (i + 1),
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 10,
    reasoningTokens: 0,
    webSearchRequests: 0,
    costNanos: 150_000,
    registryCostNanos: 150_000,
    toolFeesNanos: 0,
    costSource: 'PROVIDER_REGISTRY',
    pricedAs: 'gpt-4o-mini',
    clientCostUsd: null,
    providerCostUsd: null,
    estimated: false,
    latencyMs: 100,
    statusCode: 200,
    projectId: null,
    environment: null,
    featureId: null,
    sessionId: 'agent-7',
    endpoint: '/v1/chat/completions',
    stream: false,
    verified: true,
    fingerprint: 'fp-loop',
    ...over,
  };
}

beforeAll(async () => {
  h = await startBackendHarness();
  h.setNow(NOW);
  const issuer = await createLocalIssuer({ memory: true, issuerUrl: 'http://127.0.0.1:1/local-issuer' });
  const v = issuer.createVerifier();
  idTokens = { verify: async (t) => (await v.verify(t)) as Record<string, unknown> };
  token = await issuer.issueIdToken({ sub: 'a', email: 'a@example.com', orgId: 'org_sess' });
  otherToken = await issuer.issueIdToken({ sub: 'b', email: 'b@example.com', orgId: 'org_other' });
  key = await h.createKey('org_sess');
  await h.services.ledger.putForRecord('org_sess', '1', [
    entry(0, {}),
    entry(1, {}),
    entry(2, {}),
    entry(3, {}),
    entry(4, { sessionId: 'agent-8', fingerprint: 'fp-a' }),
    entry(5, { sessionId: 'agent-8', fingerprint: 'fp-b' }),
    entry(6, { sessionId: null }),
    entry(7, { ts: new Date(NOW - 30 * 60 * MIN).toISOString(), sessionId: 'old-session' }),
  ]);
  await h.services.trips.add('org_sess', {
    at: new Date(NOW - 56 * MIN).toISOString(),
    layer: 'identicalLoop',
    triggerType: 'token_loop_identical',
    observedValue: 4,
    thresholdValue: 4,
    mode: 'hard_stop',
    action: 'SUSPENDED',
    keyId: key.publicId,
    sessionId: 'agent-7',
    message: '4 identical consecutive requests in session agent-7',
  });
  // A session-scope flag as the flag store writes it (CONTRACTS §1: scope, keyId, sessionId).
  const flag: FlagRecord & { scope: string; keyId: string; sessionId: string } = {
    flagKey: 'session-flag-test',
    orgId: 'org_sess',
    state: 'SUSPENDED',
    triggerType: 'token_loop_identical',
    observedValue: 4,
    thresholdValue: 4,
    mode: 'hard_stop',
    setAt: new Date(NOW - 56 * MIN).toISOString(),
    expiresAt: Math.floor(NOW / 1000) + 3600,
    scope: 'session',
    keyId: key.publicId,
    sessionId: 'agent-7',
  };
  await h.services.flags.put(flag, NOW);
});
afterAll(() => h.close());

async function get(query: Record<string, string>, auth: { token?: string; key?: string }) {
  const handler = createApiHandler({
    services: h.services,
    idTokens,
    registry: h.registry,
    logger: h.logger,
    forecastRuns: UNUSED_FORECAST_RUNS,
    version: 'test',
  });
  const res = (await handler(
    {
      version: '2.0',
      routeKey: 'GET /v1/sessions',
      rawPath: '/v1/sessions',
      rawQueryString: '',
      headers: {
        ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
        ...(auth.key ? { 'service-api-key': auth.key } : {}),
      },
      queryStringParameters: query,
      requestContext: {} as APIGatewayProxyEventV2['requestContext'],
      isBase64Encoded: false,
    },
    createLambdaContext({ functionName: 'api' }),
  )) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode, body: JSON.parse(res.body ?? 'null') as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('GET /v1/sessions', () => {
  it('lists the sessions of the window: calls, exact cost, prompt growth, repeats, trip and flag', async () => {
    const res = await get({ hours: '24' }, { token });
    expect(res.status).toBe(200);
    const body = sessionListResponseSchema.parse(res.body);
    expect(body.sessions.map((s) => s.sessionId)).toEqual(['agent-8', 'agent-7']);
    const loop = body.sessions[1]!;
    expect(loop).toMatchObject({
      keyId: key.publicId,
      calls: 4,
      costUsd: 0.0006, // 4 × 150 000 nanos
      firstAt: new Date(NOW - 60 * MIN).toISOString(),
      lastAt: new Date(NOW - 57 * MIN).toISOString(),
      repeatedFingerprints: [{ fingerprint: 'fp-loop', count: 4 }],
      trip: { layer: 'identicalLoop', sessionId: 'agent-7' },
      flag: { scope: 'session', sessionId: 'agent-7', keyId: key.publicId, state: 'SUSPENDED' },
    });
    expect(loop.promptTokens.map((p) => p.tokens)).toEqual([1000, 2000, 3000, 4000]);
    expect(body.sessions[0]).toMatchObject({ calls: 2, repeatedFingerprints: [], trip: null, flag: null });
    expect(body.truncated).toBe(false);
  });

  it('reaches further back with hours, and 400 names a bad value', async () => {
    const week = sessionListResponseSchema.parse((await get({ hours: '168' }, { token })).body);
    expect(week.sessions.map((s) => s.sessionId)).toContain('old-session');
    const bad = await get({ hours: '999' }, { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems[0].path).toBe('hours');
  });

  it('is scoped to the caller organization, and for people only', async () => {
    expect(sessionListResponseSchema.parse((await get({}, { token: otherToken })).body).sessions).toEqual([]);
    expect((await get({}, { key: key.apiKey })).status).toBe(401);
  });
});
