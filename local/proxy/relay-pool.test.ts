/**
 * The relay pool behaves as Lambda runs the relay (design decision 14): one invocation per container,
 * containers created on demand up to the concurrency, frozen between invocations (timers wait for the
 * thaw), pending work finished before the freeze, idle containers recycled; and through the proxy every
 * container is its own lease holder.
 */
import http from 'node:http';
import fc from 'fast-check';
import { BudgetLeases } from '../../lambdas/shared/budget-leases';
import { MemoryBudgetLeaseStore } from '../../lambdas/shared/stores/budget-lease-store';
import type { OrgConfigStore } from '../../lambdas/shared/stores/org-config-store';
import type { Timers } from '../../lambdas/shared/timers';
import { FreezableTimers } from './freezable-timers';
import { RelayPool, THROTTLED } from './relay-pool';
import { startProxyHarness, TEST_ORG, type ProxyHarness } from './test-support';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A container that counts its concurrent invocations. */
interface Probe {
  readonly id: number;
  readonly timers: Timers;
  active: number;
  maxActive: number;
}

function probePool(opts: { concurrency: number; overflow?: 'queue' | 'throttle'; now?: () => number }) {
  const built: Probe[] = [];
  const disposed: number[] = [];
  const pool = new RelayPool<Probe>({
    ...opts,
    build: (timers, id) => {
      const probe: Probe = { id, timers, active: 0, maxActive: 0 };
      built.push(probe);
      return { relay: probe, dispose: () => disposed.push(id) };
    },
  });
  const run = (p: Probe, ticks: number) => async () => {
    p.active++;
    p.maxActive = Math.max(p.maxActive, p.active);
    for (let i = 0; i < ticks; i++) await tick();
    p.active--;
    return p.id;
  };
  return { pool, built, disposed, run };
}

describe('RelayPool', () => {
  it('never runs two invocations on one container nor more containers than the concurrency', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.record({ startTicks: fc.nat(4), ticks: fc.nat(5) }), { minLength: 1, maxLength: 40 }),
        async (concurrency, calls) => {
          const { pool, built, run } = probePool({ concurrency });
          let peak = 0;
          let inflight = 0;
          const results = await Promise.all(
            calls.map(async ({ startTicks, ticks }) => {
              for (let i = 0; i < startTicks; i++) await tick();
              return pool.invoke(async (p) => {
                inflight++;
                peak = Math.max(peak, inflight);
                try {
                  return await run(p, ticks)();
                } finally {
                  inflight--;
                }
              });
            }),
          );
          await pool.close();
          expect(results).not.toContain(THROTTLED); // queued, never refused
          expect(built.length).toBeLessThanOrEqual(concurrency);
          expect(peak).toBeLessThanOrEqual(concurrency);
          for (const p of built) expect(p.maxActive).toBe(1);
          // created on demand: never more containers than calls were ever in flight at once
          expect(built.length).toBeLessThanOrEqual(Math.min(concurrency, calls.length));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reuses a warm container for sequential calls', async () => {
    const { pool, built, run } = probePool({ concurrency: 100 });
    for (let i = 0; i < 5; i++) await pool.invoke((p) => run(p, 1)());
    expect(built).toHaveLength(1);
    await pool.close();
  });

  it("answers Lambda's throttle beyond the concurrency when set to throttle", async () => {
    const { pool, built, run } = probePool({ concurrency: 2, overflow: 'throttle' });
    const out = await Promise.all([1, 2, 3, 4].map(() => pool.invoke((p) => run(p, 3)())));
    expect(out.filter((o) => o === THROTTLED)).toHaveLength(2);
    expect(built).toHaveLength(2);
    await pool.close();
  });

  it('runs no timer of an idle container: what fell due runs at the thaw, before the next invocation', async () => {
    const { pool, run } = probePool({ concurrency: 1 });
    const log: string[] = [];
    await pool.invoke(async (p) => {
      p.timers.setTimeout(() => log.push('timer'), 5);
      return run(p, 0)();
    });
    await sleep(40);
    expect(log).toEqual([]); // frozen: due for 35 ms, not run
    await pool.invoke(async () => {
      log.push('invocation');
      return 0;
    });
    expect(log).toEqual(['timer', 'invocation']);
    await pool.close();
  });

  it('finishes pending work before the container is frozen and the invocation returns', async () => {
    let pendingDone = false;
    const pool = new RelayPool<null>({
      concurrency: 1,
      build: () => ({
        relay: null,
        beforeFreeze: async () => {
          await sleep(20);
          pendingDone = true;
        },
      }),
    });
    await pool.invoke(() => Promise.resolve(1));
    expect(pendingDone).toBe(true);
    await pool.close();
  });

  it('recycles containers idle for longer than the idle time', async () => {
    let now = 1_000_000;
    const disposed: number[] = [];
    const pool = new RelayPool<null>({
      concurrency: 10,
      idleMs: 60_000,
      now: () => now,
      build: (_t, id) => ({ relay: null, dispose: () => disposed.push(id) }),
    });
    await Promise.all([pool.invoke(() => sleep(5)), pool.invoke(() => sleep(5))]);
    expect(pool.size).toBe(2);
    now += 59_999;
    pool.recycleIdle();
    expect(pool.size).toBe(2);
    now += 1;
    pool.recycleIdle();
    expect(pool.size).toBe(0);
    expect(disposed.sort()).toEqual([1, 2]);
    await pool.close();
  });
});

