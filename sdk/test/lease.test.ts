/**
 * The shared budget through leases (issue 12.3, CONTRACTS §2): direct calls draw on a slice the SDK
 * holds through `POST /v1/budget/lease`, renewed off the call path; `exhausted` → synthetic 429; the
 * backend unreachable → fail open, counted; the slice released on shutdown and at the end of a Lambda
 * invocation.
 */
import fc from 'fast-check';
import { shutdown, withSpendguard, wrapFetch } from '../src';
import type { Client } from '../src/client';
import { BudgetLease, readLeaseAnswer, type LeaseRequest } from '../src/lease';
import { sdkState } from '../src/tracked-fetch';
import { startFakeIngest, TEST_API_KEY, type FakeIngest } from './helpers/fake-ingest';
import { chatInit, OPENAI_URL } from './helpers/in-process';

let ingest: FakeIngest;

beforeAll(async () => {
  ingest = await startFakeIngest();
});
afterAll(() => ingest.close());
beforeEach(() => {
  ingest.reset();
  ingest.leases = true;
});
afterEach(() => shutdown({ timeoutMs: 500 }));

function client(): Client {
  return [...sdkState().clients.values()][0] as Client;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** gpt-4o-mini: 150 nano-USD per prompt token. 40,000 tokens = $0.006. */
const CALL_NANOS = 6_000_000;

/** A provider whose every answer costs {@link CALL_NANOS}. */
function costlyProvider(): { fetch: typeof fetch; calls: number } {
  const state = {
    calls: 0,
    fetch: (async () => {
      state.calls++;
      return new Response(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          model: 'gpt-4o-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 40_000, completion_tokens: 0, total_tokens: 40_000 },
          service_tier: 'default',
        }),
        { headers: { 'content-type': 'application/json' } },
      );
    }) as typeof fetch,
  };
  return state;
}

function tracked(inner: typeof fetch, endpoint = ingest.url): typeof fetch {
  return wrapFetch(inner, { apiKey: TEST_API_KEY, endpoint, flushIntervalMs: 1000 }) as typeof fetch;
}

/** One call as an official client would make it: a `budget_lease_pending` 429 is retried (after a short wait). */
async function call(f: typeof fetch): Promise<Response> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const response = await f(OPENAI_URL, chatInit());
    if (response.headers.get('x-spendguard-blocked') !== 'budget_lease_pending') {
      await response.text();
      return response;
    }
    await sleep(20);
  }
  throw new Error('lease never renewed');
}

