/**
 * The client budget (spec 1.4: block / warn / log) and the server kill flag (SUSPENDED → blocked
 * locally too, fail-open on errors).
 */
import fc from 'fast-check';
import OpenAI from 'openai';
import { flush, shutdown, wrapFetch } from '../src';
import { normalizeBudget, SpendCounter } from '../src/budget';
import type { Client } from '../src/client';
import { sdkState } from '../src/tracked-fetch';
import { startFakeIngest, TEST_API_KEY, type FakeIngest } from './helpers/fake-ingest';
import { chatInit, inProcessProvider, OPENAI_URL } from './helpers/in-process';
import { expectValidClientEvents } from './helpers/schema';

let ingest: FakeIngest;

beforeAll(async () => {
  ingest = await startFakeIngest();
});
afterAll(() => ingest.close());
beforeEach(() => {
  ingest.batches.length = 0;
  ingest.budget = { status: 'ok', flag: null };
  ingest.budgetStatus = 200;
});
afterEach(async () => {
  await shutdown({ timeoutMs: 500 });
  jest.restoreAllMocks();
});

function onlyClient(): Client {
  return [...sdkState().clients.values()][0] as Client;
}

/** gpt-4o-mini, 21 prompt + 12 completion tokens: 10,350 nano-USD per call. */
const CALL_NANOS = 10_350;

async function call(f: typeof fetch): Promise<Response> {
  const response = await f(OPENAI_URL, chatInit());
  await response.text();
  await onlyClient().settle();
  return response;
}

describe('budget: block', () => {
  it('answers a synthetic 429 once the daily limit is reached, without calling the provider', async () => {
    const provider = inProcessProvider();
    const f = wrapFetch(provider.fetch, {
      apiKey: TEST_API_KEY,
      endpoint: ingest.url,
      serverFlags: false,
      budget: { dailyLimitUsd: (2 * CALL_NANOS) / 1e9, action: 'block' },
    }) as typeof fetch;
    expect((await call(f)).status).toBe(200);
    expect((await call(f)).status).toBe(200);
    expect(onlyClient().spentNanos().dayNanos).toBe(2 * CALL_NANOS);
    const blocked = await f(OPENAI_URL, chatInit());
    expect(provider.calls).toHaveLength(2);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('x-should-retry')).toBe('false');
    const nextMidnight = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000;
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(Math.abs(retryAfter - (nextMidnight - Date.now()) / 1000)).toBeLessThan(5);
    const body = (await blocked.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'budget_exceeded', code: 'client_budget' });
    expect(body.error.message).toContain('daily');
    expect(onlyClient().stats().blocked).toBe(1);
  });

  it('is surfaced by the official OpenAI client as a RateLimitError that is not retried', async () => {
    const provider = inProcessProvider();
    const openai = new OpenAI({
      apiKey: 'sk-test',
      maxRetries: 2,
      fetch: wrapFetch(provider.fetch, {
        apiKey: TEST_API_KEY,
        serverFlags: false,
        budget: { monthlyLimitUsd: CALL_NANOS / 1e9, action: 'block' },
      }),
    });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await onlyClient().settle();
    const error = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('client_budget');
    expect(provider.calls).toHaveLength(1);
  });
});

/**
 * A provider whose answers cost what the test says: gpt-4o-mini at $0.15 / $0.60 per million tokens is
 * exactly 150 nano-USD per prompt token and 600 per completion token.
 */
