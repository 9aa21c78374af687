/**
 * The lease routes and the admission panel, through the API handler on dynalite (CONTRACTS.md §2, §3).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { budgetLeaseResponseSchema, budgetStatusSchema } from '../../../core/schemas/api';
import { createLambdaContext, createLocalIssuer, type LocalIssuer } from '../../../local/runtime';
import {
  startBackendHarness,
  type BackendHarness,
  UNUSED_FORECAST_RUNS,
} from '../../../test/backend-harness';
import type { IdTokenVerifier } from '../../shared/services';
import { createApiHandler } from '../handler';
import { holderWindowAt, LEASE_HOLDERS_PER_KEY_PER_HOUR } from './budget-lease';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const ctx = createLambdaContext({ functionName: 'api' });

let h: BackendHarness;
let issuer: LocalIssuer;
let idTokens: IdTokenVerifier;

beforeAll(async () => {
  h = await startBackendHarness();
  h.setNow(NOW);
  issuer = await createLocalIssuer({ memory: true, issuerUrl: 'http://127.0.0.1:1/local-issuer' });
  const v = issuer.createVerifier();
  idTokens = { verify: async (t) => (await v.verify(t)) as Record<string, unknown> };
});
afterAll(() => h.close());

function event(
  routeKey: string,
  opts: { key?: string; token?: string; body?: unknown },
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey,
    rawPath: routeKey.split(' ')[1] as string,
    rawQueryString: '',
    headers: {
      ...(opts.key ? { 'service-api-key': opts.key } : {}),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
    },
    requestContext: {} as APIGatewayProxyEventV2['requestContext'],
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    isBase64Encoded: false,
  };
}

async function api(routeKey: string, opts: { key?: string; token?: string; body?: unknown }) {
  const handler = createApiHandler({
    services: h.services,
    idTokens,
    registry: h.registry,
    logger: h.logger,
    forecastRuns: UNUSED_FORECAST_RUNS,
    version: 'test',
  });
  const res = (await handler(event(routeKey, opts), ctx)) as APIGatewayProxyStructuredResultV2;
  return {
    status: res.statusCode,
    headers: res.headers ?? {},
    body: JSON.parse(res.body ?? 'null') as Record<string, any>, // eslint-disable-line @typescript-eslint/no-explicit-any
  };
}

async function capped(orgId: string, dailyLimitUsd: number) {
  const key = await h.createKey(orgId);
  await h.services.config.put(
    orgId,
    {
      budget: { dailyLimitUsd, action: 'block' },
      policy: {},
      updatedAt: new Date(NOW).toISOString(),
    },
    0,
  );
  return key.apiKey;
}

describe('POST /v1/budget/lease', () => {
  it('grants a slice of a capped budget, expiring in 30 s, with the key’s enforcement state', async () => {
    const key = await capped('org_lease', 1);
    const res = await api('POST /v1/budget/lease', {
      key,
      body: { holderId: 'sdk-1', consumedUsd: 0, spendRateUsdPerMin: 0 },
    });
    expect(res.status).toBe(200);
    expect(budgetLeaseResponseSchema.safeParse(res.body).success).toBe(true);
    // Nothing spent, reserved or needed: nothing granted (the holder learns the cap applies; its first
    // call asks for its worst case, granted with the $0.01 minimum headroom).
    expect(res.body).toEqual({
      holderId: 'sdk-1',
      capped: true,
      exhausted: false,
      retryable: false,
      grantedUsd: 0,
      expiresAt: '2026-11-22T10:00:30.000Z',
      ttlSeconds: 30,
      retryAfterSeconds: null,
      enforcement: { blocked: false, flags: [] },
    });
  });

  it('sizes the headroom by the spend rate that reported spend backs', async () => {
    const key = await capped('org_rate', 1);
    // A fresh holder: its need + the $0.01 minimum headroom.
    const first = await api('POST /v1/budget/lease', { key, body: { holderId: 'sdk-fast', needUsd: 0.09 } });
    expect(first.body.grantedUsd).toBeCloseTo(0.1, 9);
    // It spent its $0.10 at $6/min = $0.10/s (backed: at most 4 × $0.10 over 2 s): covered for 2 s → $0.20.
    const renewed = await api('POST /v1/budget/lease', {
      key,
      body: { holderId: 'sdk-fast', consumedUsd: 0.1, spendRateUsdPerMin: 6 },
    });
    expect(renewed.body.grantedUsd).toBeCloseTo(0.2, 9);
    // $600/min declared on $0.01 spent: the rate counts as 4 × $0.01 / 2 s = $0.02/s → $0.04, not $0.445.
    const greedy = await api('POST /v1/budget/lease', {
      key,
      body: { holderId: 'sdk-fast', consumedUsd: 0.01, spendRateUsdPerMin: 600 },
    });
    expect(greedy.body.grantedUsd).toBeCloseTo(0.04, 9);
    // Spending its whole $0.04 earns it at most 4 × $0.04 = $0.16 of headroom: room grows with spend.
    const backed = await api('POST /v1/budget/lease', {
      key,
      body: { holderId: 'sdk-fast', consumedUsd: 0.04, spendRateUsdPerMin: 600 },
    });
    expect(backed.body.grantedUsd).toBeCloseTo(0.16, 9);
  });

  it('counts reported spend, answers exhausted with Retry-After to the end of the day once nothing fits', async () => {
    const key = await capped('org_full', 0.05);
    // a $0.015 need + the $0.01 headroom: the whole fair share, $0.025
    await api('POST /v1/budget/lease', { key, body: { holderId: 'sdk-a', needUsd: 0.015 } });
    await h.services.budgetLeases.correctSettled({ kind: 'organization', orgId: 'org_full' }, 25_000_000);
    const full = await api('POST /v1/budget/lease', { key, body: { holderId: 'sdk-a', consumedUsd: 0.025 } });
    expect(full.body).toMatchObject({
      capped: true,
      exhausted: true,
      retryable: false,
      grantedUsd: 0,
      retryAfterSeconds: 14 * 3600,
    });
    const other = await api('POST /v1/budget/lease', { key, body: { holderId: 'sdk-b' } });
    expect(other.body).toMatchObject({ exhausted: true, grantedUsd: 0 });
  });

  it('keeps covering calls the holder still has in flight (reservedUsd) on top of the headroom', async () => {
    const key = await capped('org_inflight', 1);
    // a $0.25 need + $0.01 = $0.26 granted; then two calls worth $0.25 are in flight
    await api('POST /v1/budget/lease', { key, body: { holderId: 'sdk-f', needUsd: 0.25 } });
    const res = await api('POST /v1/budget/lease', {
      key,
      body: { holderId: 'sdk-f', reservedUsd: 0.25 },
    });
    // $0.25 in flight + the default $0.01 headroom
    expect(res.body).toMatchObject({ exhausted: false, grantedUsd: 0.26 });
    const during = await api('GET /v1/budget', { key });
    expect(during.body.admission.day).toMatchObject({
      reservedUsd: 0.25,
      outstandingReservations: 1,
      leasedUsd: 0.26,
    });
  });

  it('grants a waiting call its need (needUsd) whole, or answers exhausted when it does not fit', async () => {
    const key = await capped('org_need', 0.1);
    const granted = await api('POST /v1/budget/lease', {
      key,
      body: { holderId: 'sdk-n', needUsd: 0.03 },
    });
    // the $0.03 need + the default $0.01 headroom ($0.07 left, $0.04 once another $0.03 call fits)
    expect(granted.body).toMatchObject({ exhausted: false, grantedUsd: 0.04 });
    // $0.06 left: a $0.05 need fits whole, without headroom (the $0.01 left would not hold another)
    const exact = await api('POST /v1/budget/lease', { key, body: { holderId: 'sdk-m', needUsd: 0.05 } });
    expect(exact.body).toMatchObject({ exhausted: false, grantedUsd: 0.05 });
    // $0.01 left beside both slices: a $0.02 need does not fit, nothing is granted
    const refused = await api('POST /v1/budget/lease', {
      key,
      body: { holderId: 'sdk-o', needUsd: 0.02 },
    });
    expect(refused.body).toMatchObject({ exhausted: true, grantedUsd: 0 });
  });

  it('tells a capped holder when the organization allows deferred billing (its budget setting)', async () => {
    const key = await capped('org_deferred', 1);
    const body = { holderId: 'sdk-1', consumedUsd: 0, spendRateUsdPerMin: 0 };
    expect((await api('POST /v1/budget/lease', { key, body })).body).not.toHaveProperty(
      'allowDeferredBilling',
    );
    await h.services.config.put(
      'org_deferred',
      {
        budget: { dailyLimitUsd: 1, action: 'block', allowDeferredBilling: true },
        policy: {},
        updatedAt: new Date(NOW).toISOString(),
      },
      1,
    );
    const res = await api('POST /v1/budget/lease', { key, body: { ...body, holderId: 'sdk-2' } });
    expect(res.body).toMatchObject({ capped: true, allowDeferredBilling: true });
    expect(budgetLeaseResponseSchema.safeParse(res.body).success).toBe(true);
  });

  it('answers capped: false and grants nothing without a block cap', async () => {
    const key = await h.createKey('org_free');
    const res = await api('POST /v1/budget/lease', { key: key.apiKey, body: { holderId: 'sdk-1' } });
    expect(res.body).toMatchObject({ capped: false, exhausted: false, grantedUsd: 0 });
    // Asked again within 10 s while calls are made (a capped slice lives 30 s): a cap set later reaches a
    // running SDK process that soon, not a slice's lifetime later.
    expect(res.body.ttlSeconds).toBeGreaterThanOrEqual(9);
    expect(res.body.ttlSeconds).toBeLessThanOrEqual(10);
  });

  it('refuses bad bodies with 400 and where, people with 403, no credential with 401', async () => {
    const key = await capped('org_bad', 1);
    const bad = await api('POST /v1/budget/lease', {
      key,
      body: { holderId: '', consumedUsd: -1, extra: 1 },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/holderId/);
    expect(JSON.stringify(bad.body)).toMatch(/consumedUsd/);
    const token = await issuer.issueIdToken({ sub: 'p', email: 'p@example.com', orgId: 'org_bad' });
    expect((await api('POST /v1/budget/lease', { token, body: { holderId: 'x' } })).status).toBe(403);
    expect((await api('POST /v1/budget/lease', { body: { holderId: 'x' } })).status).toBe(401);
  });
});

describe('POST /v1/budget/lease/release and the admission panel', () => {
  it('returns the unused slice, settles the spend, and GET /v1/budget shows it', async () => {
    const key = await capped('org_release', 0.3);
    await api('POST /v1/budget/lease', { key, body: { holderId: 'sdk-r', needUsd: 0.09 } });
    const during = await api('GET /v1/budget', { key });
    expect(budgetStatusSchema.safeParse(during.body).success).toBe(true);
    // a $0.09 need + $0.01 = $0.10 leased, nothing settled yet
    expect(during.body.admission.day).toEqual({
      capUsd: 0.3,
      settledUsd: 0,
      reservedUsd: 0,
      outstandingReservations: 0,
      leasedUsd: 0.1,
      holders: 1,
    });
    expect(during.body.admission.month.capUsd).toBeNull();

    const released = await api('POST /v1/budget/lease/release', {
      key,
      body: { holderId: 'sdk-r', consumedUsd: 0.042 },
    });
    expect(released).toMatchObject({ status: 200, body: { released: true } });
    const after = await api('GET /v1/budget', { key });
    expect(after.body.admission.day).toMatchObject({ settledUsd: 0.042, leasedUsd: 0, holders: 0 });
    expect(after.body.admission.month).toMatchObject({ settledUsd: 0.042, leasedUsd: 0 });
  });
});

describe('lease abuse (issue 19)', () => {
  it('binds a holder to the key that took it: another key of the organization cannot report for it', async () => {
    const owner = await capped('org_bound', 1);
    const other = (await h.createKey('org_bound', 'other')).apiKey;
    await api('POST /v1/budget/lease', { key: owner, body: { holderId: 'sdk-own', needUsd: 0.09 } });
    const forged = await api('POST /v1/budget/lease/release', {
      key: other,
      body: { holderId: 'sdk-own', consumedUsd: 0.1 },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error.message).toMatch(/another key/);
    const panel = await api('GET /v1/budget', { key: owner });
    expect(panel.body.admission.day).toMatchObject({ settledUsd: 0, leasedUsd: 0.1, holders: 1 });
  });

  it('moves no more than a holder was granted: forged spend and parked reservations are clamped', async () => {
    const key = await capped('org_forge', 1);
    // The attack of issue 19: a new holder id reporting $5,000 blocked the organization for the month.
    const forged = await api('POST /v1/budget/lease/release', {
      key,
      body: { holderId: 'x', consumedUsd: 5000 },
    });
    expect(forged.status).toBe(200);
    const park = await api('POST /v1/budget/lease', { key, body: { holderId: 'y', reservedUsd: 100_000 } });
    expect(park.body).toMatchObject({ exhausted: false, grantedUsd: 0 }); // nothing of the $100,000
    // A holder granted $0.10 reports $3: $0.10 counts.
    await api('POST /v1/budget/lease', { key, body: { holderId: 'z', needUsd: 0.09 } });
    await api('POST /v1/budget/lease/release', { key, body: { holderId: 'z', consumedUsd: 3 } });
    const panel = await api('GET /v1/budget', { key });
    expect(panel.body.admission.day.settledUsd).toBe(0.1);
    const next = await api('POST /v1/budget/lease', { key, body: { holderId: 'w' } });
    expect(next.body).toMatchObject({ exhausted: false });
  });

  it('refuses reserved holder ids and amounts beyond the schema bound with 400', async () => {
    const key = await capped('org_proto', 1);
    for (const holderId of ['__proto__', 'constructor', 'prototype']) {
      const res = await api('POST /v1/budget/lease', { key, body: { holderId } });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(/holderId/);
    }
    const huge = await api('POST /v1/budget/lease', { key, body: { holderId: 'sdk-1', reservedUsd: 1e9 } });
    expect(huge.status).toBe(400);
    expect(JSON.stringify(huge.body)).toMatch(/reservedUsd/);
  });

  it('a key minting holders that claim nothing parks nothing (the acceptance walk’s jam)', async () => {
    const key = await capped('org_jam', 0.1);
    // The walk: fresh holders declaring $99,999/min and reporting nothing each took half the free room,
    // and lapsed as spent: 24 of them left $0.0025 of $0.10 without a single provider call.
    for (let i = 0; i < 16; i++) {
      if (i === 10) h.setNow(NOW + 2_000); // past the key's burst of lease calls
      const res = await api('POST /v1/budget/lease', {
        key,
        body: { holderId: `p2-${i}`, consumedUsd: 0, spendRateUsdPerMin: 99_999 },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ capped: true, exhausted: false, grantedUsd: 0 });
    }
    h.setNow(NOW);
    const panel = await api('GET /v1/budget', { key });
    expect(panel.body.admission.day).toMatchObject({ leasedUsd: 0, settledUsd: 0 });
    // A real call still gets its worst case (the whole $0.10 is free; no headroom beyond one more such call).
    const real = await api('POST /v1/budget/lease', { key, body: { holderId: 'sdk-real', needUsd: 0.05 } });
    expect(real.body).toMatchObject({ exhausted: false, grantedUsd: 0.05 });
  });

  it('bounds new holders per key and hour with a clear 429 until the hour ends, and rate-limits the lease routes per key', async () => {
    const key = await capped('org_flood', 1);
    const publicId = key.split('_')[1]?.slice(0, 12) ?? '';
    // The key already registered this hour's bound of holders (as a flood of distinct ids would).
    for (let i = 0; i < LEASE_HOLDERS_PER_KEY_PER_HOUR; i++) {
      await h.services.leaseHolders.register(
        'org_flood',
        publicId,
        holderWindowAt(NOW),
        LEASE_HOLDERS_PER_KEY_PER_HOUR,
        1e6,
      );
    }
    const flood = await api('POST /v1/budget/lease', { key, body: { holderId: 'one-too-many' } });
    expect(flood.status).toBe(429);
    expect(flood.body.error.message).toMatch(/too many new lease holders this hour/);
    // 10:00 now: room again at 11:00, not at midnight.
    expect(Number(flood.headers['retry-after'])).toBe(3600);
    // Another key of the organization is unaffected.
    const other = (await h.createKey('org_flood', 'other')).apiKey;
    expect((await api('POST /v1/budget/lease', { key: other, body: { holderId: 'fine' } })).status).toBe(200);
    // Burst of 20 then 10/s: the 21st call in the same instant is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      statuses.push(
        (await api('POST /v1/budget/lease', { key: other, body: { holderId: 'fine' } })).status ?? 0,
      );
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
  });
});

describe('POST /v1/budget/settled/correct', () => {
  it('lets a person correct settled spend and keeps an audit record with who, when, before and after', async () => {
    const key = await capped('org_correct', 1);
    await h.services.budgetLeases.correctSettled({ kind: 'organization', orgId: 'org_correct' }, 400_000_000);
    const token = await issuer.issueIdToken({ sub: 'admin-1', email: 'a@example.com', orgId: 'org_correct' });
    const res = await api('POST /v1/budget/settled/correct', {
      token,
      body: { deltaUsd: -0.3, reason: 'forged lease report' },
    });
    expect(res.status).toBe(200);
    expect(res.body.settledUsd).toEqual({
      before: { day: 0.4, month: 0.4 },
      after: { day: 0.1, month: 0.1 },
    });
    expect(res.body.appliedUsd).toBe(-0.3);
    // More than what admission counts: applied down to zero, and the answer says how much that was.
    const all = await api('POST /v1/budget/settled/correct', {
      token,
      body: { deltaUsd: -5, reason: 'start the day afresh' },
    });
    expect(all.body).toMatchObject({ deltaUsd: -5, appliedUsd: -0.1, settledUsd: { after: { day: 0 } } });
    const audit = await h.services.audit.list(
      'org_correct',
      { limit: 10, cursor: null, action: 'settled_spend.corrected' },
      Date.now(),
    );
    expect(audit.entries).toHaveLength(2);
    // Two corrections in the same millisecond list in either order: the first is found by its reason.
    const first = audit.entries.find(
      (e) => (e.after as { reason?: string } | null)?.reason === 'forged lease report',
    );
    expect(first).toMatchObject({
      id: res.body.id,
      actor: { kind: 'person', sub: 'admin-1', email: 'a@example.com' },
      before: { settledDayUsd: 0.4, settledMonthUsd: 0.4 },
      after: {
        settledDayUsd: 0.1,
        settledMonthUsd: 0.1,
        deltaUsd: -0.3,
        appliedUsd: -0.3,
        reason: 'forged lease report',
      },
    });
    // A key cannot correct (people only), and a bad body is a 400 that says where.
    expect(
      (await api('POST /v1/budget/settled/correct', { key, body: { deltaUsd: -1, reason: 'x' } })).status,
    ).toBe(401);
    const bad = await api('POST /v1/budget/settled/correct', { token, body: { deltaUsd: 0, reason: '' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/deltaUsd/);
    // Below a nano-dollar it would change nothing; a reason with control characters would forge lines.
    for (const [body, path] of [
      [{ deltaUsd: 1e-12, reason: 'rounding' }, 'deltaUsd'],
      [{ deltaUsd: -1, reason: 'abc\u0000\n\u001b[31mFAKE' }, 'reason'],
      [{ deltaUsd: -1, reason: 'refund \u202etroper' }, 'reason'],
    ] as const) {
      const refused = await api('POST /v1/budget/settled/correct', { token, body });
      expect(refused.status).toBe(400);
      expect(refused.body.error.problems.map((p: { path: string }) => p.path)).toEqual([path]);
    }
  });
});