describe('a capped budget', () => {
  it('sequential calls stop at the cap: spend past it is at most one call, none refused while one fits', async () => {
    ingest.leaseCapUsd = 0.05;
    ingest.sliceUsd = 0.02;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle(); // the first lease
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 15 && refused === undefined; i++) {
      const r = await call(f);
      statuses.push(r.status);
      if (r.status === 429) refused = r;
    }
    // $0.05 / $0.006: 8 calls spend $0.048, the 9th fits the $0.002 left and crosses the cap.
    expect(provider.calls).toBe(9);
    expect(refused).toBeDefined();
    expect(refused!.headers.get('x-should-retry')).toBe('false');
    expect(refused!.headers.get('x-spendguard-blocked')).toBe('hard_cap');
    const midnight = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000;
    expect(
      Math.abs(Number(refused!.headers.get('retry-after')) - (midnight - Date.now()) / 1000),
    ).toBeLessThan(5);
    expect(client().stats().lease).toMatchObject({ state: 'exhausted' });

    await shutdown({ timeoutMs: 2000 });
    // Every call was reported, exactly, through renewals and the release.
    expect(ingest.settledNanos()).toBe(9 * CALL_NANOS);
    expect(ingest.settledNanos()).toBeLessThanOrEqual(50_000_000 + CALL_NANOS);
  });

  it('renews off the call path before the slice runs out, reporting consumption and a spend rate', async () => {
    ingest.leaseCapUsd = 10;
    ingest.sliceUsd = 0.02;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    for (let i = 0; i < 12; i++) {
      expect((await call(f)).status).toBe(200);
      await sleep(5);
    }
    await client().settle();
    const holderId = client().stats().lease!.holderId;
    const renewals = ingest.leaseCalls.filter((c) => c.route === 'lease' && c.body.holderId === holderId);
    expect(renewals.length).toBeGreaterThanOrEqual(4); // a $0.02 slice holds ~3 calls
    const reported = renewals.reduce((sum, c) => sum + Math.round(c.body.consumedUsd * 1e9), 0);
    expect(reported % CALL_NANOS).toBe(0);
    expect(reported).toBeGreaterThan(0);
    expect(renewals.some((c) => typeof c.body.spendRateUsdPerMin === 'number')).toBe(true);
    expect(holderId).toMatch(/^sdk-[0-9a-f-]{36}$/);
  });

  it('an exhausted budget refuses every call without contacting the provider', async () => {
    ingest.leaseCapUsd = 0.001;
    ingest.sliceUsd = 0.02;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    expect((await call(f)).status).toBe(200); // the $0.001 slice admits one call
    await client().settle(); // renewal: exhausted
    const refused = await f(OPENAI_URL, chatInit());
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { type: 'budget_exceeded', code: 'hard_cap' } });
    expect(provider.calls).toBe(1);
  });

  it('no hard cap (capped: false): every call is admitted and only reported', async () => {
    ingest.leaseCapUsd = null;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    for (let i = 0; i < 5; i++) expect((await call(f)).status).toBe(200);
    expect(client().stats().lease).toMatchObject({ state: 'uncapped' });
    await shutdown({ timeoutMs: 2000 });
    expect(ingest.settledNanos()).toBe(5 * CALL_NANOS);
  });

  it('the lease answer carries the flags too: a session flag refuses before any flush', async () => {
    ingest.enforcement = true;
    ingest.flags = [ingest.flag('session', 'agent-7')];
    const provider = costlyProvider();
    const f = wrapFetch(provider.fetch, {
      apiKey: TEST_API_KEY,
      endpoint: ingest.url,
      sessionId: 'agent-7',
    }) as typeof fetch;
    await client().settle();
    expect((await f(OPENAI_URL, chatInit())).status).toBe(429);
    expect(provider.calls).toBe(0);
    expect(ingest.batches).toHaveLength(0);
  });
});

describe('fail-open (spec Law 4)', () => {
  it.each([
    ['unreachable', 'http://127.0.0.1:9', 0, 'unreachable'],
    ['answering 503', '', 503, 'unreachable'],
    ['without lease routes (404)', '', 404, 'unsupported'],
    ['refusing the key (401)', '', 401, 'refused'],
  ])('backend %s: calls go through and are counted', async (_name, endpoint, status, state) => {
    if (status === 404) ingest.leases = false;
    else if (status !== 0) ingest.leaseStatus = status;
    const debug = jest.spyOn(console, 'debug').mockImplementation(() => undefined);
    ingest.leaseCapUsd = 0.000001;
    const provider = costlyProvider();
    const f = wrapFetch(provider.fetch, {
      apiKey: TEST_API_KEY,
      endpoint: endpoint || ingest.url,
      debug: true,
    }) as typeof fetch;
    await client().settle();
    for (let i = 0; i < 3; i++) expect((await call(f)).status).toBe(200);
    expect(provider.calls).toBe(3);
    const stats = client().stats();
    expect(stats.lease).toMatchObject({ state });
    expect(stats.failOpen).toBe(3);
    expect(stats.lease!.errors).toBeGreaterThanOrEqual(1);
    expect(debug.mock.calls.some((c) => String(c[0]).includes('lease request failed'))).toBe(true);
    debug.mockRestore();
  });
});

describe('release', () => {
  it('at the end of a Lambda invocation the unused slice goes back with the final report', async () => {
    ingest.leaseCapUsd = 1;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    const handler = withSpendguard(async () => {
      await call(f);
      await call(f);
      return 'done';
    });
    await expect(handler({}, { getRemainingTimeInMillis: () => 10_000 })).resolves.toBe('done');
    const release = ingest.leaseCalls.find((c) => c.route === 'release');
    expect(release).toBeDefined();
    expect(ingest.settledNanos()).toBe(2 * CALL_NANOS);
    expect(client().stats().lease).toMatchObject({ state: 'none', grantedUsd: 0 });
  });
});

