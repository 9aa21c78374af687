/**
 * The relay's admission hook through the local proxy, lease items in memory: the 429 contract, settlement
 * with the actual cost (answered, cut, failed calls), and failing open when the lease store is down.
 * Prices are OpenAI's published gpt-4o-mini rates: $0.15 / MTok input (150 nanos per token), $0.60 / MTok
 * output (600 nanos per token).
 */
import http from 'node:http';
import { startProxyHarness, TEST_ORG, type ProxyHarness } from '../../local/proxy/test-support';
import { mockPromptTokens } from '../../local/mock-providers/tokens';
import { BudgetLeases } from '../shared/budget-leases';
import { LeaseAdmission } from './budget-admission';
import { MemoryBudgetLeaseStore, type BudgetLeaseStore } from '../shared/stores/budget-lease-store';
import type { OrgConfigStore } from '../shared/stores/org-config-store';

const IN_NANOS = 150;
const OUT_NANOS = 600;

function configWith(dailyLimitUsd: number | undefined): OrgConfigStore {
  return {
    get: () =>
      Promise.resolve({
        budget: dailyLimitUsd === undefined ? {} : { dailyLimitUsd, action: 'block' },
        policy: {},
        updatedAt: '2026-11-23T00:00:00.000Z',
      }),
    put: () => Promise.resolve(),
  };
}

