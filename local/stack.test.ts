import http from 'node:http';
import OpenAI from 'openai';
import { flagKeyFor, parseApiKey } from '../core/keys';
import { sessionFlagItemKey } from '../lambdas/shared/flag-item-keys';
import type { LocalStack } from './stack';
import { startTestStack } from './test-stack';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function get(path: string, headers: Record<string, string>) {
  const res = await fetch(`${stack.apiUrl}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('the local stack, end to end over HTTP', () => {
  // First in this file: no person has called the API yet.
  it('the local organization is owned by its admin from the start, even when a viewer calls first', async () => {
    const viewer = await get('/v1/budget', { authorization: `Bearer ${stack.idTokens.viewer}` });
    expect(viewer.status).toBe(200);
    const owners = await get('/v1/audit?action=owner.claimed', { authorization: `Bearer ${stack.idToken}` });
    expect(owners.body.entries).toEqual([
      expect.objectContaining({ after: { sub: 'local-user', email: 'you@localhost' } }),
    ]);
  });

  it('ingest → Kinesis → pricing consumer → ledger and spend, priced by the server', async () => {
    const now = new Date().toISOString();
    const events = [1, 2, 3].map((i) => ({
      model: 'claude-sonnet-4-20250514',
      usage: { prompt_tokens: 10_000, completion_tokens: 1_000 },
      timestamp: now,
      eventId: `evt_e2e_${i}`,
      featureId: 'support',
    }));
    expect(await post('/api/ingest', { apiKey: stack.apiKey, events })).toEqual({
      status: 200,
      body: { status: 'ok', count: 3, enforcement: { blocked: false, flags: [] } },
    });
    // The same batch again is accepted and counted once.
    await post('/api/ingest', { apiKey: stack.apiKey, events });
    await stack.drain();
    const ledger = await get('/v1/ledger?featureId=support', { 'service-api-key': stack.apiKey });
    expect(ledger.body.entries).toHaveLength(3);
    // claude-sonnet-4 at $3 / $15 per MTok: 10,000 × $3/M + 1,000 × $15/M = $0.045 per call.
    expect(ledger.body.entries[0]).toMatchObject({
      provider: 'anthropic',
      costUsd: 0.045,
      costSource: 'PROVIDER_REGISTRY',
    });
    const spend = await get('/v1/spend', { authorization: `Bearer ${stack.idToken}` });
    expect(spend.body.todayUsd).toBeCloseTo(0.135, 9);
  });

  it('four identical calls trip layer 2 for their session, the flag is there for the edge; Resume clears it', async () => {
    const events = [1, 2, 3, 4].map((i) => ({
      model: 'gpt-4o-mini',
      usage: { prompt_tokens: 4242, completion_tokens: 10 },
      eventId: `evt_loop_${i}`,
      sessionId: 'agent-7',
    }));
    await post('/api/ingest', { apiKey: stack.apiKey, events });
    await stack.drain();
    const parsed = parseApiKey(stack.apiKey);
    if (!parsed.ok) throw new Error('seeded key is malformed');
    const pepper = await stack.services.pepper.get();
    const sessionItem = sessionFlagItemKey(flagKeyFor(parsed.prefix, pepper), 'agent-7');
    const flag = await stack.services.flags.get(sessionItem, Date.now());
    expect(flag).toMatchObject({ scope: 'session', state: 'SUSPENDED', triggerType: 'token_loop_identical' });
    const flags = await get('/v1/flags', { authorization: `Bearer ${stack.idToken}` });
    expect(flags.body.flags[0]).toMatchObject({
      scope: 'session',
      sessionId: 'agent-7',
      state: 'SUSPENDED',
      triggerType: 'token_loop_identical',
      keysFlagged: 1,
    });

    const resumed = await post(
      '/api/guardrails/enforce',
      { apiKey: parsed.prefix, action: 'ACTIVE' },
      { authorization: `Bearer ${stack.idToken}` },
    );
    expect(resumed).toEqual({ status: 200, body: { success: true, action: 'RESUMED' } });
    expect(await stack.services.flags.get(sessionItem, Date.now())).toBeUndefined();
  });

  it('the gateway enforces the JWT authorizer on people routes, as API Gateway does', async () => {
    expect((await get('/v1/keys', {})).status).toBe(401);
    const other = await stack.issueIdToken('org_other');
    const keys = await get('/v1/keys', { authorization: `Bearer ${other}` });
    expect(keys).toEqual({ status: 200, body: { keys: [] } });
  });

  it.each([
    ['GET', '/v1/nope'],
    ['PATCH', '/v1/budget'],
    ['DELETE', '/v1/ledger'],
    ['GET', '/api/ingest'],
  ])('answers %s %s, which the API does not have, with its own JSON 404', async (method, path) => {
    const res = await fetch(`${stack.apiUrl}${path}`, { method });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      error: expect.objectContaining({ code: 'not_found', message: `no route ${method} ${path}` }),
    });
  });

  it('hands its ID token (hours, not days) only to loopback Host values: 421 for a rebinding page', async () => {
    const port = new URL(stack.apiUrl).port;
    const configFor = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port, path: '/config.json', headers: { host }, agent: false },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString('utf8')));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const evil = await configFor(`evil.example:${port}`);
    expect(evil.status).toBe(421);
    expect(evil.body).not.toContain(stack.idToken.split('.')[1]);
    const own = await configFor(`localhost:${port}`);
    expect(own.status).toBe(200);
    const token = (JSON.parse(own.body) as { auth: { idToken: string } }).auth.idToken;
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as {
      iat: number;
      exp: number;
    };
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(12 * 3600);
  });

  it('computes and serves a forecast', async () => {
    await stack.runForecasts();
    const f = await get('/v1/forecast', { authorization: `Bearer ${stack.idToken}` });
    expect(f.status).toBe(200);
    expect(f.body.forecast.horizons.map((h: { horizon: string }) => h.horizon)).toEqual([
      'restOfDay',
      'restOfMonth',
      'next7Days',
      'next30Days',
    ]);
    const h = f.body.forecast.horizons[1];
    expect(h.p50Usd).toBeLessThanOrEqual(h.p95Usd);
    expect(h.p95Usd).toBeLessThanOrEqual(h.p99Usd);
  });
});

describe('the proxy in the local stack', () => {
  it('records calls from the official OpenAI client, trips layer 2 on the 4th identical prompt, then answers 429 without contacting the provider or being retried', async () => {
    // A fresh organization and key, so that the earlier tests' calls do not count toward layer 4.
    const token = await stack.issueIdToken('org_proxy');
    const created = await post('/v1/keys', { name: 'agent' }, { authorization: `Bearer ${token}` });
    const apiKey = created.body.apiKey as string;
    const client = new OpenAI({
      apiKey: 'sk-test',
      baseURL: `${stack.proxyUrl}/openai/v1`,
      defaultHeaders: { 'Service-API-Key': apiKey, 'x-spendguard-session': 'proxy-loop' },
    });
    const ask = () =>
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'retry the failing step' }],
      });
    for (let i = 0; i < 4; i++) expect((await ask()).usage?.prompt_tokens).toBeGreaterThan(0);
    await stack.drain();
    const ledger = await get('/v1/ledger?source=proxy', { 'service-api-key': apiKey });
    expect(ledger.body.entries).toHaveLength(4);
    expect(ledger.body.entries[0]).toMatchObject({
      provider: 'openai',
      model: expect.stringContaining('gpt-4o-mini'),
      source: 'proxy',
    });

    // The guard caches flags for about a second: the documented propagation bound.
    await new Promise((r) => setTimeout(r, 1200));
    const before = stack.mockProviderRequests!();
    const err = await ask().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect((err as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: 'budget_exceeded',
      code: 'token_loop_identical',
    });
    expect(stack.mockProviderRequests!()).toBe(before);
  });
});
