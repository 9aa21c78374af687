import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { flagKeyFor } from '../../core/keys';
import { orgFlagItemKey, sessionFlagItemKey } from '../shared/flag-item-keys';
import { createLambdaContext, createLocalIssuer, type LocalIssuer } from '../../local/runtime';
import { startBackendHarness, type BackendHarness, UNUSED_FORECAST_RUNS } from '../../test/backend-harness';
import { createEnforceHandler, MAX_ENFORCE_BODY_BYTES } from '../enforce/handler';
import type { IdTokenVerifier } from '../shared/services';
import { createApiHandler } from './handler';
import { ledgerEntryView } from './views';

let h: BackendHarness;
let issuer: LocalIssuer;
let idTokens: IdTokenVerifier;
let tokenA: string;
let tokenB: string;
let keyA: { apiKey: string; publicId: string; prefix: string };
let keyB: { apiKey: string; publicId: string; prefix: string };

beforeAll(async () => {
  h = await startBackendHarness();
  issuer = await createLocalIssuer({ memory: true, issuerUrl: 'http://127.0.0.1:1/local-issuer' });
  const v = issuer.createVerifier();
  idTokens = { verify: async (t) => (await v.verify(t)) as Record<string, unknown> };
  h.setNow(Date.now());
  tokenA = await issuer.issueIdToken({ sub: 'alice', email: 'a@example.com', orgId: 'org_a' });
  tokenB = await issuer.issueIdToken({ sub: 'bob', email: 'b@example.com', orgId: 'org_b' });
  keyA = await h.createKey('org_a');
  keyB = await h.createKey('org_b');
});
afterAll(() => h.close());