describe('BudgetLease (state machine)', () => {
  const T0 = Date.UTC(2026, 10, 24);

  it('property: holders sharing a cap spend at most cap + one call each', () => {
    const op = fc.record({
      holder: fc.integer({ min: 0, max: 2 }),
      answer: fc.boolean(),
      cost: fc.integer({ min: 0, max: 20_000_000 }),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 1, max: 50_000_000 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(op, { maxLength: 120 }),
        (capNanos, sliceNanos, holderCount, ops) => {
          // The server, as CONTRACTS §2 describes it (the fake ingest's rules), in nano-USD.
          let settled = 0;
          const slices = new Map<string, number>();
          const serve = (req: LeaseRequest, now: number): unknown => {
            settled += Math.round(req.consumedUsd * 1e9);
            slices.delete(req.holderId);
            const left = capNanos - settled - [...slices.values()].reduce((a, b) => a + b, 0);
            if (left <= 0)
              return {
                capped: true,
                exhausted: true,
                grantedUsd: 0,
                ttlSeconds: 30,
                retryAfterSeconds: 3600,
              };
            const slice = Math.min(sliceNanos, left);
            slices.set(req.holderId, slice);
            return { capped: true, exhausted: false, grantedUsd: slice / 1e9, ttlSeconds: 30, now };
          };
          let now = T0;
          const holders = Array.from({ length: holderCount }, (_, i) => new BudgetLease(`sdk-${i}`));
          const pending: Array<LeaseRequest | null> = holders.map(() => null);
          for (const h of holders) h.answered(readLeaseAnswer(serve(h.begin(now), now), now)!, now);
          let spent = 0;
          let maxCost = 0;
          for (const o of ops) {
            now += 10; // well inside the 30 s lifetime: no lapse
            const h = holders[o.holder % holderCount]!;
            const idx = o.holder % holderCount;
            if (o.answer) {
              const req = pending[idx];
              if (req !== null && req !== undefined) {
                h.answered(readLeaseAnswer(serve(req, now), now)!, now);
                pending[idx] = null;
              }
              continue;
            }
            if (pending[idx] === null && h.due(now, true)) pending[idx] = h.begin(now);
            const decision = h.admit(now);
            if (decision === null) {
              spent += o.cost;
              maxCost = Math.max(maxCost, o.cost);
              h.record(o.cost);
            }
          }
          expect(spent).toBeLessThanOrEqual(capNanos + holderCount * maxCost);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('lapsed unused slice: one call on credit, then a retryable refusal until the renewal answers', () => {
    const lease = new BudgetLease('sdk-x');
    lease.answered(
      { capped: true, exhausted: false, grantedNanos: 1000, ttlMs: 30_000, retryAfterSeconds: null },
      T0,
    );
    expect(lease.admit(T0 + 31_000)).toBeNull();
    expect(lease.admit(T0 + 31_001)).toEqual({ kind: 'pending' });
    expect(lease.due(T0 + 31_001, true)).toBe(true);
  });

  it('a failed renewal keeps a valid slice, then fails open when it lapses', () => {
    const lease = new BudgetLease('sdk-x');
    lease.answered(
      { capped: true, exhausted: false, grantedNanos: 1000, ttlMs: 30_000, retryAfterSeconds: null },
      T0,
    );
    lease.record(600);
    lease.begin(T0 + 1);
    lease.failed('unreachable', T0 + 2);
    expect(lease.mode).toBe('capped');
    lease.record(600);
    expect(lease.admit(T0 + 3)).toEqual({ kind: 'pending' });
    lease.begin(T0 + 2000);
    lease.failed('unreachable', T0 + 2001);
    expect(lease.mode).toBe('unreachable');
    expect(lease.admit(T0 + 2002)).toBeNull();
    expect(lease.failOpenCalls).toBe(1);
    // The unreported consumption is kept for the next report.
    expect(lease.release().consumedUsd).toBeCloseTo(1200 / 1e9, 15);
  });

  it('reads answers defensively', () => {
    expect(readLeaseAnswer(null, T0)).toBeNull();
    expect(readLeaseAnswer({ capped: 'yes' }, T0)).toBeNull();
    expect(
      readLeaseAnswer({ capped: true, grantedUsd: 0.05, expiresAt: new Date(T0 + 20_000).toISOString() }, T0),
    ).toEqual({
      capped: true,
      exhausted: false,
      grantedNanos: 50_000_000,
      ttlMs: 20_000,
      retryAfterSeconds: null,
    });
    expect(readLeaseAnswer({ capped: true, grantedUsd: Number.POSITIVE_INFINITY }, T0)?.grantedNanos).toBe(0);
  });
});