async function harness(store: BudgetLeaseStore, dailyLimitUsd: number | undefined): Promise<ProxyHarness> {
  const budgetLeases = new BudgetLeases({ store, config: configWith(dailyLimitUsd), now: Date.now });
  return startProxyHarness({ proxy: { budgetLeases } });
}

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function post(h: ProxyHarness, body: unknown, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${h.proxy.url}/openai/v1/chat/completions`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'service-api-key': h.apiKey, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const CHAT = {
  model: 'gpt-4o-mini',
  max_tokens: 20,
  messages: [{ role: 'user', content: 'Count the sheep in this field, please, one by one.' }],
};

/** CHAT as the i-th of distinct tasks: the same request 4 times in a row is a loop, refused in line (19.6). */
const task = (i: number) => ({
  ...CHAT,
  messages: [{ role: 'user', content: `${CHAT.messages[0]!.content} Field ${i}.` }],
});

/** CHAT with `maxTokens` as the relay's admission sees it (no proxy in between). */
const callWith = (maxTokens: number) => ({
  provider: 'openai',
  flavor: 'openai' as const,
  model: 'gpt-4o-mini',
  body: Buffer.from(JSON.stringify({ ...CHAT, max_tokens: maxTokens })),
  atMs: Date.now(),
});

describe('relay admission', () => {
  let h: ProxyHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refuses a call whose worst case does not fit with the budget 429, never contacting the provider', async () => {
    h = await harness(new MemoryBudgetLeaseStore(), 0.000001);
    const res = await post(h, CHAT);
    expect(res.status).toBe(429);
    expect(res.headers['x-should-retry']).toBe('false');
    const retryAfter = Number(res.headers['retry-after']);
    const toMidnight = Math.ceil((Date.UTC(...utcTomorrow()) - Date.now()) / 1000);
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - toMidnight)).toBeLessThanOrEqual(2);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        message: expect.stringContaining('daily hard cap ($0.000001)'),
        type: 'budget_exceeded',
        code: 'budget_daily_hard',
      },
    });
    expect(h.mock.requests()).toHaveLength(0);
    expect(h.sink.envelopes).toHaveLength(0);
  });

  it('settles an answered call at its actual cost and keeps nothing reserved', async () => {
    h = await harness(new MemoryBudgetLeaseStore(), 10);
    const res = await post(h, CHAT);
    expect(res.status).toBe(200);
    await h.proxy.idle();
    const holder = h.proxy.admission!.holderOf(TEST_ORG)!;
    expect(holder.reservations).toBe(0);
    expect(holder.reservedNanos).toBe(0);
    // the mock bills ceil(characters / 4) prompt tokens and exactly max_tokens completion tokens
    expect(holder.unreportedNanos).toBe(mockPromptTokens(CHAT) * IN_NANOS + 20 * OUT_NANOS);
  });

  it('reserves and settles at the organization own rates, the unit the ledger counts in (issue 18.2)', async () => {
    // A negotiated 40 % discount on OpenAI: the pipeline prices this call at 0.6 × list.
    const pricingRates = {
      get: () =>
        Promise.resolve({ rates: { providers: { openai: 0.6 } }, updatedAt: '2026-11-25T00:00:00Z' }),
      put: () => Promise.resolve(),
    };
    const budgetLeases = new BudgetLeases({
      store: new MemoryBudgetLeaseStore(),
      config: configWith(10),
      now: Date.now,
    });
    h = await startProxyHarness({ proxy: { budgetLeases, pricingRates } });
    const res = await post(h, CHAT);
    expect(res.status).toBe(200);
    await h.proxy.idle();
    const holder = h.proxy.admission!.holderOf(TEST_ORG)!;
    expect(holder.reservations).toBe(0);
    // 150 × 0.6 = 90 nanos per input token, 600 × 0.6 = 360 per output token
    expect(holder.unreportedNanos).toBe(mockPromptTokens(CHAT) * 90 + 20 * 360);
  });

  it('reserves at the organization rates: a call that fits only at its discounted price is admitted', async () => {
    // The call's worst case is ≥ 20 output tokens × 600 = 12,000 nano-USD at list, over a 10,000 cap;
    // at 0.1 × list it is a tenth of that.
    const discounted = {
      get: () => Promise.resolve({ rates: { multiplier: 0.1 }, updatedAt: '2026-11-25T00:00:00Z' }),
      put: () => Promise.resolve(),
    };
    const leasesFor = () =>
      new BudgetLeases({ store: new MemoryBudgetLeaseStore(), config: configWith(0.00001), now: Date.now });
    h = await startProxyHarness({ proxy: { budgetLeases: leasesFor() } });
    expect((await post(h, CHAT)).status).toBe(429);
    await h.close();
    h = await startProxyHarness({ proxy: { budgetLeases: leasesFor(), pricingRates: discounted } });
    expect((await post(h, CHAT)).status).toBe(200);
  });

  it('settles a provider error at zero (providers do not bill errors)', async () => {
    h = await harness(new MemoryBudgetLeaseStore(), 10);
    const res = await post(h, CHAT, { 'x-mock-status': '500' });
    expect(res.status).toBe(500);
    await h.proxy.idle();
    const holder = h.proxy.admission!.holderOf(TEST_ORG)!;
    expect(holder.reservations).toBe(0);
    expect(holder.unreportedNanos).toBe(0);
  });

  it('settles a stream the client cut at its reservation: its usage is only an estimate (issue 18.8)', async () => {
    h = await harness(new MemoryBudgetLeaseStore(), 10);
    const controller = new AbortController();
    const res = await fetch(`${h.proxy.url}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'service-api-key': h.apiKey, 'x-mock-chunks': '200', 'x-mock-chunk-delay-ms': '10' },
      body: JSON.stringify({ ...CHAT, max_tokens: 1000, stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let received = 0;
    while (received < 1500) received += (await reader.read()).value?.byteLength ?? 0;
    expect(h.proxy.admission!.holderOf(TEST_ORG)!.reservations).toBe(1);
    const worstCase = h.proxy.admission!.holderOf(TEST_ORG)!.reservedNanos;
    controller.abort();
    await reader.cancel().catch(() => undefined);
    await h.proxy.idle();
    const holder = h.proxy.admission!.holderOf(TEST_ORG)!;
    expect(holder.reservations).toBe(0);
    expect(holder.reservedNanos).toBe(0);
    // the whole worst case: at least the prompt and the 1,000-token output bound
    expect(holder.unreportedNanos).toBe(worstCase);
    expect(holder.unreportedNanos).toBeGreaterThanOrEqual(
      mockPromptTokens(CHAT) * IN_NANOS + 1000 * OUT_NANOS,
    );
  });

  it('answers a retryable 429 when the lease store is down under a hard cap, never a call without a reservation', async () => {
    const down: BudgetLeaseStore = {
      read: () => Promise.reject(new Error('ECONNREFUSED')),
      apply: () => Promise.reject(new Error('ECONNREFUSED')),
      fold: () => Promise.reject(new Error('ECONNREFUSED')),
    };
    h = await harness(down, 0.5);
    const a = await post(h, CHAT);
    const b = await post(h, CHAT);
    expect([a.status, b.status]).toEqual([429, 429]);
    expect(a.headers['x-should-retry']).toBe('true');
    expect(Number(a.headers['retry-after'])).toBeLessThanOrEqual(2);
    expect((JSON.parse(a.body) as { error: { type: string } }).error.type).toBe('budget_busy');
    expect(h.mock.requests()).toHaveLength(0);
    expect(h.metrics.get('AdmissionFailOpen') ?? 0).toBe(0);
    expect(h.metrics.get('AdmissionStoreUnavailable')).toBe(2);
  });

  it('admits without any lease write when no block cap applies', async () => {
    const store = new MemoryBudgetLeaseStore();
    h = await harness(store, undefined);
    for (let i = 0; i < 5; i++) expect((await post(h, task(i))).status).toBe(200);
    expect(store.saves).toBe(0);
    expect(store.loads).toBe(0);
  });

  it('makes no store round trip per call far from the cap', async () => {
    const store = new MemoryBudgetLeaseStore();
    h = await harness(store, 100);
    for (let i = 0; i < 30; i++) expect((await post(h, task(i))).status).toBe(200);
    // the first call takes the lease (one read of the absent item, one write); the slice covers the rest
    expect(store.saves).toBe(1);
    expect(store.loads).toBe(1);
  });
});