const ctx = createLambdaContext({ functionName: 'api' });
function req(
  routeKey: string,
  opts: {
    token?: string;
    key?: string;
    body?: unknown;
    query?: Record<string, string>;
    params?: Record<string, string>;
  } = {},
): APIGatewayProxyEventV2 {
  const [, path] = routeKey.split(' ');
  return {
    version: '2.0',
    routeKey,
    rawPath: path!,
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
async function api(event: APIGatewayProxyEventV2) {
  const handler = createApiHandler({
    services: h.services,
    idTokens,
    registry: h.registry,
    logger: h.logger,
    forecastRuns: UNUSED_FORECAST_RUNS,
    version: 'test',
  });
  const res = (await handler(event, ctx)) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode, body: JSON.parse(res.body ?? 'null') as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}
/** The waits the enforcement handler asked for (the harness clock stands still: each is the whole wait). */
const sleeps: number[] = [];
async function enforce(body: unknown, token?: string) {
  const handler = createEnforceHandler({
    services: h.services,
    idTokens,
    logger: h.logger,
    metrics: h.metrics,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
  const res = (await handler(
    req('POST /api/guardrails/enforce', { token, body }),
    ctx,
  )) as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode, body: JSON.parse(res.body ?? 'null') as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('POST /api/guardrails/enforce', () => {
  const push = {
    action: 'SUSPENDED',
    triggerType: 'token_loop_identical',
    observedValue: 4,
    thresholdValue: 4,
    mode: 'hard_stop',
  };

  it('401 without a token, 401 with a forged one', async () => {
    expect((await enforce({ apiKey: keyA.apiKey, ...push })).status).toBe(401);
    expect((await enforce({ apiKey: keyA.apiKey, ...push }, tokenA.slice(0, -4) + 'AAAA')).status).toBe(401);
  });

  it('400 for a bad body, naming the field', async () => {
    const res = await enforce({ apiKey: keyA.apiKey, action: 'SUSPENDED' }, tokenA);
    expect(res.status).toBe(400);
    expect(res.body.error.problems.map((p: { path: string }) => p.path)).toEqual(
      expect.arrayContaining(['triggerType']),
    );
  });

  it('400 naming an unknown member, 413 for a body over MAX_ENFORCE_BODY_BYTES; nothing pushed', async () => {
    const unknown = await enforce({ apiKey: keyA.apiKey, ...push, orgId: 'org_b', role: 'admin' }, tokenA);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.problems).toEqual([
      { path: 'orgId', message: 'unknown field' },
      { path: 'role', message: 'unknown field' },
    ]);
    // The walk's 1.1 MB field; and the bound itself: one byte over is refused, at it is parsed.
    const filler = (total: number) => {
      const body = { apiKey: keyA.apiKey, ...push, pad: '' };
      return { ...body, pad: 'x'.repeat(total - JSON.stringify(body).length) };
    };
    for (const size of [1_100_000, MAX_ENFORCE_BODY_BYTES + 1]) {
      const big = await enforce(filler(size), tokenA);
      expect([size, big.status, big.body.error.code]).toEqual([size, 413, 'payload_too_large']);
    }
    const atBound = await enforce(filler(MAX_ENFORCE_BODY_BYTES), tokenA);
    expect(atBound.status).toBe(400); // parsed, and refused for `pad`
    expect(atBound.body.error.problems).toEqual([{ path: 'pad', message: 'unknown field' }]);
    expect(
      await h.services.flags.get(orgFlagItemKey(flagKeyFor(keyA.prefix, h.pepper)), Date.now()),
    ).toBeUndefined();
  });

  it('403 for a caller who does not own the key', async () => {
    expect((await enforce({ apiKey: keyB.apiKey, ...push }, tokenA)).status).toBe(403);
    expect((await enforce({ apiKey: keyA.apiKey, keyId: keyB.publicId, ...push }, tokenA)).status).toBe(403);
    expect((await enforce({ keyId: keyB.publicId, ...push }, tokenA)).status).toBe(403);
    expect(
      await h.services.flags.get(orgFlagItemKey(flagKeyFor(keyB.prefix, h.pepper)), Date.now()),
    ).toBeUndefined();
  });

  it('SUSPENDED without a scope writes a 2 h organization flag on the key; ACTIVE clears it and answers RESUMED', async () => {
    const res = await enforce({ apiKey: keyA.apiKey, ...push }, tokenA);
    expect(res).toMatchObject({
      status: 200,
      body: {
        success: true,
        action: 'SUSPENDED',
        ttlSeconds: 7200,
        triggerType: 'token_loop_identical',
        scope: 'organization',
        keyId: null,
        sessionId: null,
        keysFlagged: 1,
      },
    });
    const orgItem = orgFlagItemKey(flagKeyFor(keyA.prefix, h.pepper));
    const flag = await h.services.flags.get(orgItem, Date.now());
    expect(flag).toMatchObject({
      scope: 'organization',
      state: 'SUSPENDED',
      orgId: 'org_a',
      observedValue: 4,
    });
    // The dashboard resumes with the key prefix it lists (it never holds raw keys).
    expect(await enforce({ apiKey: keyA.prefix, action: 'ACTIVE' }, tokenA)).toEqual({
      status: 200,
      body: { success: true, action: 'RESUMED' },
    });
    expect(await h.services.flags.get(orgItem, Date.now())).toBeUndefined();
  });

  it('scope organization names no key: the caller’s organization, and no other', async () => {
    const res = await enforce({ ...push, scope: 'organization' }, tokenA);
    expect(res).toMatchObject({ status: 200, body: { action: 'SUSPENDED', scope: 'organization' } });
    const orgItem = orgFlagItemKey(flagKeyFor(keyA.prefix, h.pepper));
    expect(await h.services.flags.get(orgItem, Date.now())).toMatchObject({ orgId: 'org_a' });
    expect(
      await h.services.flags.get(orgFlagItemKey(flagKeyFor(keyB.prefix, h.pepper)), Date.now()),
    ).toBeUndefined();
    expect(await enforce({ action: 'ACTIVE', scope: 'organization' }, tokenA)).toMatchObject({
      status: 200,
      body: { action: 'RESUMED' },
    });
    expect(await h.services.flags.get(orgItem, Date.now())).toBeUndefined();
    // A key or session scope still needs its key.
    const keyless = await enforce({ ...push, scope: 'key' }, tokenA);
    expect(keyless.status).toBe(400);
    expect(keyless.body.error.problems[0].path).toBe('apiKey');
  });

  it('a push answers once the flag is in force at every guard (their 1 s cache waited out); a clear at once', async () => {
    sleeps.length = 0;
    const pushed = await enforce({ ...push, apiKey: keyA.apiKey, scope: 'key' }, tokenA);
    expect(pushed.status).toBe(200);
    expect(sleeps).toEqual([1000]);
    const clear = await enforce({ apiKey: keyA.apiKey, scope: 'key', action: 'ACTIVE' }, tokenA);
    expect(clear.status).toBe(200);
    expect(sleeps).toEqual([1000]);
  });

  it('THROTTLED lives 30 minutes', async () => {
    const res = await enforce(
      { ...push, apiKey: keyA.apiKey, action: 'THROTTLED', mode: 'throttle' },
      tokenA,
    );
    expect(res.body).toMatchObject({ action: 'THROTTLED', ttlSeconds: 1800 });
    await enforce({ apiKey: keyA.apiKey, action: 'ACTIVE' }, tokenA);
  });
});

describe('kill scopes (enforcement endpoint, GET /v1/flags, key creation)', () => {
  const push = {
    action: 'SUSPENDED',
    triggerType: 'token_loop_identical',
    observedValue: 4,
    thresholdValue: 4,
    mode: 'hard_stop',
  };
  let token: string;
  let k1: { apiKey: string; publicId: string; prefix: string };
  let k2: { apiKey: string; publicId: string; prefix: string };
  beforeAll(async () => {
    token = await issuer.issueIdToken({ sub: 'carol', email: 'c@example.com', orgId: 'org_scopes' });
    k1 = await h.createKey('org_scopes');
    k2 = await h.createKey('org_scopes');
  });
  afterEach(() => enforce({ keyId: k1.publicId, action: 'ACTIVE' }, token));
  const flags = async () =>
    (await api(req('GET /v1/flags', { token }))).body.flags as Record<string, unknown>[];
  const item = (k: { prefix: string }, suffix: (fk: string) => string = (fk) => fk) =>
    h.services.flags.get(suffix(flagKeyFor(k.prefix, h.pepper)), Date.now());

  it('pushes and lists each scope once; Resume of a session clears that session only', async () => {
    const session = await enforce(
      { ...push, scope: 'session', keyId: k1.publicId, sessionId: 'agent-7' },
      token,
    );
    expect(session.body).toMatchObject({
      scope: 'session',
      keyId: k1.publicId,
      sessionId: 'agent-7',
      keysFlagged: 1,
    });
    await enforce({ ...push, scope: 'key', keyId: k2.publicId, triggerType: 'rps_burst' }, token);
    await enforce({ ...push, apiKey: k1.prefix, triggerType: 'budget_daily_hard' }, token);
    expect(await item(k1, (fk) => sessionFlagItemKey(fk, 'agent-7'))).toMatchObject({ scope: 'session' });
    expect(await item(k2)).toMatchObject({ scope: 'key', keyId: k2.publicId });
    expect(await item(k1)).toBeUndefined(); // the key of the session is not flagged itself

    const listed = await flags();
    expect(listed).toHaveLength(3);
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ scope: 'organization', keyId: null, sessionId: null, keysFlagged: 2 }),
        expect.objectContaining({
          scope: 'key',
          keyId: k2.publicId,
          sessionId: null,
          triggerType: 'rps_burst',
        }),
        expect.objectContaining({ scope: 'session', keyId: k1.publicId, sessionId: 'agent-7' }),
      ]),
    );

    const resumed = await enforce(
      { action: 'ACTIVE', scope: 'session', keyId: k1.publicId, sessionId: 'agent-7' },
      token,
    );
    expect(resumed.body).toEqual({
      success: true,
      action: 'RESUMED',
      scope: 'session',
      keyId: k1.publicId,
      sessionId: 'agent-7',
      cleared: 1,
    });
    expect((await flags()).map((f) => f.scope).sort()).toEqual(['key', 'organization']);
    // A session with no flag of its own: nothing cleared, and the answer says so (the key flag stands).
    const none = await enforce(
      { action: 'ACTIVE', scope: 'session', keyId: k1.publicId, sessionId: 'agent-8' },
      token,
    );
    expect(none.body).toMatchObject({ success: true, action: 'RESUMED', scope: 'session', cleared: 0 });
    expect((await flags()).map((f) => f.scope).sort()).toEqual(['key', 'organization']);
    await enforce({ action: 'ACTIVE', scope: 'organization', keyId: k1.publicId }, token);
    expect((await flags()).map((f) => f.scope)).toEqual(['key']);
  });

  it('GET /v1/budget reports what stops every call of the caller: org flags, and a key flag for that key', async () => {
    await enforce({ ...push, scope: 'key', keyId: k2.publicId, triggerType: 'rps_burst' }, token);
    await enforce({ ...push, scope: 'session', keyId: k1.publicId, sessionId: 'agent-7' }, token);
    const asK2 = (await api(req('GET /v1/budget', { key: k2.apiKey }))).body;
    expect([asK2.status, asK2.flag?.scope, asK2.flag?.triggerType]).toEqual([
      'suspended',
      'key',
      'rps_burst',
    ]);
    expect((await api(req('GET /v1/budget', { key: k1.apiKey }))).body).toMatchObject({
      status: 'ok',
      flag: null,
    });
    expect((await api(req('GET /v1/budget', { token }))).body).toMatchObject({ status: 'ok', flag: null });
  });

  it('never downgrades: a THROTTLED push leaves an active SUSPENDED flag in place', async () => {
    await enforce({ ...push, keyId: k1.publicId }, token);
    const throttled = await enforce(
      { ...push, keyId: k1.publicId, action: 'THROTTLED', mode: 'throttle' },
      token,
    );
    expect(throttled.body).toMatchObject({ action: 'THROTTLED', keysFlagged: 0 });
    expect(await item(k1, orgFlagItemKey)).toMatchObject({ state: 'SUSPENDED' });
  });

  it('a key created while an organization flag lasts carries it', async () => {
    await enforce({ ...push, keyId: k1.publicId, triggerType: 'budget_daily_hard' }, token);
    const created = await api(req('POST /v1/keys', { token, body: { name: 'late' } }));
    expect(created.status).toBe(201);
    expect(await item(created.body.key, orgFlagItemKey)).toMatchObject({
      scope: 'organization',
      keyId: created.body.key.publicId,
      state: 'SUSPENDED',
      triggerType: 'budget_daily_hard',
    });
  });

  it("each layer's scope is a policy field: PUT /v1/budget sets it, GET shows it, a bad one is a 400", async () => {
    const put = await api(
      req('PUT /v1/budget', { token, body: { policy: { layers: { identicalLoop: { scope: 'key' } } } } }),
    );
    expect(put.status).toBe(200);
    const layers = (await api(req('GET /v1/budget', { token }))).body.policy.layers;
    expect([layers.identicalLoop.scope, layers.rpsBurst.scope, layers.financialLimits.scope]).toEqual([
      'key',
      'key',
      'organization',
    ]);
    const bad = await api(
      req('PUT /v1/budget', { token, body: { policy: { layers: { rpsBurst: { scope: 'team' } } } } }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems.map((p: { path: string }) => p.path)).toEqual([
      'policy.layers.rpsBurst.scope',
    ]);
  });

  it('a policy field a section does not have is a 400 that names it, and nothing is stored', async () => {
    const admin = await issuer.issueIdToken({ sub: 'tyra', email: 't@example.com', orgId: 'org_typo' });
    const before = await api(req('GET /v1/budget', { token: admin }));
    for (const [policy, paths] of [
      [{ layers: { rpsBurst: { maxRequest: 20 } } }, ['policy.layers.rpsBurst.maxRequest']],
      [
        { layers: { identicalLoop: { threshold: 3, consecutive: 5 } } },
        ['policy.layers.identicalLoop.threshold'],
      ],
      [{ limits: { bogus: 1 } }, ['policy.limits.bogus']],
      [{ layers: { identicalLoop: { note: 'a'.repeat(450_000) } } }, ['policy.layers.identicalLoop.note']],
    ] as const) {
      const bad = await api(req('PUT /v1/budget', { token: admin, body: { policy } }));
      expect(bad.status).toBe(400);
      expect(bad.body.error.problems.map((p: { path: string }) => p.path)).toEqual(paths);
    }
    // `__proto__` vanished in the copies (it set a prototype): named as unknown, wherever it is.
    for (const [body, path] of [
      [
        '{"policy":{"layers":{"rpsBurst":{"__proto__":{"maxRequests":3}}}}}',
        'policy.layers.rpsBurst.__proto__',
      ],
      ['{"__proto__":{"dailyLimitUsd":1}}', '__proto__'],
    ] as const) {
      const res = await api({ ...req('PUT /v1/budget', { token: admin }), body });
      expect(res.status).toBe(400);
      expect(res.body.error.problems).toEqual([{ path, message: 'unknown field' }]);
    }
    const after = await api(req('GET /v1/budget', { token: admin }));
    expect(after.body.policy).toEqual(before.body.policy);
    expect((await h.services.config.get('org_typo'))?.policy ?? {}).toEqual({});
  });

  it('a field an earlier version stored that a section no longer has is dropped by the next write', async () => {
    await h.services.config.put(
      'org_junk',
      {
        budget: {},
        policy: { rpsBurst: { maxRequest: 20, mode: 'alert' } },
        updatedAt: new Date().toISOString(),
      },
      0,
    );
    const admin = await issuer.issueIdToken({ sub: 'jo', email: 'j@example.com', orgId: 'org_junk' });
    const put = await api(
      req('PUT /v1/budget', {
        token: admin,
        body: { policy: { layers: { rpsBurst: { maxRequests: 20 } } } },
      }),
    );
    expect(put.status).toBe(200);
    expect((await h.services.config.get('org_junk'))?.policy).toEqual({
      rpsBurst: { mode: 'alert', maxRequests: 20 },
    });
  });

  it('concurrent PUT /v1/budget merges keep every field, and the audit log chains each before to an after', async () => {
    const admin = await issuer.issueIdToken({ sub: 'dora', email: 'd@example.com', orgId: 'org_merge' });
    // Eight admins at once, each changing a different field: a read-merge-write without a revision check
    // lets the last writer drop the others' changes.
    const changes = [
      { identicalLoop: { scope: 'key' } },
      { identicalLoop: { consecutive: 6 } },
      { identicalLoop: { resetAfterIdleMs: 60_000 } },
      { rpsBurst: { scope: 'organization' } },
      { rpsBurst: { maxRequests: 20 } },
      { rpsBurst: { windowMs: 120_000 } },
      { contextGrowth: { enabled: false } },
      { premiumConcentration: { enabled: false } },
    ];
    const results = await Promise.all(
      changes.map((layers) => api(req('PUT /v1/budget', { token: admin, body: { policy: { layers } } }))),
    );
    expect(results.map((r) => r.status)).toEqual(changes.map(() => 200));
    const layers = (await api(req('GET /v1/budget', { token: admin }))).body.policy.layers;
    expect(layers.identicalLoop).toMatchObject({ scope: 'key', consecutive: 6, resetAfterIdleMs: 60_000 });
    expect(layers.rpsBurst).toMatchObject({ scope: 'organization', maxRequests: 20, windowMs: 120_000 });
    expect([layers.contextGrowth.enabled, layers.premiumConcentration.enabled]).toEqual([false, false]);

    const audit = await api(req('GET /v1/audit', { token: admin, query: { action: 'budget.updated' } }));
    const entries = audit.body.entries as { before: { policy: object }; after: { policy: object } }[];
    expect(entries).toHaveLength(changes.length);
    // Each change replaced what the one before it wrote: the befores are {} and all but one of the afters.
    const afters = entries.map((e) => JSON.stringify(e.after.policy));
    const befores = entries.map((e) => JSON.stringify(e.before.policy));
    expect(befores.filter((b) => b === '{}')).toHaveLength(1);
    for (const b of befores.filter((x) => x !== '{}')) expect(afters).toContain(b);
    expect(new Set(befores).size).toBe(changes.length);
  });

  it('a longer burst ring needs fewer keys tracked: the size bound names the policy and how, policy.limits makes room', async () => {
    const admin = await issuer.issueIdToken({ sub: 'erin', email: 'e@example.com', orgId: 'org_limits' });
    const tooBig = await api(
      req('PUT /v1/budget', {
        token: admin,
        body: { policy: { layers: { rpsBurst: { maxRequests: 100 } } } },
      }),
    );
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.problems).toEqual([
      { path: 'policy', message: expect.stringMatching(/limits\.maxKeys/) as unknown },
    ]);
    const fits = await api(
      req('PUT /v1/budget', {
        token: admin,
        body: { policy: { layers: { rpsBurst: { maxRequests: 100 } }, limits: { maxKeys: 16 } } },
      }),
    );
    expect(fits.status).toBe(200);
    expect(fits.body.policy.layers.rpsBurst.maxRequests).toBe(100);
    const badLimit = await api(
      req('PUT /v1/budget', { token: admin, body: { policy: { limits: { maxKeys: 0 } } } }),
    );
    expect(badLimit.body.error.problems.map((p: { path: string }) => p.path)).toEqual([
      'policy.limits.maxKeys',
    ]);
  });

  it('allowDeferredBilling: PUT /v1/budget sets it, GET shows it (false by default), a non-boolean is a 400', async () => {
    const before = (await api(req('GET /v1/budget', { token }))).body.budget;
    expect(before.allowDeferredBilling).toBe(false);
    const budget = { dailyLimitUsd: 5, action: 'block', allowDeferredBilling: true };
    expect((await api(req('PUT /v1/budget', { token, body: { budget } }))).status).toBe(200);
    expect((await api(req('GET /v1/budget', { token }))).body.budget).toMatchObject(budget);
    const bad = await api(
      req('PUT /v1/budget', { token, body: { budget: { ...budget, allowDeferredBilling: 'yes' } } }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems.map((p: { path: string }) => p.path)).toEqual([
      'budget.allowDeferredBilling',
    ]);
    await api(req('PUT /v1/budget', { token, body: { budget: before } }));
  });

  it('PUT /v1/budget keeps a limit as it is enforced (whole nano-dollars), and refuses one that would round to a freeze', async () => {
    const before = (await api(req('GET /v1/budget', { token }))).body.budget;
    const put = await api(req('PUT /v1/budget', { token, body: { budget: { dailyLimitUsd: 100 / 3 } } }));
    expect(put.status).toBe(200);
    expect((await api(req('GET /v1/budget', { token }))).body.budget.dailyLimitUsd).toBe(33.333333333);
    const tiny = await api(req('PUT /v1/budget', { token, body: { budget: { dailyLimitUsd: 1e-12 } } }));
    expect(tiny.status).toBe(400);
    expect(tiny.body.error.problems).toEqual([
      {
        path: 'budget.dailyLimitUsd',
        message: 'must be 0 or at least half a nano-dollar (0.0000000005), which rounds to one',
      },
    ]);
    expect((await api(req('GET /v1/budget', { token }))).body.budget.dailyLimitUsd).toBe(33.333333333);
    await api(req('PUT /v1/budget', { token, body: { budget: before } }));
  });

  it('400 for session scope without a session, and for key scope with neither apiKey nor keyId', async () => {
    const noSession = await enforce({ ...push, scope: 'session', keyId: k1.publicId }, token);
    expect(noSession.status).toBe(400);
    expect(noSession.body.error.problems.map((p: { path: string }) => p.path)).toEqual(['sessionId']);
    const noKey = await enforce({ action: 'ACTIVE', scope: 'key' }, token);
    expect(noKey.body.error.problems.map((p: { path: string }) => p.path)).toEqual(['apiKey']);
  });

  it('without a key and without a scope, a push and a clear are the organization’s (the default scope)', async () => {
    const pushed = await enforce({ ...push }, token);
    expect(pushed).toMatchObject({ status: 200, body: { action: 'SUSPENDED', scope: 'organization' } });
    const cleared = await enforce({ action: 'ACTIVE' }, token);
    expect(cleared).toMatchObject({ status: 200, body: { action: 'RESUMED' } });
    expect((await api(req('GET /v1/flags', { token }))).body.flags).toEqual([]);
  });
});