describe('FreezableTimers', () => {
  it('runs timers while thawed, holds them while frozen, and cancels held ones', async () => {
    const t = new FreezableTimers();
    const log: string[] = [];
    t.setTimeout(() => log.push('a'), 1);
    await sleep(15);
    expect(log).toEqual(['a']);
    t.freeze();
    t.setTimeout(() => log.push('b'), 1);
    const c = t.setTimeout(() => log.push('c'), 1);
    await sleep(15);
    expect(t.dueCount).toBe(2);
    t.clearTimeout(c);
    t.thaw();
    expect(log).toEqual(['a', 'b']);
    t.dispose();
  });
});

function configWith(dailyLimitUsd: number): OrgConfigStore {
  return {
    get: () =>
      Promise.resolve({
        budget: { dailyLimitUsd, action: 'block' },
        policy: {},
        updatedAt: '2026-11-23T00:00:00.000Z',
      }),
    put: () => Promise.resolve(),
  };
}

function post(
  h: ProxyHarness,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
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
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(
      JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    );
  });
}

describe('the local proxy on a relay pool', () => {
  let h: ProxyHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('serves concurrent calls on as many containers, each its own lease holder', async () => {
    const store = new MemoryBudgetLeaseStore();
    const budgetLeases = new BudgetLeases({ store, config: configWith(10), now: Date.now });
    h = await startProxyHarness({ proxy: { budgetLeases } });
    const out = await Promise.all(Array.from({ length: 6 }, () => post(h!, { 'x-mock-latency-ms': '150' })));
    expect(out.map((o) => o.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const containers = h.proxy.pool.containers();
    expect(containers).toHaveLength(6);
    const holderIds = new Set(
      containers.map((c) => c.relay.admission?.holderOf(TEST_ORG)?.holderId ?? 'none'),
    );
    expect(holderIds.size).toBe(6);
    expect(holderIds.has('none')).toBe(false);
    // every container is frozen between calls
    expect(containers.every((c) => c.timers.isFrozen)).toBe(true);
  });

  it("answers Lambda's throttling 429 past the concurrency when told to throttle", async () => {
    h = await startProxyHarness({ proxy: { relayConcurrency: 2, relayOverflow: 'throttle' } });
    const out = await Promise.all(Array.from({ length: 4 }, () => post(h!, { 'x-mock-latency-ms': '150' })));
    expect(out.filter((o) => o.status === 200)).toHaveLength(2);
    const throttled = out.filter((o) => o.status === 429);
    expect(throttled).toHaveLength(2);
    expect(JSON.parse(throttled[0]!.body)).toEqual({
      Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded',
      Type: 'User',
      message: 'Rate Exceeded.',
    });
    expect(h.mock.requests()).toHaveLength(2);
  });
});