describe('the lease timer', () => {
  const T0 = Date.parse('2026-11-23T12:00:00.000Z');
  const scope = { kind: 'organization' as const, orgId: TEST_ORG };
  const call = () => ({
    provider: 'openai',
    flavor: 'openai' as const,
    model: 'gpt-4o-mini',
    body: Buffer.from(JSON.stringify(CHAT)),
    atMs: Date.now(),
  });
  beforeEach(() =>
    jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }),
  );
  afterEach(() => jest.useRealTimers());

  /** A container under a $1 daily cap (far from it) that has admitted one call, its lease in memory. */
  async function oneAdmittedCall() {
    const store = new MemoryBudgetLeaseStore();
    const leases = new BudgetLeases({ store, config: configWith(1), now: Date.now });
    const a = new LeaseAdmission({ leases, holderId: 'relay-a' });
    const d = await a.admit(TEST_ORG, call());
    if (d.kind !== 'admitted') throw new Error('expected the call to be admitted');
    return { store, leases, a, d };
  }

  it("reports an idle container's spend before its slice lapses, so no other holder can spend it again", async () => {
    const { leases, a, d } = await oneAdmittedCall();
    d.ticket.settle(7_000);
    let view = await leases.view(scope, { day: 1_000_000_000, month: null });
    expect(view.day).toMatchObject({ settledNanos: 0, holders: 1 }); // far from the cap: no write per call
    await jest.advanceTimersByTimeAsync(25_000); // 30 s slice − 2 s guard − 3 s lead
    view = await leases.view(scope, { day: 1_000_000_000, month: null });
    expect(view.day).toMatchObject({ settledNanos: 7_000, leasedNanos: 0, holders: 0 });
    expect(a.holderOf(TEST_ORG)?.unreportedNanos).toBe(0);
    await a.releaseAll();
  });

  it('keeps the slice of a call longer than the lease alive, so its reservation stays counted', async () => {
    const { leases, a, d } = await oneAdmittedCall();
    await jest.advanceTimersByTimeAsync(95_000); // a long reasoning call, three lease lifetimes
    const view = await leases.view(scope, { day: 1_000_000_000, month: null });
    expect(view.day).toMatchObject({
      holders: 1,
      reservedNanos: d.ticket.reservedNanos,
      outstandingReservations: 1,
    });
    d.ticket.settle(5_000);
    await a.releaseAll();
  });

  it('settled() waits for a lease write in flight (the Lambda handler awaits it before the container freezes)', async () => {
    const { store, a, d } = await oneAdmittedCall();
    d.ticket.settle(7_000);
    const apply = store.apply.bind(store);
    let landed = false;
    store.apply = (scope, delta) =>
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => {
        landed = true;
        return apply(scope, delta);
      });
    void a.releaseAll();
    const quiet = a.settled();
    expect(landed).toBe(false);
    await jest.advanceTimersByTimeAsync(60);
    await quiet;
    expect(landed).toBe(true);
    expect(a.holderOf(TEST_ORG)?.held).toBeNull();
  });

  it('backs off while the store is down instead of retrying in a loop', async () => {
    const { store, a, d } = await oneAdmittedCall(); // a call in flight: its slice must be renewed
    let attempts = 0;
    store.apply = () => {
      attempts++;
      return Promise.reject(new Error('store down'));
    };
    await jest.advanceTimersByTimeAsync(25_000 + 60_000);
    // tries at 25 s, then after 1, 2, 4, 8, 16 and 32 s: at most seven attempts in the minute, not sixty
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeLessThanOrEqual(7);
    expect(a.holderOf(TEST_ORG)?.reservations).toBe(1);
    d.ticket.settle(7_000);
    await a.releaseAll();
  });

  it('after a release whose answer never came, believes it landed: the slice the counter may still hold covers the spend', async () => {
    const { store, leases, a, d } = await oneAdmittedCall();
    d.ticket.settle(7_000);
    const apply = store.apply.bind(store);
    store.apply = (scope, delta) =>
      apply(scope, delta).then(() => Promise.reject(new Error('timeout after landing')));
    await jest.advanceTimersByTimeAsync(25_000);
    expect(a.holderOf(TEST_ORG)?.unreportedNanos).toBe(0); // not sent again: it would count twice
    store.apply = apply;
    const view = await leases.view(scope, { day: 1_000_000_000, month: null });
    expect(view.day).toMatchObject({ settledNanos: 7_000, leasedNanos: 0 });
    await a.releaseAll();
  });
});

