import type { FlagRecord } from '../shared/stores/flag-store';
import fc from 'fast-check';
import { outranks } from '../shared/stores/flag-store';
import { decide, MISSING_KEY_RESPONSE, toFlagLookup, toFlagLookupOfItems } from './decide';
import { throttleBuckets } from './throttle';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);

function flag(
  state: FlagRecord['state'],
  expiresInSeconds: number,
  triggerType = 'token_loop_identical',
): FlagRecord {
  return {
    flagKey: 'f'.repeat(64),
    orgId: 'org_acme',
    scope: 'key',
    keyId: 'k3v9x0q2m7za',
    sessionId: null,
    state,
    triggerType,
    observedValue: 4,
    thresholdValue: 4,
    mode: 'hard_stop',
    setAt: new Date(NOW - 60_000).toISOString(),
    expiresAt: NOW / 1000 + expiresInSeconds,
  };
}

const ctx = () => ({ limiter: throttleBuckets(), bucketKey: 'k' });

describe('decide', () => {
  it('answers a SUSPENDED flag with the 429 Budget Exceeded contract', () => {
    // Prepare
    const f = flag('SUSPENDED', 5400, 'hard_cap_daily');
    // Act
    const d = decide(f, NOW, ctx());
    // Assess
    expect(d.action).toBe('respond');
    if (d.action !== 'respond') return;
    expect(d.reason).toBe('suspended');
    expect(d.response.status).toBe(429);
    expect(d.response.headers).toEqual({
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'retry-after': '5400',
      'x-should-retry': 'false',
    });
    const body = JSON.parse(d.response.body) as { error: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(['error']);
    expect(Object.keys(body.error)).toEqual(['message', 'type', 'code']);
    expect(body.error.type).toBe('budget_exceeded');
    expect(body.error.code).toBe('hard_cap_daily');
    expect(body.error.message).toMatch(/^Budget Exceeded/);
  });

  it('rounds Retry-After up to whole seconds and never below 1', () => {
    expect(decide(flag('SUSPENDED', 0.2), NOW, ctx())).toMatchObject({
      response: { headers: { 'retry-after': '1' } },
    });
    expect(decide(flag('SUSPENDED', 90.4), NOW, ctx())).toMatchObject({
      response: { headers: { 'retry-after': '91' } },
    });
  });

  it.each([
    ['SUSPENDED', -1],
    ['SUSPENDED', 0],
    ['THROTTLED', -3600],
  ] as const)('forwards when a %s flag has expired (%i s) although the item is still there', (state, ttl) => {
    expect(decide(flag(state, ttl), NOW, ctx())).toEqual({ action: 'forward' });
  });

  it('forwards when there is no flag', () => {
    expect(decide(undefined, NOW, ctx())).toEqual({ action: 'forward' });
  });

  it('fails open on a store failure and on an invalid item', () => {
    expect(decide('error', NOW, ctx())).toEqual({ action: 'forward', failOpen: 'store_error' });
    expect(decide(toFlagLookup({ flagKey: 'x', state: 'BANANA' }), NOW, ctx())).toEqual({
      action: 'forward',
      failOpen: 'bad_flag_item',
    });
  });

  it('lets a THROTTLED key through at 1 request per 6 s and answers the excess 429 rate_limited', () => {
    // Prepare
    const c = ctx();
    const f = flag('THROTTLED', 1800, 'rps_burst');
    // Act
    const first = decide(f, NOW, c);
    const second = decide(f, NOW + 1000, c);
    const third = decide(f, NOW + 5999, c);
    const fourth = decide(f, NOW + 6000, c);
    // Assess
    expect(first).toEqual({ action: 'forward', throttled: true });
    expect(second).toMatchObject({
      action: 'respond',
      reason: 'throttled',
      response: { status: 429, headers: { 'retry-after': '5' } },
    });
    expect(third).toMatchObject({ action: 'respond', response: { headers: { 'retry-after': '1' } } });
    expect(fourth).toEqual({ action: 'forward', throttled: true });
    if (second.action !== 'respond') return;
    expect(JSON.parse(second.response.body)).toMatchObject({
      error: { type: 'rate_limited', code: 'rps_burst' },
    });
    expect(second.response.headers['x-should-retry']).toBeUndefined();
  });

  it('keeps separate buckets per key', () => {
    const limiter = throttleBuckets();
    const f = flag('THROTTLED', 1800);
    expect(decide(f, NOW, { limiter, bucketKey: 'a' }).action).toBe('forward');
    expect(decide(f, NOW, { limiter, bucketKey: 'b' }).action).toBe('forward');
    expect(decide(f, NOW, { limiter, bucketKey: 'a' }).action).toBe('respond');
  });

  it('has a 401 JSON body for a missing key', () => {
    expect(MISSING_KEY_RESPONSE.status).toBe(401);
    expect(JSON.parse(MISSING_KEY_RESPONSE.body)).toMatchObject({
      error: { code: 'invalid_service_api_key' },
    });
  });
});

describe('throttleBuckets', () => {
  it('allows a burst of `capacity`, then one per interval, and stays bounded in keys', () => {
    const limiter = throttleBuckets({ capacity: 3, refillIntervalMs: 1000 }, 2);
    expect([0, 1, 2, 3].map((t) => limiter.take('k', t).allowed)).toEqual([true, true, true, false]);
    expect(limiter.take('k', 999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take('k', 1003).allowed).toBe(true);
    expect(limiter.take('k', 1004).allowed).toBe(false);
    limiter.take('x', 0);
    limiter.take('y', 0);
    expect(limiter.size).toBe(2);
  });
});

describe('toFlagLookupOfItems', () => {
  it('picks the strongest unexpired valid item whatever the order; invalid items only when nothing valid applies', () => {
    const item = fc.oneof(
      fc
        .record({
          state: fc.constantFrom<FlagRecord['state']>('SUSPENDED', 'THROTTLED'),
          expiresIn: fc.integer({ min: -100, max: 7200 }),
        })
        .map(({ state, expiresIn }) => flag(state, expiresIn) as unknown),
      fc.constant({ flagKey: 'x', state: 'SUSPENDED' } as unknown), // invalid: no orgId, no expiresAt
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 4 }), (items) => {
        const valid = items.filter((i): i is FlagRecord => typeof (i as FlagRecord).expiresAt === 'number');
        const live = valid.filter((f) => f.expiresAt * 1000 > NOW);
        const result = toFlagLookupOfItems(items, NOW);
        const reversed = toFlagLookupOfItems([...items].reverse(), NOW);
        if (live.length > 0) {
          expect(result).not.toBeUndefined();
          for (const f of live) expect(outranks(f, result as FlagRecord)).toBe(false);
          expect((reversed as FlagRecord).state).toBe((result as FlagRecord).state);
          expect((reversed as FlagRecord).expiresAt).toBe((result as FlagRecord).expiresAt);
        } else if (valid.length < items.length) {
          expect(result).toHaveProperty('invalid');
        } else {
          expect(result).toBeUndefined();
        }
      }),
    );
  });
});
