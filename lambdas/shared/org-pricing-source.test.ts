/**
 * The relay's cached view of an organization's pricing (issue 18.2): it must price with the rates the
 * ledger uses, apply a saved rate within its TTL, never make a call wait on a refresh, survive a store
 * outage with the last good rates, and stay bounded.
 */
import { calculateCost } from '../../core/pricing';
import { createOrgPricingSource } from './org-pricing-source';
import type { PricingRatesRecord, PricingRatesStore } from './stores/pricing-rates-store';

class FakeRates implements PricingRatesStore {
  readonly items = new Map<string, PricingRatesRecord>();
  reads = 0;
  failing = false;
  get(orgId: string): Promise<PricingRatesRecord | undefined> {
    this.reads++;
    if (this.failing) return Promise.reject(new Error('store down'));
    return Promise.resolve(this.items.get(orgId));
  }
  put(orgId: string, record: PricingRatesRecord): Promise<void> {
    this.items.set(orgId, record);
    return Promise.resolve();
  }
}

const UPDATED = '2026-11-25T00:00:00.000Z';
/** 1M gpt-4o-mini input tokens: $0.15 at OpenAI's list price (150,000,000 nano-USD). */
function millionInputNanos(p: Awaited<ReturnType<ReturnType<typeof createOrgPricingSource>>>): number {
  return calculateCost(
    {
      provider: 'openai',
      model: 'gpt-4o-mini',
      at: Date.parse('2026-11-25T00:00:00Z'),
      orgRates: p.orgRates,
      usage: {
        model: 'gpt-4o-mini',
        inputTokens: 1_000_000,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWrite5mTokens: 0,
        cacheWrite1hTokens: 0,
        reasoningTokens: 0,
      },
    },
    p.registry,
  ).costNanos;
}

describe('createOrgPricingSource', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('prices with the organization stored rates, and list prices for an organization without any', async () => {
    const store = new FakeRates();
    await store.put('org-a', { rates: { multiplier: 0.5 }, updatedAt: UPDATED });
    const source = createOrgPricingSource({ rates: store, now });
    expect(millionInputNanos(await source('org-a'))).toBe(75_000_000);
    expect(millionInputNanos(await source('org-b'))).toBe(150_000_000);
  });

  it('serves from memory within the TTL, then a stale value while one refresh runs', async () => {
    const store = new FakeRates();
    await store.put('org-a', { rates: { multiplier: 0.5 }, updatedAt: UPDATED });
    const source = createOrgPricingSource({ rates: store, now, ttlMs: 5_000 });
    await Promise.all([source('org-a'), source('org-a'), source('org-a')]);
    expect(store.reads).toBe(1); // concurrent first calls share one read
    await store.put('org-a', { rates: { multiplier: 0.8 }, updatedAt: UPDATED });
    clock += 4_999;
    expect(millionInputNanos(await source('org-a'))).toBe(75_000_000);
    expect(store.reads).toBe(1);
    clock += 1;
    // Stale: answered at once with the old rates, one refresh started.
    expect(millionInputNanos(await source('org-a'))).toBe(75_000_000);
    await source('org-a');
    expect(store.reads).toBe(2);
    await new Promise((r) => setImmediate(r));
    expect(millionInputNanos(await source('org-a'))).toBe(120_000_000);
  });

  it('keeps the last good rates through a store outage and retries after retryMs', async () => {
    const store = new FakeRates();
    await store.put('org-a', { rates: { multiplier: 0.5 }, updatedAt: UPDATED });
    const source = createOrgPricingSource({ rates: store, now, ttlMs: 5_000, retryMs: 1_000 });
    await source('org-a');
    store.failing = true;
    clock += 5_000;
    await source('org-a');
    await new Promise((r) => setImmediate(r));
    expect(millionInputNanos(await source('org-a'))).toBe(75_000_000);
    const reads = store.reads;
    clock += 999;
    await source('org-a');
    expect(store.reads).toBe(reads);
    clock += 1;
    await source('org-a');
    expect(store.reads).toBe(reads + 1);
  });

  it('never rejects: a first read that fails prices at list', async () => {
    const store = new FakeRates();
    store.failing = true;
    const source = createOrgPricingSource({ rates: store, now });
    expect(millionInputNanos(await source('org-a'))).toBe(150_000_000);
  });

  it('keeps at most maxOrgs organizations', async () => {
    const store = new FakeRates();
    const source = createOrgPricingSource({ rates: store, now, maxOrgs: 3 });
    for (const id of ['a', 'b', 'c', 'd']) await source(id);
    expect(store.reads).toBe(4);
    await source('d'); // kept
    expect(store.reads).toBe(4);
    await source('a'); // evicted first: read again
    expect(store.reads).toBe(5);
  });
});