function utcTomorrow(): [number, number, number] {
  const d = new Date();
  return [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1];
}

describe('many holders near the cap (one per Lambda container)', () => {
  const scope = { kind: 'organization' as const, orgId: TEST_ORG };
  // gpt-4o-mini's documented 16,384 output tokens at 600 nanos: a call reserving ≈ 9.9 M nano-USD.
  const BIG = 16_384;

  function fleetOf(capUsd: number) {
    const store = new MemoryBudgetLeaseStore();
    const leases = new BudgetLeases({ store, config: configWith(capUsd), now: Date.now });
    const holder = (id: string) => new LeaseAdmission({ leases, holderId: id, maxWaitMs: 50 });
    return { store, leases, holder };
  }

  it('an idle container near the cap returns its slice before it freezes, so the next container fits a call', async () => {
    // $0.015 cap: A's slice takes half of what is free, so a 9.9 M call fits only once A returns it.
    const { leases, holder } = fleetOf(0.015);
    const a = holder('relay-a');
    const b = holder('relay-b');
    const first = await a.admit(TEST_ORG, callWith(20));
    if (first.kind !== 'admitted') throw new Error('expected the first call to be admitted');
    first.ticket.settle(7_000);
    await a.invocationEnded();
    const view = await leases.view(scope, { day: 15_000_000, month: null });
    expect(view.day).toMatchObject({ settledNanos: 7_000, leasedNanos: 0, holders: 0 });
    const big = await b.admit(TEST_ORG, callWith(BIG));
    expect(big.kind).toBe('admitted');
    if (big.kind === 'admitted') big.ticket.settle(9_000_000);
    await b.invocationEnded();
  });

  it('without the return, the same call is refused while it fits (the room is parked in the idle slice)', async () => {
    const { holder } = fleetOf(0.015);
    const a = holder('relay-a');
    const b = holder('relay-b');
    const first = await a.admit(TEST_ORG, callWith(20));
    if (first.kind !== 'admitted') throw new Error('expected the first call to be admitted');
    first.ticket.settle(7_000);
    await a.settled(); // what a container did before: its slice stays with it while frozen
    const big = await b.admit(TEST_ORG, callWith(BIG));
    expect(big).toMatchObject({ kind: 'refused', retryable: true });
    await a.releaseAll();
  });

  it('far from the cap an idle container keeps its slice: no store write per invocation', async () => {
    const { store, leases, holder } = fleetOf(1_000);
    const a = holder('relay-a');
    const first = await a.admit(TEST_ORG, callWith(20));
    if (first.kind !== 'admitted') throw new Error('expected the call to be admitted');
    first.ticket.settle(7_000);
    let writes = 0;
    const apply = store.apply.bind(store);
    store.apply = (s, d) => {
      writes++;
      return apply(s, d);
    };
    await a.invocationEnded();
    expect(writes).toBe(0);
    expect((await leases.view(scope, { day: 1e12, month: null })).day.holders).toBe(1);
    await a.releaseAll();
  });

  it('a lease write slower than the store timeout: the call gets a retryable 429, the holder adopts the late answer', async () => {
    const { store, leases } = fleetOf(0.3);
    const apply = store.apply.bind(store);
    store.apply = (s, d) => new Promise((r) => setTimeout(r, 150)).then(() => apply(s, d));
    const a = new LeaseAdmission({ leases, holderId: 'relay-a', storeTimeoutMs: 50, maxWaitMs: 50 });
    const d = await a.admit(TEST_ORG, callWith(20));
    expect(d).toMatchObject({ kind: 'refused', retryable: true });
    await a.settled(); // before the freeze: the write has landed and its answer is the holder's
    expect(a.holderOf(TEST_ORG)?.held).not.toBeNull();
    store.apply = apply;
    await a.releaseAll();
    // Nothing is left on the counter that nobody would return (it would be charged as spent once lapsed).
    const view = await leases.view(scope, { day: 300_000_000, month: null });
    expect(view.day).toMatchObject({ leasedNanos: 0, holders: 0, settledNanos: 0 });
  });

  it('a grant that lands after its call was answered is returned before the freeze, not parked to lapse', async () => {
    // Near the cap ($0.015): the late slice would be charged as spent once its bucket ends, refusing room
    // that fits (the demo's fleet lost ~$0.005 per such container under CPU load).
    const { store, leases } = fleetOf(0.015);
    const apply = store.apply.bind(store);
    store.apply = (s, d) => new Promise((r) => setTimeout(r, 150)).then(() => apply(s, d));
    const a = new LeaseAdmission({ leases, holderId: 'relay-a', storeTimeoutMs: 50, maxWaitMs: 50 });
    const d = await a.admit(TEST_ORG, callWith(20));
    expect(d).toMatchObject({ kind: 'refused', retryable: true });
    await a.invocationEnded();
    expect(a.holderOf(TEST_ORG)?.held).toBeNull();
    const view = await leases.view(scope, { day: 15_000_000, month: null });
    expect(view.day).toMatchObject({ leasedNanos: 0, holders: 0, settledNanos: 0 });
  });
});

