/**
 * The shared budget through leases (issues 12.3 and 18.5, CONTRACTS §2): each direct call reserves its
 * worst case against a slice the SDK holds through `POST /v1/budget/lease` before it is made; `exhausted`
 * → synthetic 429; the key refused → every call refused (fail closed); the backend unreachable → fail
 * open, counted; the slice kept across Lambda invocations (spend reported at each end), released on
 * shutdown.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { flush, shutdown, withSpendguard, wrapFetch } from '../src';
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

/**
 * The worst case of a `chatInit()` call, from OpenAI's published gpt-4o-mini rates ($0.15 / $0.60 per
 * million tokens): its body's bytes + 16 as input tokens, and the model's 16,384-token output maximum
 * (the request sets no max_tokens).
 */
const OUTPUT_NANOS = 16_384 * 600;
const WORST_NANOS = (Buffer.byteLength(chatInit().body as string) + 16) * 150 + OUTPUT_NANOS;

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

/** Another process of the organization takes a slice (`ingest.sliceUsd` of what is left). */
async function anotherHolderTakesASlice(): Promise<void> {
  const other = await fetch(`${ingest.url}/v1/budget/lease`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-api-key': TEST_API_KEY },
    body: JSON.stringify({ holderId: `other-process-${randomUUID()}`, consumedUsd: 0 }),
  });
  expect(other.status).toBe(200);
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
  it('sequential calls stop at the cap: nothing past it, refused only when a worst case no longer fits', async () => {
    ingest.leaseCapUsd = 0.05;
    ingest.sliceUsd = 0.02;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle(); // the first lease
    let refused: Response | undefined;
    for (let i = 0; i < 15 && refused === undefined; i++) {
      const r = await call(f);
      if (r.status === 429) refused = r;
    }
    // A call goes only while its worst case fits what is left: k calls spent k × $0.006. (Near the cap the
    // precise bound replaces the cheap one; they differ by < 15,000 nanos, which does not change k.)
    const fitting = Math.floor((50_000_000 - WORST_NANOS) / CALL_NANOS) + 1;
    expect(provider.calls).toBe(fitting);
    expect(50_000_000 - fitting * CALL_NANOS).toBeLessThan(WORST_NANOS);
    expect(refused).toBeDefined();
    expect(refused!.headers.get('x-should-retry')).toBe('false');
    expect(refused!.headers.get('x-spendguard-blocked')).toBe('hard_cap');
    const midnight = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000;
    expect(
      Math.abs(Number(refused!.headers.get('retry-after')) - (midnight - Date.now()) / 1000),
    ).toBeLessThan(5);
    expect(client().stats().lease).toMatchObject({ state: 'exhausted' });

    await shutdown({ timeoutMs: 2000 });
    expect(ingest.settledNanos()).toBe(fitting * CALL_NANOS);
    expect(ingest.settledNanos()).toBeLessThanOrEqual(50_000_000);
  }, 15_000);

  it('a call the application aborts after it left keeps its worst case (the provider bills it); a refused connection settles at 0', async () => {
    ingest.leaseCapUsd = 10;
    ingest.sliceUsd = 1;
    const abandoned = (async (_url: unknown, init?: RequestInit) => {
      // The provider has the request; the application gives up before the answer.
      await new Promise((_, reject) =>
        init?.signal?.addEventListener('abort', () =>
          reject(new DOMException('This operation was aborted', 'AbortError')),
        ),
      );
      return new Response();
    }) as typeof fetch;
    const f = tracked(abandoned);
    await client().settle();
    const controller = new AbortController();
    const pending = f(OPENAI_URL, { ...chatInit(), signal: controller.signal });
    await sleep(20);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    const refusedConnection = (() =>
      Promise.reject(
        Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }),
      )) as typeof fetch;
    await expect(tracked(refusedConnection)(OPENAI_URL, chatInit())).rejects.toThrow('fetch failed');
    await shutdown({ timeoutMs: 2000 });
    expect(ingest.settledNanos()).toBe(WORST_NANOS);
  });

  it('sends the worst cases in flight (reservedUsd) and of waiting calls (needUsd)', async () => {
    ingest.leaseCapUsd = 10;
    ingest.sliceUsd = 0.001; // smaller than one worst case: every call asks room for itself
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const provider = costlyProvider();
    const slow = (async (...a: Parameters<typeof fetch>) => {
      await gate;
      return provider.fetch(...a);
    }) as typeof fetch;
    const f = tracked(slow);
    await client().settle();
    const first = f(OPENAI_URL, chatInit());
    await sleep(50);
    const second = f(OPENAI_URL, chatInit());
    await sleep(50);
    release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    const leases = ingest.leaseCalls.filter((c) => c.route === 'lease');
    const needs = leases.map((c) => Math.round((c.body.needUsd ?? 0) * 1e9));
    // a worst case: at least the output bound alone, at most the cheap bound (the precise one is used
    // when the slice is small)
    const inBounds = (n: number): boolean => n > OUTPUT_NANOS && n <= WORST_NANOS + 1;
    expect(needs.some(inBounds)).toBe(true);
    // the second call's request listed the first one, still in flight, as reserved
    expect(leases.some((c) => inBounds(Math.round((c.body.reservedUsd ?? 0) * 1e9)))).toBe(true);
  });

  it('renews before the slice runs out, reporting consumption and a spend rate', async () => {
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
    expect(renewals.length).toBeGreaterThanOrEqual(4); // a $0.02 slice holds two worst cases
    const reported = renewals.reduce((sum, c) => sum + Math.round(c.body.consumedUsd * 1e9), 0);
    expect(reported % CALL_NANOS).toBe(0);
    expect(reported).toBeGreaterThan(0);
    expect(renewals.some((c) => typeof c.body.spendRateUsdPerMin === 'number')).toBe(true);
    expect(holderId).toMatch(/^sdk-[0-9a-f-]{36}$/);
    // Every call was reserved on the capped slice, so its event says a lease counts it.
    await flush();
    const events = ingest.events();
    expect(events.length).toBe(12);
    for (const e of events) expect(e).toMatchObject({ leased: true });
  });

  it('refuses every call whose worst case cannot fit, without contacting the provider', async () => {
    ingest.leaseCapUsd = (OUTPUT_NANOS - 1) / 1e9; // less than the output bound alone
    ingest.sliceUsd = 0.02;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    const refused = await f(OPENAI_URL, chatInit());
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { type: 'budget_exceeded', code: 'hard_cap' } });
    // a call whose own bound is lower fits
    const small = await f(OPENAI_URL, chatInit('gpt-4o-mini', { max_tokens: 100 }));
    expect(small.status).toBe(200);
    expect(provider.calls).toBe(1);
  }, 15_000);

  it('a call that settled spend leaves no room for is refused at once, not after waiting for room to come back', async () => {
    ingest.leaseCapUsd = (OUTPUT_NANOS - 1) / 1e9; // less than the output bound alone: not retryable
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    const started = Date.now();
    const refused = await f(OPENAI_URL, chatInit());
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    // The fit wait (3 s of asking again) is for room held by others, which can come back.
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(provider.calls).toBe(0);
  });

  it('a small call is not held back behind a large one that waits for room held by another holder', async () => {
    ingest.leaseCapUsd = 0.05;
    ingest.sliceUsd = 0.045;
    // Another process holds most of the room in its slice ($0.005 is left): the large call waits for it
    // (retryable), the small one fits what is left.
    await anotherHolderTakesASlice();
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    const large = f(OPENAI_URL, chatInit()); // worst case ~$0.0099: more than the $0.005 left
    await sleep(50);
    const started = Date.now();
    const small = await f(OPENAI_URL, chatInit('gpt-4o-mini', { max_tokens: 20 }));
    expect(small.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_500);
    const refused = await large;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-should-retry')).toBe('true');
  }, 15_000);

  it('a refusal while the room is only held by another holder is the retryable budget_busy, as the relay says it', async () => {
    ingest.leaseCapUsd = 0.05;
    ingest.sliceUsd = 0.045;
    // Another process of the organization holds most of what is left in its slice.
    await anotherHolderTakesASlice();
    const provider = costlyProvider();
    const refused = await tracked(provider.fetch)(OPENAI_URL, chatInit());
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-should-retry')).toBe('true');
    expect(refused.headers.get('x-spendguard-blocked')).toBe('budget_busy');
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(ingest.ttlSeconds);
    expect(await refused.json()).toMatchObject({ error: { type: 'budget_busy', code: 'budget_busy' } });
    expect(provider.calls).toBe(0);
  }, 15_000);

  it('refuses a call billed after it returns (batch, background) under a cap, as the relay does', async () => {
    ingest.leaseCapUsd = 10;
    ingest.sliceUsd = 1;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    const background = await f('https://api.openai.com/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', input: 'hi', background: true }),
    });
    expect(background.status).toBe(403);
    expect(background.headers.get('retry-after')).toBeNull();
    expect(await background.json()).toMatchObject({
      error: { type: 'permission_error', code: 'deferred_billing_refused' },
    });
    const batch = await f('https://api.openai.com/v1/batches', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        input_file_id: 'file-1',
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      }),
    });
    expect(batch.status).toBe(403);
    expect(provider.calls).toBe(0);
    // an ordinary call still goes
    expect((await call(f)).status).toBe(200);
    expect(provider.calls).toBe(1);
  }, 15_000);

  it('bounds a background call like any other when the lease answer says the organization allows it', async () => {
    ingest.leaseCapUsd = 10;
    ingest.sliceUsd = 1;
    ingest.allowDeferredBilling = true;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    const background = await f('https://api.openai.com/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', input: 'hi', max_output_tokens: 16, background: true }),
    });
    expect(background.status).toBe(200);
    expect(provider.calls).toBe(1);
  });

  it('no hard cap (capped: false): every call is admitted and counted once, through its event', async () => {
    ingest.leaseCapUsd = null;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    for (let i = 0; i < 5; i++) expect((await call(f)).status).toBe(200);
    expect(client().stats().lease).toMatchObject({ state: 'uncapped' });
    await shutdown({ timeoutMs: 2000 });
    // No lease reserved them, so the lease reports none of them and no event says `leased`: the server's
    // pipeline counts them (one accounting, issue 18.2).
    expect(ingest.settledNanos()).toBe(0);
    const events = ingest.events();
    expect(events).toHaveLength(5);
    for (const e of events) expect(e).not.toHaveProperty('leased');
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

describe('shutdown', () => {
  it('lets a lease request in flight land before the release: no slice is left granted to a holder that left', async () => {
    ingest.leaseCapUsd = 10;
    ingest.sliceUsd = 0.001; // smaller than one worst case: the call asks room for itself
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    const holder = client().stats().lease!.holderId;
    ingest.leaseDelayMs = 300;
    const call = f(OPENAI_URL, chatInit()); // waits for the slow answer to its request for room
    await sleep(50);
    await shutdown({ timeoutMs: 3000 });
    await call;
    await sleep(350); // any answer still due has been computed by now
    expect(ingest.holders()).not.toContain(holder);
    const routes = ingest.leaseCalls.map((c) => c.route);
    expect(routes.at(-1)).toBe('release');
  });
});

describe('a key suspended before the process started', () => {
  it.each([
    ['no hard cap', null],
    ['a hard cap', 1],
  ])(
    '%s: the very first call, made at once, waits for the first lease answer and meets the kill it brings',
    async (_name, cap) => {
      ingest.leaseCapUsd = cap;
      ingest.enforcement = true;
      ingest.flags = [ingest.flag('key')];
      const provider = costlyProvider();
      const f = tracked(provider.fetch);
      // No settle: a fresh process (a cold Lambda container) calls before anything has come back.
      const first = await f(OPENAI_URL, chatInit());
      expect(first.status).toBe(429);
      expect(((await first.json()) as { error: { code: string } }).error.code).toBe('key_suspended');
      expect((await f(OPENAI_URL, chatInit())).status).toBe(429);
      expect(provider.calls).toBe(0);
      // A refused call holds nothing: the report that follows lists no reservation in flight.
      expect(client().stats().lease).toMatchObject({ reservedUsd: 0 });
    },
  );
});

describe('fail-open (spec Law 4)', () => {
  it.each([
    ['unreachable', 'http://127.0.0.1:9', 0, 'unreachable'],
    ['answering 503', '', 503, 'unreachable'],
    ['without lease routes (404)', '', 404, 'unsupported'],
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

describe('contention (decision 6: never a failure)', () => {
  it('a busy lease item (503 with Retry-After) is asked again: the call waits, then goes against a slice', async () => {
    ingest.leaseCapUsd = 1;
    ingest.leaseBusyAnswers = 3;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    const r = await f(OPENAI_URL, chatInit());
    expect(r.status).toBe(200);
    expect(client().stats()).toMatchObject({ failOpen: 0, lease: { state: 'capped' } });
    expect(ingest.leaseBusyAnswers).toBe(0);
  });
});

describe('fail-closed on identity (decision 6)', () => {
  it.each([401, 403])('the lease route refusing the key (%i): every call is refused', async (status) => {
    ingest.leaseStatus = status;
    ingest.leaseCapUsd = 1;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    for (let i = 0; i < 3; i++) {
      const r = await f(OPENAI_URL, chatInit());
      expect(r.status).toBe(429);
      expect(r.headers.get('x-should-retry')).toBe('false');
      expect(await r.json()).toMatchObject({ error: { code: 'budget_lease_refused' } });
    }
    expect(provider.calls).toBe(0);
    expect(client().stats().lease).toMatchObject({ state: 'refused' });
  });
});

describe('Lambda invocations', () => {
  it('keep the slice across warm invocations and report each one’s spend at its end', async () => {
    ingest.leaseCapUsd = 1;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    const handler = withSpendguard(async () => {
      await call(f);
      await call(f);
      return 'done';
    });
    const context = { getRemainingTimeInMillis: () => 10_000 };
    await expect(handler({}, context)).resolves.toBe('done');
    expect(ingest.settledNanos()).toBe(2 * CALL_NANOS); // reported before the invocation returned
    expect(ingest.leaseCalls.some((c) => c.route === 'release')).toBe(false);
    const lease = client().stats().lease!;
    expect(lease.state).toBe('capped');
    expect(lease.grantedUsd).toBeGreaterThan(0);
    // The next warm invocation's first call draws on the slice kept: no lease request before it.
    const before = ingest.leaseCalls.length;
    await expect(handler({}, context)).resolves.toBe('done');
    const during = ingest.leaseCalls.slice(before);
    expect(during.every((c) => c.route === 'lease' && c.body.consumedUsd > 0)).toBe(true);
    expect(ingest.settledNanos()).toBe(4 * CALL_NANOS);
  });

  it('shutdown returns the slice with the final report', async () => {
    ingest.leaseCapUsd = 1;
    const provider = costlyProvider();
    const f = tracked(provider.fetch);
    await client().settle();
    await call(f);
    await shutdown({ timeoutMs: 2000 });
    expect(ingest.leaseCalls.some((c) => c.route === 'release')).toBe(true);
    expect(ingest.settledNanos()).toBe(CALL_NANOS);
  });
});

describe('BudgetLease (state machine)', () => {
  const T0 = Date.UTC(2026, 10, 24);

  /** The server's grant (core/leases grantLease, as the fake ingest models it), in nano-USD. */
  function server(capNanos: number, sliceNanos: number) {
    let settled = 0;
    const slices = new Map<string, number>();
    return {
      settled: () => settled,
      serve(req: LeaseRequest, now: number): unknown {
        settled += Math.round(req.consumedUsd * 1e9);
        slices.delete(req.holderId);
        const left = capNanos - settled - [...slices.values()].reduce((a, b) => a + b, 0);
        const reserved = Math.round((req.reservedUsd ?? 0) * 1e9);
        const need = Math.round((req.needUsd ?? 0) * 1e9);
        const spare = left - reserved - need;
        const exhausted = need > 0 ? spare < 0 : left - reserved <= 0;
        const slice = spare < 0 ? reserved : reserved + need + Math.min(sliceNanos, spare);
        if (slice > 0) slices.set(req.holderId, slice);
        return {
          capped: true,
          exhausted,
          grantedUsd: slice / 1e9,
          ttlSeconds: 30,
          retryAfterSeconds: exhausted ? 3600 : null,
          now,
        };
      },
    };
  }

  it('property: holders sharing a cap never commit past it when calls cost at most their worst case', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('call' as const),
        holder: fc.nat(3),
        worst: fc.integer({ min: 1, max: 30_000_000 }),
        share: fc.double({ min: 0, max: 1, noNaN: true }),
      }),
      fc.record({ kind: fc.constant('settle' as const), holder: fc.nat(3), pick: fc.nat(10) }),
      fc.record({ kind: fc.constant('renew' as const), holder: fc.nat(3) }),
      fc.record({ kind: fc.constant('answer' as const), holder: fc.nat(3) }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 1, max: 50_000_000 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(op, { minLength: 50, maxLength: 300 }),
        (capNanos, sliceNanos, holderCount, ops) => {
          const api = server(capNanos, sliceNanos);
          let now = T0;
          const holders = Array.from({ length: holderCount }, (_, i) => new BudgetLease(`sdk-${i}`));
          const pending: Array<LeaseRequest | null> = holders.map(() => null);
          const inflight: Array<Array<{ reserved: number; actual: number }>> = holders.map(() => []);
          let committed = 0; // actual cost of every call admitted (the provider bills it)
          for (const o of ops) {
            now += 10; // well inside the 30 s lifetime
            const i = o.holder % holderCount;
            const h = holders[i]!;
            if (o.kind === 'call') {
              const d = h.admit(o.worst, now);
              if (d.kind === 'admitted') {
                const actual = Math.floor(o.worst * o.share);
                committed += actual;
                inflight[i]!.push({ reserved: d.reservedNanos, actual });
              } else if (d.kind === 'wait' && !h.waiting.includes(o.worst)) h.waiting.push(o.worst);
            } else if (o.kind === 'settle') {
              const list = inflight[i]!;
              if (list.length > 0) {
                const [c] = list.splice(o.pick % list.length, 1);
                h.settle(c!.reserved, c!.actual);
              }
            } else if (o.kind === 'renew') {
              if (pending[i] === null) pending[i] = h.begin(now);
            } else {
              const req = pending[i];
              if (req !== null && req !== undefined) {
                h.answered(readLeaseAnswer(api.serve(req, now), now)!, now);
                h.waiting.length = 0;
                pending[i] = null;
              }
            }
          }
          expect(committed).toBeLessThanOrEqual(capNanos);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a lapsed slice admits nothing until a new answer; a call waits for it', () => {
    const lease = new BudgetLease('sdk-x');
    lease.begin(T0);
    lease.answered(
      { capped: true, exhausted: false, grantedNanos: 1000, ttlMs: 30_000, retryAfterSeconds: null },
      T0,
    );
    expect(lease.admit(400, T0 + 1)).toEqual({ kind: 'admitted', reservedNanos: 400 });
    expect(lease.admit(700, T0 + 2)).toEqual({ kind: 'wait' }); // 600 left
    expect(lease.admit(100, T0 + 29_500)).toEqual({ kind: 'wait' }); // within the expiry guard
    expect(lease.due(T0 + 29_500, true)).toBe(true);
  });

  it('a failed renewal keeps a live slice; once it lapses, calls wait (a known cap never fails open)', () => {
    const lease = new BudgetLease('sdk-x');
    lease.begin(T0);
    lease.answered(
      { capped: true, exhausted: false, grantedNanos: 1000, ttlMs: 30_000, retryAfterSeconds: null },
      T0,
    );
    expect(lease.settle(0, 600)).toBe(false); // unreserved: it uses the slice, the pipeline counts it
    lease.begin(T0 + 1);
    lease.failed('unreachable', T0 + 2);
    expect(lease.mode).toBe('capped');
    expect(lease.admit(300, T0 + 3)).toEqual({ kind: 'admitted', reservedNanos: 300 });
    lease.settle(300, 300);
    lease.begin(T0 + 31_000);
    lease.failed('unreachable', T0 + 31_001);
    expect(lease.mode).toBe('capped');
    expect(lease.admit(50, T0 + 31_002)).toEqual({ kind: 'wait' });
    expect(lease.failOpenCalls).toBe(0);
    // The unreported consumption of the reserved call is kept for the next report.
    expect(lease.release().consumedUsd).toBeCloseTo(300 / 1e9, 15);
  });

  it('fails open when the backend fails before any answer said a cap applies', () => {
    const lease = new BudgetLease('sdk-x');
    lease.begin(T0);
    lease.failed('unreachable', T0 + 1);
    expect(lease.admit(5_000, T0 + 2)).toEqual({ kind: 'admitted', reservedNanos: 0 });
    expect(lease.failOpenCalls).toBe(1);
  });

  it('the key refused: calls refused until the next attempt, then it asks again', () => {
    const lease = new BudgetLease('sdk-x');
    lease.begin(T0);
    lease.failed('refused', T0);
    expect(lease.admit(1, T0 + 1)).toMatchObject({ kind: 'refused' });
    expect(lease.admit(1, T0 + 60_000)).toEqual({ kind: 'wait' });
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
      retryable: false,
      allowDeferredBilling: false,
    });
    // `retryable` only with an exhausted answer, and only a literal true.
    const busy = { capped: true, exhausted: true, retryable: true, retryAfterSeconds: 5 };
    expect(readLeaseAnswer(busy, T0)?.retryable).toBe(true);
    expect(readLeaseAnswer({ ...busy, exhausted: false }, T0)?.retryable).toBe(false);
    expect(readLeaseAnswer({ ...busy, retryable: 'true' }, T0)?.retryable).toBe(false);
    expect(readLeaseAnswer({ capped: true, grantedUsd: Number.POSITIVE_INFINITY }, T0)?.grantedNanos).toBe(0);
    // only a literal true allows deferred billing
    expect(readLeaseAnswer({ capped: true, allowDeferredBilling: 'true' }, T0)?.allowDeferredBilling).toBe(
      false,
    );
    expect(readLeaseAnswer({ capped: true, allowDeferredBilling: true }, T0)?.allowDeferredBilling).toBe(
      true,
    );
  });
});