function pricedProvider(next: () => { prompt: number; completion: number }): {
  fetch: typeof fetch;
  calls: number;
} {
  const state = {
    calls: 0,
    fetch: (async () => {
      state.calls++;
      const { prompt, completion } = next();
      const body = {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
        service_tier: 'default',
      };
      return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch,
  };
  return state;
}

describe('budget: block is exact for sequential calls', () => {
  it('a $0.01 daily cap with $0.006 calls lets exactly two calls reach the provider', async () => {
    // 40,000 prompt tokens × 150 nano-USD = $0.006
    const provider = pricedProvider(() => ({ prompt: 40_000, completion: 0 }));
    const f = wrapFetch(provider.fetch, {
      apiKey: TEST_API_KEY,
      serverFlags: false,
      serverBudget: false,
      budget: { dailyLimitUsd: 0.01, action: 'block' },
    }) as typeof fetch;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      // No settle() between calls: the next call starts as soon as the body is read.
      const response = await f(OPENAI_URL, chatInit());
      statuses.push(response.status);
      await response.json();
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect(provider.calls).toBe(2);
    expect(onlyClient().spentNanos().dayNanos).toBe(12_000_000);
  });

  it('streams count too: the cost is known when the last chunk is read', async () => {
    const provider = inProcessProvider();
    const f = wrapFetch(provider.fetch, {
      apiKey: TEST_API_KEY,
      serverFlags: false,
      serverBudget: false,
      budget: { dailyLimitUsd: CALL_NANOS / 1e9, action: 'block' },
    }) as typeof fetch;
    const streamInit = chatInit('gpt-4o-mini', { stream: true, stream_options: { include_usage: true } });
    const first = await f(OPENAI_URL, streamInit);
    await first.text();
    expect((await f(OPENAI_URL, streamInit)).status).toBe(429);
    expect(provider.calls).toHaveLength(1);
  });

  it('property: the provider is never called once recorded spend ≥ cap, and no call is refused below it', async () => {
    const call = fc.record({
      prompt: fc.integer({ min: 0, max: 200_000 }),
      completion: fc.integer({ min: 0, max: 50_000 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60_000_000 }),
        fc.array(call, { minLength: 1, maxLength: 12 }),
        async (capNanos, costs) => {
          let i = 0;
          const provider = pricedProvider(() => costs[i] ?? { prompt: 0, completion: 0 });
          const f = wrapFetch(provider.fetch, {
            apiKey: TEST_API_KEY,
            serverFlags: false,
            serverBudget: false,
            budget: { dailyLimitUsd: capNanos / 1e9, action: 'block' },
          }) as typeof fetch;
          let spent = 0; // computed here from the token counts, not read from the SDK
          try {
            for (i = 0; i < costs.length; i++) {
              const before = provider.calls;
              const response = await f(OPENAI_URL, chatInit());
              await response.text();
              if (spent >= capNanos) {
                expect(response.status).toBe(429);
                expect(provider.calls).toBe(before);
              } else {
                expect(response.status).toBe(200);
                expect(provider.calls).toBe(before + 1);
                spent += costs[i]!.prompt * 150 + costs[i]!.completion * 600;
              }
            }
            expect(onlyClient().spentNanos().dayNanos).toBe(spent);
          } finally {
            await shutdown({ timeoutMs: 0 });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('budget: warn and log', () => {
  it('warn: calls proceed and one budget_warning event goes to the ledger per period', async () => {
    const provider = inProcessProvider();
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const f = wrapFetch(provider.fetch, {
      apiKey: TEST_API_KEY,
      endpoint: ingest.url,
      serverFlags: false,
      budget: { dailyLimitUsd: CALL_NANOS / 1e9, action: 'warn' },
    }) as typeof fetch;
    for (let i = 0; i < 4; i++) expect((await call(f)).status).toBe(200);
    expect(provider.calls).toHaveLength(4);
    await flush();
    const events = ingest.events();
    expect(events.filter((e) => e.kind === 'budget_warning')).toHaveLength(1);
    expect(events.filter((e) => e.kind === 'call')).toHaveLength(4);
    expect(events.find((e) => e.kind === 'budget_warning')).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini',
    });
    expectValidClientEvents(ingest.batches.map((b) => b.body));
    expect(warn).not.toHaveBeenCalled(); // debug is off: nothing is logged
  });

  it('log: calls proceed, nothing is sent, the breach is logged only with debug', async () => {
    const provider = inProcessProvider();
    const debug = jest.spyOn(console, 'debug').mockImplementation(() => undefined);
    const f = wrapFetch(provider.fetch, {
      apiKey: TEST_API_KEY,
      endpoint: ingest.url,
      serverFlags: false,
      debug: true,
      budget: { dailyLimitUsd: CALL_NANOS / 1e9, action: 'log' },
    }) as typeof fetch;
    for (let i = 0; i < 3; i++) expect((await call(f)).status).toBe(200);
    await flush();
    expect(ingest.events().every((e) => e.kind === 'call')).toBe(true);
    const lines = debug.mock.calls.map((c) => String(c[0]));
    expect(lines.filter((l) => l.includes('daily budget reached'))).toHaveLength(1);
    expect(lines.every((l) => l.startsWith('[spendguard]'))).toBe(true);
  });

  it('no budget: Auto Kill is inactive', async () => {
    const provider = inProcessProvider();
    const f = wrapFetch(provider.fetch, { apiKey: TEST_API_KEY, serverFlags: false }) as typeof fetch;
    for (let i = 0; i < 3; i++) expect((await call(f)).status).toBe(200);
    expect(onlyClient().stats().blocked).toBe(0);
  });
});

describe('server kill flag', () => {
  it('blocks locally while the organization is SUSPENDED, and resumes when the flag is cleared', async () => {
    const provider = inProcessProvider();
    const expiresAt = new Date(Date.now() + 2 * 3600_000).toISOString();
    ingest.budget = {
      status: 'suspended',
      flag: { state: 'SUSPENDED', expiresAt, triggerType: 'token_loop_identical' },
    };
    const f = wrapFetch(provider.fetch, { apiKey: TEST_API_KEY, endpoint: ingest.url }) as typeof fetch;
    await onlyClient().refreshServerStatus();
    const blocked = await f(OPENAI_URL, chatInit());
    expect(blocked.status).toBe(429);
    expect(provider.calls).toHaveLength(0);
    expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe('org_suspended');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(7000);
    expect(blocked.headers.get('x-should-retry')).toBe('false');
    expect(onlyClient().stats().serverSuspended).toBe(true);

    ingest.budget = { status: 'ok', flag: null };
    await onlyClient().refreshServerStatus();
    expect((await f(OPENAI_URL, chatInit())).status).toBe(200);
  });

  it.each([
    ['a 500', 500],
    ['a 401', 401],
  ])('fails open on %s from GET /v1/budget', async (_name, status) => {
    const provider = inProcessProvider();
    ingest.budgetStatus = status;
    ingest.budget = { status: 'suspended', flag: { state: 'SUSPENDED' } };
    const f = wrapFetch(provider.fetch, { apiKey: TEST_API_KEY, endpoint: ingest.url }) as typeof fetch;
    await onlyClient().refreshServerStatus();
    expect((await f(OPENAI_URL, chatInit())).status).toBe(200);
  });

  it('fails open when the backend is unreachable', async () => {
    const provider = inProcessProvider();
    const f = wrapFetch(provider.fetch, {
      apiKey: TEST_API_KEY,
      endpoint: 'http://127.0.0.1:9',
    }) as typeof fetch;
    await onlyClient().refreshServerStatus();
    expect((await f(OPENAI_URL, chatInit())).status).toBe(200);
  });

  it('never delays a call: the first calls go through while the status is being fetched', async () => {
    const provider = inProcessProvider();
    ingest.budget = { status: 'suspended', flag: { state: 'SUSPENDED' } };
    const f = wrapFetch(provider.fetch, { apiKey: TEST_API_KEY, endpoint: ingest.url }) as typeof fetch;
    const start = performance.now();
    const response = await f(OPENAI_URL, chatInit());
    expect(performance.now() - start).toBeLessThan(200);
    expect([200, 429]).toContain(response.status);
  });
});

describe('SpendCounter', () => {
  it('counts per UTC day and month, and resets at each boundary', () => {
    const counter = new SpendCounter();
    const budget = normalizeBudget({ dailyLimitUsd: 1, monthlyLimitUsd: 2, action: 'block' }, [])!;
    const jan31 = Date.UTC(2026, 0, 31, 23, 0);
    counter.add(1_000_000_000, jan31);
    expect(counter.breach(budget, jan31)).toMatchObject({ period: 'daily', resetAtMs: Date.UTC(2026, 1, 1) });
    const feb1 = Date.UTC(2026, 1, 1, 0, 0, 1);
    expect(counter.breach(budget, feb1)).toBeNull();
    expect(counter.spent(feb1)).toEqual({ dayNanos: 0, monthNanos: 0 });
    counter.add(900_000_000, feb1);
    counter.add(900_000_000, Date.UTC(2026, 1, 2));
    counter.add(300_000_000, Date.UTC(2026, 1, 3));
    expect(counter.breach(budget, Date.UTC(2026, 1, 3, 1))).toMatchObject({
      period: 'monthly',
      resetAtMs: Date.UTC(2026, 2, 1),
    });
  });

  it('ignores invalid limits and reports them', () => {
    const problems: string[] = [];
    expect(
      normalizeBudget({ dailyLimitUsd: -1, monthlyLimitUsd: Number.NaN, action: 'block' }, problems),
    ).toBeNull();
    expect(problems).toHaveLength(2);
    expect(normalizeBudget({ dailyLimitUsd: 5, action: 'explode' as 'block' }, problems)?.action).toBe(
      'block',
    );
  });
});