describe('a cap changed under a live slice', () => {
  /** A config store whose daily cap the test changes, and the reads it answered. */
  function changingCap(dailyLimitUsd: number) {
    const state = { dailyLimitUsd, reads: 0 };
    const config: OrgConfigStore = {
      get: () => {
        state.reads++;
        return Promise.resolve({
          budget: { dailyLimitUsd: state.dailyLimitUsd, action: 'block' },
          policy: {},
          updatedAt: '2026-11-26T00:00:00.000Z',
        });
      },
      put: () => Promise.resolve(),
    };
    return { state, config };
  }

  it('a lowered cap is in force for a call that begins capsTtlMs after it, though the slice was granted under the old one', async () => {
    const { state, config } = changingCap(10);
    const leases = new BudgetLeases({ store: new MemoryBudgetLeaseStore(), config, now: Date.now });
    const relay = new LeaseAdmission({ leases, holderId: 'relay-a', maxWaitMs: 50, capsTtlMs: 40 });
    const first = await relay.admit(TEST_ORG, callWith(20));
    if (first.kind !== 'admitted') throw new Error('expected the first call to be admitted');
    first.ticket.settle(7_000);
    // The slice is live for seconds; within capsTtlMs it keeps serving under the caps it was granted by.
    expect(relay.holderOf(TEST_ORG)!.available()).toBeGreaterThan(1_000_000);
    state.dailyLimitUsd = 0.000001; // the admin lowers the cap below what was spent
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await relay.admit(TEST_ORG, callWith(20));
    expect(after.kind).toBe('refused');
  });

  it('an unchanged cap costs one read per capsTtlMs, and the slice keeps serving', async () => {
    const { state, config } = changingCap(10);
    const leases = new BudgetLeases({ store: new MemoryBudgetLeaseStore(), config, now: Date.now });
    const relay = new LeaseAdmission({ leases, holderId: 'relay-a', maxWaitMs: 50, capsTtlMs: 40 });
    const calls = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const d = await relay.admit(TEST_ORG, callWith(20));
        expect(d.kind).toBe('admitted');
        if (d.kind === 'admitted') d.ticket.settle(1_000);
      }
    };
    await calls(1);
    const readsAfterGrant = state.reads;
    await calls(20); // within capsTtlMs: no read
    expect(state.reads).toBe(readsAfterGrant);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await calls(20);
    expect(state.reads).toBe(readsAfterGrant + 1);
  });
});