describe('v1 API', () => {
  it('health is public', async () => {
    expect(await api(req('GET /v1/health'))).toMatchObject({
      status: 200,
      body: { status: 'ok', checks: { dynamodb: 'ok' } },
    });
  });

  it('creates a key (secret shown once, only its hash stored), lists it by prefix, revokes it', async () => {
    const created = await api(req('POST /v1/keys', { token: tokenA, body: { name: 'ci' } }));
    expect(created.status).toBe(201);
    const apiKey: string = created.body.apiKey;
    expect(apiKey).toMatch(/^abn_[a-z0-9]{12}_[0-9A-Za-z]{43}$/);
    const stored = await h.services.keys.get(created.body.key.publicId);
    expect(JSON.stringify(stored)).not.toContain(apiKey.split('_')[2]);
    const listed = await api(req('GET /v1/keys', { token: tokenA }));
    expect(listed.body.keys.map((k: { prefix: string }) => k.prefix)).toContain(created.body.key.prefix);
    expect(JSON.stringify(listed.body)).not.toContain(apiKey);
    expect(
      (
        await api(
          req('DELETE /v1/keys/{publicId}', {
            token: tokenA,
            params: { publicId: created.body.key.publicId },
          }),
        )
      ).status,
    ).toBe(200);
    expect(await h.services.apiKeys.verify(apiKey)).toBeUndefined();
  });

  it('revokes once: a second DELETE answers 200, keeps the first revokedAt and is not audited again', async () => {
    const created = await api(req('POST /v1/keys', { token: tokenA, body: { name: 'twice' } }));
    const publicId: string = created.body.key.publicId;
    const del = () => api(req('DELETE /v1/keys/{publicId}', { token: tokenA, params: { publicId } }));
    const revokedAtOf = async () =>
      (await api(req('GET /v1/keys', { token: tokenA }))).body.keys.find(
        (k: { publicId: string }) => k.publicId === publicId,
      ).revokedAt;
    const audited = async () =>
      (
        await h.services.audit.list(
          'org_a',
          { limit: 100, cursor: null, action: 'key.revoked' },
          h.services.now(),
        )
      ).entries.filter((e) => e.target === publicId);
    const t0 = Date.now();
    h.setNow(t0);

    expect(await del()).toEqual({ status: 200, body: { revoked: true } });
    const first = await revokedAtOf();
    h.setNow(t0 + 60_000);
    expect(await del()).toEqual({ status: 200, body: { revoked: true } });

    expect(first).toBe(new Date(t0).toISOString());
    expect(await revokedAtOf()).toBe(first);
    const entries = await audited();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ before: { revokedAt: null }, after: { revokedAt: first } });

    // Two at once: one revocation, one audit entry.
    const racer = await api(req('POST /v1/keys', { token: tokenA, body: { name: 'race' } }));
    const racerId: string = racer.body.key.publicId;
    const both = await Promise.all(
      [1, 2].map(() =>
        api(req('DELETE /v1/keys/{publicId}', { token: tokenA, params: { publicId: racerId } })),
      ),
    );
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    const racerEntries = (
      await h.services.audit.list(
        'org_a',
        { limit: 100, cursor: null, action: 'key.revoked' },
        h.services.now(),
      )
    ).entries.filter((e) => e.target === racerId);
    expect(racerEntries).toHaveLength(1);
  });

  it('refuses control characters and bidirectional controls in a key name, naming `name`', async () => {
    for (const name of [
      'a\u0000b',
      'a\u001bb',
      'a\u007fb',
      'ci\nprod',
      'a\u0085b',
      'a\u009b31mb',
      'ci\u202edorp',
      'a\u2066b',
    ]) {
      const res = await api(req('POST /v1/keys', { token: tokenA, body: { name } }));
      expect(res.status).toBe(400);
      expect(res.body.error.problems).toEqual([
        { path: 'name', message: 'must not contain control characters or bidirectional controls' },
      ]);
    }
    // Surrounding whitespace is trimmed, as before; printable text, accents included, is a name.
    const ok = await api(req('POST /v1/keys', { token: tokenA, body: { name: ' prod — é \n' } }));
    expect(ok.status).toBe(201);
    expect(ok.body.key.name).toBe('prod — é');
  });

  it('keeps organizations apart: keys, ledger, budget and flags', async () => {
    await h.services.ledger.putForRecord('org_b', '1', [ledgerEntryOf('evt_b_secret')]);
    const asA = await api(req('GET /v1/ledger', { token: tokenA }));
    expect(JSON.stringify(asA.body)).not.toContain('evt_b_secret');
    const asBKey = await api(req('GET /v1/ledger', { key: keyB.apiKey }));
    expect(JSON.stringify(asBKey.body)).toContain('evt_b_secret');
    // A cannot revoke B's key: 404, and the key still works.
    expect(
      (await api(req('DELETE /v1/keys/{publicId}', { token: tokenA, params: { publicId: keyB.publicId } })))
        .status,
    ).toBe(404);
    expect(await h.services.apiKeys.verify(keyB.apiKey)).toMatchObject({ orgId: 'org_b' });
    // A's budget change does not touch B's.
    await api(
      req('PUT /v1/budget', { token: tokenA, body: { budget: { dailyLimitUsd: 5, action: 'block' } } }),
    );
    expect((await api(req('GET /v1/budget', { token: tokenB }))).body.budget.dailyLimitUsd).toBeNull();
    // What GET shows can be PUT back: a null limit is "no limit".
    const shown = (await api(req('GET /v1/budget', { token: tokenB }))).body.budget;
    const roundTrip = await api(
      req('PUT /v1/budget', { token: tokenB, body: { budget: { ...shown, action: 'warn' } } }),
    );
    expect(roundTrip.status).toBe(200);
    expect(roundTrip.body.budget).toMatchObject({
      dailyLimitUsd: null,
      monthlyLimitUsd: null,
      action: 'warn',
    });
    // GET's whole answer (spend, admission, layer info…) written back unchanged is accepted too.
    const whole = (await api(req('GET /v1/budget', { token: tokenB }))).body;
    const again = await api(req('PUT /v1/budget', { token: tokenB, body: whole }));
    expect(again.status).toBe(200);
    expect(again.body.budget).toEqual(whole.budget);
    // A misspelt member is still refused.
    const typo = await api(req('PUT /v1/budget', { token: tokenB, body: { ...whole, budgett: {} } }));
    expect(typo.status).toBe(400);
    // The budget's members at the top level, as spec 1.4 names them, change those members only.
    const flat = await api(
      req('PUT /v1/budget', { token: tokenB, body: { dailyLimitUsd: 11.5, action: 'block' } }),
    );
    expect(flat.status).toBe(200);
    expect(flat.body.budget).toMatchObject({ dailyLimitUsd: 11.5, action: 'block' });
    const monthly = await api(req('PUT /v1/budget', { token: tokenB, body: { monthlyLimitUsd: 100 } }));
    expect(monthly.body.budget).toMatchObject({ dailyLimitUsd: 11.5, monthlyLimitUsd: 100, action: 'block' });
    const unset = await api(req('PUT /v1/budget', { token: tokenB, body: { monthlyLimitUsd: null } }));
    expect(unset.body.budget).toMatchObject({ dailyLimitUsd: 11.5, monthlyLimitUsd: null });
    // A patch that leaves the budget invalid is refused whole, naming the member.
    const soft = await api(req('PUT /v1/budget', { token: tokenB, body: { dailySoftLimitUsd: 50 } }));
    expect(soft.status).toBe(400);
    expect(soft.body.error.problems.map((p: { path: string }) => p.path)).toEqual(['dailySoftLimitUsd']);
    // …but not beside a `budget` member: which one was meant is unknown.
    const both = await api(
      req('PUT /v1/budget', { token: tokenB, body: { budget: { dailyLimitUsd: 3 }, dailyLimitUsd: 4 } }),
    );
    expect(both.status).toBe(400);
    expect(both.body.error.problems.map((p: { path: string }) => p.path)).toEqual(['dailyLimitUsd']);
    // People-only routes refuse API keys.
    expect((await api(req('GET /v1/keys', { key: keyA.apiKey }))).status).toBe(401);
  });

  it('GET /v1/forecast with no forecast yet and no way to start one answers 200 with nothing, never a 5xx', async () => {
    const res = await api(req('GET /v1/forecast', { token: tokenA }));
    expect(res).toEqual({ status: 200, body: { computedAt: null, forecast: null } });
  });

  it('validates the ledger query and budget updates with field paths', async () => {
    const bad = await api(req('GET /v1/ledger', { token: tokenA, query: { limit: '0', source: 'fax' } }));
    expect(bad.status).toBe(400);
    expect(bad.body.error.problems.map((p: { path: string }) => p.path)).toEqual(
      expect.arrayContaining(['limit', 'source']),
    );
    const cursor = await api(req('GET /v1/ledger', { token: tokenA, query: { cursor: 'garbage' } }));
    expect(cursor.status).toBe(400);
    // from after to was a 500 (DynamoDB refuses BETWEEN with bounds the wrong way round).
    const window = { from: '2026-11-26T10:00:00Z', to: '2026-11-26T09:00:00Z' };
    const backwards = await api(req('GET /v1/ledger', { token: tokenA, query: window }));
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.problems).toEqual([{ path: 'to', message: 'must not be before from' }]);
    const sameInstant = { from: '2026-11-26T11:00:00+02:00', to: '2026-11-26T09:00:00Z' };
    expect((await api(req('GET /v1/ledger', { token: tokenA, query: sameInstant }))).status).toBe(200);
    const budget = await api(
      req('PUT /v1/budget', {
        token: tokenA,
        body: { budget: { dailyLimitUsd: 1, dailySoftLimitUsd: 2, action: 'block' } },
      }),
    );
    expect(budget.status).toBe(400);
    // Above what nano-USD integers hold exactly: a 400 naming the field, and nothing stored (it was a 500
    // that stored the value, after which every read of the budget failed).
    const before = await api(req('GET /v1/budget', { token: tokenA }));
    for (const huge of [9_000_001, 10_000_000, 1e9]) {
      const big = await api(
        req('PUT /v1/budget', { token: tokenA, body: { budget: { dailyLimitUsd: huge, action: 'block' } } }),
      );
      expect(big.status).toBe(400);
      expect(big.body.error.problems[0].path).toBe('budget.dailyLimitUsd');
    }
    const after = await api(req('GET /v1/budget', { token: tokenA }));
    expect(after.status).toBe(200);
    expect(after.body.budget).toEqual(before.body.budget);
    const policy = await api(
      req('PUT /v1/budget', {
        token: tokenA,
        body: { policy: { layers: { rpsBurst: { maxRequests: -3 } } } },
      }),
    );
    expect(policy.status).toBe(400);
    expect(policy.body.error.problems[0].path).toBe('policy.layers.rpsBurst.maxRequests');
  });

  it('pages through the ledger with a cursor, newest first, with filters', async () => {
    const entries = Array.from({ length: 7 }, (_, i) => ({
      ...ledgerEntryOf(`evt_p${i}`),
      ts: `2026-11-20T10:00:0${i}.000Z`,
      provider: i % 2 ? 'anthropic' : 'openai',
    }));
    await h.services.ledger.putForRecord('org_page', '1', entries);
    const tok = await issuer.issueIdToken({ sub: 'p', email: 'p@example.com', orgId: 'org_page' });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api(
        req('GET /v1/ledger', { token: tok, query: { limit: '3', ...(cursor ? { cursor } : {}) } }),
      );
      seen.push(...page.body.entries.map((e: { eventId: string }) => e.eventId));
      cursor = page.body.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['evt_p6', 'evt_p5', 'evt_p4', 'evt_p3', 'evt_p2', 'evt_p1', 'evt_p0']);
    const filtered = await api(req('GET /v1/ledger', { token: tok, query: { provider: 'anthropic' } }));
    expect(filtered.body.entries.map((e: { eventId: string }) => e.eventId)).toEqual([
      'evt_p5',
      'evt_p3',
      'evt_p1',
    ]);
    expect(filtered.body.entries[0]).toEqual(expect.objectContaining(ledgerEntryView({ ...entries[5]! })));

    // A cursor resumes only the range it was issued for: another from/to, or a forged key, is a 400.
    const first = await api(req('GET /v1/ledger', { token: tok, query: { limit: '3' } }));
    const issued = first.body.nextCursor as string; // after evt_p4 (10:00:04)
    const within = await api(
      req('GET /v1/ledger', {
        token: tok,
        query: { limit: '3', cursor: issued, from: '2026-11-20T10:00:01.000Z' },
      }),
    );
    expect(within.body.entries.map((e: { eventId: string }) => e.eventId)).toEqual([
      'evt_p3',
      'evt_p2',
      'evt_p1',
    ]);
    const forged = Buffer.from(JSON.stringify({ sk: '' })).toString('base64url');
    for (const query of [
      { cursor: issued, from: '2026-11-20T10:00:05.000Z' } as Record<string, string>,
      { cursor: issued, to: '2026-11-20T10:00:03.000Z' },
      { cursor: forged },
    ]) {
      const res = await api(req('GET /v1/ledger', { token: tok, query: { limit: '3', ...query } }));
      expect(res.status).toBe(400);
      expect(res.body.error.problems.map((p: { path: string }) => p.path)).toEqual(['cursor']);
    }
  });
});

function ledgerEntryOf(eventId: string) {
  return {
    eventId,
    ts: '2026-11-21T10:00:00.000Z',
    source: 'ingest' as const,
    kind: 'call' as const,
    keyId: 'k',
    provider: 'openai',
    model: 'gpt-4o',
    inputTokens: 10,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 5,
    reasoningTokens: 0,
    webSearchRequests: 0,
    costNanos: 75_000,
    costSource: 'PROVIDER_REGISTRY' as const,
    registryCostNanos: 75_000,
    toolFeesNanos: 0,
    pricedAs: 'gpt-4o',
    clientCostUsd: null,
    providerCostUsd: null,
    estimated: false,
    latencyMs: null,
    statusCode: 200,
    projectId: null,
    environment: null,
    featureId: null,
    sessionId: null,
    endpoint: null,
    stream: null,
    verified: true,
    fingerprint: null,
  };
}
