import type { OrgConfig } from '../shared/stores/org-config-store';
import { OrgPolicyCache } from './org-policy-cache';

/** A config store whose reads the test answers by hand. */
class ManualConfigs {
  readonly pending: ((c: OrgConfig | undefined) => void)[] = [];
  reads = 0;
  get(): Promise<OrgConfig | undefined> {
    this.reads++;
    return new Promise((resolve) => this.pending.push(resolve));
  }
  answer(policy: unknown): void {
    for (const resolve of this.pending.splice(0))
      resolve({ budget: { dailyLimitUsd: 5 }, policy, updatedAt: '' });
  }
}

describe('OrgPolicyCache', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => (clock = 1_000_000));

  it('shares one first read between concurrent calls, and merges the budget as the consumer does', async () => {
    const configs = new ManualConfigs();
    const cache = new OrgPolicyCache({ config: configs, now });
    const a = cache.policyOf('org_a');
    const b = cache.policyOf('org_a');
    configs.answer({ identicalLoop: { consecutive: 7 } });
    const [pa, pb] = await Promise.all([a, b]);
    expect(configs.reads).toBe(1);
    expect(pa?.identicalLoop.consecutive).toBe(7);
    expect(pa?.financialLimits.dailyHardCapNanos).toBe(5_000_000_000);
    expect(pb).toBe(pa);
    // cached: synchronous, no read
    expect(cache.policyOf('org_a')).toBe(pa);
    expect(configs.reads).toBe(1);
  });

  it('a first read slower than the timeout answers none (fail open); its answer serves the next calls', async () => {
    const configs = new ManualConfigs();
    const cache = new OrgPolicyCache({ config: configs, now, timeoutMs: 20 });
    await expect(cache.policyOf('org_a')).resolves.toBeUndefined();
    configs.answer({ identicalLoop: { enabled: false } });
    await new Promise((r) => setImmediate(r));
    expect((cache.policyOf('org_a') as { identicalLoop: { enabled: boolean } }).identicalLoop.enabled).toBe(
      false,
    );
  });

  it('serves a stale policy while one background read refreshes it after the TTL', async () => {
    const configs = new ManualConfigs();
    const cache = new OrgPolicyCache({ config: configs, now, ttlMs: 1_000 });
    const first = cache.policyOf('org_a');
    configs.answer({ identicalLoop: { consecutive: 5 } });
    await first;
    clock += 999;
    cache.policyOf('org_a');
    expect(configs.reads).toBe(1);
    clock += 1;
    const stale = cache.policyOf('org_a') as { identicalLoop: { consecutive: number } };
    cache.policyOf('org_a');
    expect(stale.identicalLoop.consecutive).toBe(5);
    expect(configs.reads).toBe(2); // one refresh for both calls
    configs.answer({ identicalLoop: { consecutive: 9 } });
    await new Promise((r) => setImmediate(r));
    expect(
      (cache.policyOf('org_a') as { identicalLoop: { consecutive: number } }).identicalLoop.consecutive,
    ).toBe(9);
  });
});
