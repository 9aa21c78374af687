import { randomBytes } from 'node:crypto';
import { flagKeyFor, generateApiKey } from '../../core/keys';
import type { FlagRecord } from '../shared/stores/flag-store';
import { orgFlagItemKey, sessionFlagItemKey } from '../shared/flag-item-keys';
import { EdgeGuard, type FlagSource } from './guard';
import { MemoryMetrics } from './metrics';

const PEPPER = 'pepper-for-guard-tests-0123456789abcdef';

class FakeFlags implements FlagSource {
  items = new Map<string, unknown>();
  reads = 0;
  fail = false;
  delayMs = 0;
  async getMany(flagKeys: readonly string[]): Promise<unknown[]> {
    this.reads++;
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.fail) throw new Error('ResourceNotFound / network down');
    return flagKeys.map((k) => this.items.get(k)).filter((i) => i !== undefined);
  }
}

function setup(opts: { pepper?: () => Promise<string>; now?: () => number; timeoutMs?: number } = {}) {
  const flags = new FakeFlags();
  const metrics = new MemoryMetrics();
  const guard = new EdgeGuard({
    flags,
    metrics,
    pepper: opts.pepper ?? (async () => PEPPER),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.timeoutMs ? { lookupTimeoutMs: opts.timeoutMs } : {}),
  });
  const key = generateApiKey((n) => randomBytes(n));
  const flagKey = flagKeyFor(key.prefix, PEPPER);
  const suspend = (ttlSeconds = 7200): FlagRecord => {
    const f: FlagRecord = {
      flagKey,
      orgId: 'org_acme',
      scope: 'key',
      keyId: key.publicId,
      sessionId: null,
      state: 'SUSPENDED',
      triggerType: 'token_loop_identical',
      observedValue: 4,
      thresholdValue: 4,
      mode: 'hard_stop',
      setAt: new Date().toISOString(),
      expiresAt: Math.floor((opts.now?.() ?? Date.now()) / 1000) + ttlSeconds,
    };
    flags.items.set(flagKey, f);
    return f;
  };
  return { flags, metrics, guard, key, flagKey, suspend };
}

describe('EdgeGuard', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['malformed', 'abn_short'],
    ['a provider key by mistake', 'sk-proj-0123456789'],
    ['repeated header', ['abn_a', 'abn_b']],
  ])('answers 401 for a %s key without reading a flag', async (_name, header) => {
    const { guard, flags, metrics } = setup();
    const d = await guard.check(header);
    expect(d).toMatchObject({ action: 'respond', reason: 'unauthorized', response: { status: 401 } });
    expect(flags.reads).toBe(0);
    expect(metrics.get('GuardRejected', { Reason: 'unauthorized' })).toBe(1);
  });

  it('forwards an unflagged key', async () => {
    const { guard, key } = setup();
    expect(await guard.check(key.apiKey)).toEqual({ action: 'forward' });
  });

  it('answers 429 for a SUSPENDED key', async () => {
    const { guard, key, suspend, metrics } = setup();
    suspend();
    const d = await guard.check(key.apiKey);
    expect(d).toMatchObject({ action: 'respond', reason: 'suspended', response: { status: 429 } });
    expect(metrics.get('GuardRejected', { Reason: 'suspended' })).toBe(1);
  });

  it('fails open and counts it when the store fails', async () => {
    const { guard, flags, metrics, key } = setup();
    flags.fail = true;
    expect(await guard.check(key.apiKey)).toEqual({ action: 'forward', failOpen: 'store_error' });
    expect(metrics.get('GuardFailOpen', { Reason: 'store_error' })).toBe(1);
  });

  it('fails open when the store is slower than the lookup timeout', async () => {
    const { guard, flags, metrics, key, suspend } = setup({ timeoutMs: 20 });
    suspend();
    flags.delayMs = 200;
    expect(await guard.check(key.apiKey)).toEqual({ action: 'forward', failOpen: 'store_error' });
    expect(metrics.get('GuardFailOpen')).toBe(1);
  });

  it('fails open on an invalid flag item', async () => {
    const { guard, flags, metrics, key, flagKey } = setup();
    flags.items.set(flagKey, { flagKey, state: 'SUSPENDED' }); // no expiresAt, no orgId
    expect(await guard.check(key.apiKey)).toEqual({ action: 'forward', failOpen: 'bad_flag_item' });
    expect(metrics.get('GuardFailOpen', { Reason: 'bad_flag_item' })).toBe(1);
  });

  it('fails open when the pepper secret cannot be read, and reads it again on the next request', async () => {
    let calls = 0;
    const { guard, metrics, key, suspend } = setup({
      pepper: async () => {
        calls++;
        if (calls === 1) throw new Error('AccessDenied');
        return PEPPER;
      },
    });
    suspend();
    expect(await guard.check(key.apiKey)).toEqual({ action: 'forward', failOpen: 'secret_error' });
    expect(metrics.get('GuardFailOpen', { Reason: 'secret_error' })).toBe(1);
    expect(await guard.check(key.apiKey)).toMatchObject({ action: 'respond', reason: 'suspended' });
    expect(calls).toBe(2);
  });

  it('reuses a negative lookup within the cache TTL and reads again after it; a flag is read on every call', async () => {
    let now = Date.UTC(2026, 10, 22);
    const { guard, flags, key, suspend } = setup({ now: () => now });
    // negative
    await guard.check(key.apiKey);
    await guard.check(key.apiKey);
    expect(flags.reads).toBe(1);
    expect(guard.checkCached(key.apiKey)).toEqual({ action: 'forward' });
    // a flag written now is seen after the TTL at the latest
    suspend();
    now += 999;
    expect((await guard.check(key.apiKey)).action).toBe('forward');
    expect(flags.reads).toBe(1);
    now += 1;
    expect((await guard.check(key.apiKey)).action).toBe('respond');
    expect(flags.reads).toBe(2);
    // positive: read again, never answered from memory alone
    now += 500;
    expect(guard.checkCached(key.apiKey)).toBeUndefined();
    expect((await guard.check(key.apiKey)).action).toBe('respond');
    expect(flags.reads).toBe(3);
  });

  it('sees a Resume on the very next call (spec 1.5: cleared at once)', async () => {
    let now = Date.UTC(2026, 10, 22);
    const { guard, flags, key, flagKey, suspend } = setup({ now: () => now });
    suspend();
    expect((await guard.check(key.apiKey)).action).toBe('respond');
    flags.items.delete(flagKey);
    now += 1;
    expect(await guard.check(key.apiKey)).toEqual({ action: 'forward' });
    // and "no flag" is cached again from there
    expect(guard.checkCached(key.apiKey)).toEqual({ action: 'forward' });
  });

  it('keeps a flag through a failed re-read for the rest of its TTL, then fails open', async () => {
    let now = Date.UTC(2026, 10, 22);
    const { guard, flags, key, suspend } = setup({ now: () => now });
    suspend();
    expect((await guard.check(key.apiKey)).action).toBe('respond');
    flags.fail = true;
    now += 999;
    expect(await guard.check(key.apiKey)).toMatchObject({ action: 'respond', reason: 'suspended' });
    now += 1;
    expect(await guard.check(key.apiKey)).toEqual({ action: 'forward', failOpen: 'store_error' });
  });

  it('shares one read between concurrent misses', async () => {
    const { guard, flags, key } = setup();
    flags.delayMs = 10;
    await Promise.all(Array.from({ length: 20 }, () => guard.check(key.apiKey)));
    expect(flags.reads).toBe(1);
  });

  it('caches failures too, so an outage costs one read per key per TTL', async () => {
    const { guard, flags, metrics, key } = setup();
    flags.fail = true;
    for (let i = 0; i < 5; i++) await guard.check(key.apiKey);
    expect(flags.reads).toBe(1);
    expect(metrics.get('GuardFailOpen', { Reason: 'store_error' })).toBe(5);
  });

  it('reads key, organization and session items in one round trip, cached per (key, session)', async () => {
    const { guard, flags, key, flagKey, suspend } = setup();
    const f = suspend();
    flags.items.delete(flagKey);
    const sessionItem = sessionFlagItemKey(flagKey, 'agent-7');
    flags.items.set(sessionItem, { ...f, flagKey: sessionItem, scope: 'session', sessionId: 'agent-7' });

    expect(await guard.check(key.apiKey, 'agent-7')).toMatchObject({
      action: 'respond',
      reason: 'suspended',
    });
    expect(await guard.check(key.apiKey, 'agent-8')).toEqual({ action: 'forward' });
    expect(await guard.check(key.apiKey)).toEqual({ action: 'forward' });
    expect(flags.reads).toBe(3);
    // Warm: every unflagged pair answers from memory, synchronously; the flagged one is read again.
    expect(guard.checkCached(key.apiKey, 'agent-7')).toBeUndefined();
    expect(guard.checkCached(key.apiKey, ['agent-8'])).toEqual({ action: 'forward' });
    expect(guard.checkCached(key.apiKey, '')).toEqual({ action: 'forward' });
    expect(flags.reads).toBe(3);
  });

  it('applies the strongest of the items: an organization suspension over a key throttle', async () => {
    const { guard, flags, key, flagKey, suspend } = setup();
    const f = suspend();
    flags.items.set(flagKey, { ...f, state: 'THROTTLED', mode: 'throttle' });
    flags.items.set(orgFlagItemKey(flagKey), {
      ...f,
      flagKey: orgFlagItemKey(flagKey),
      scope: 'organization',
    });
    const d = await guard.check(key.apiKey, 'any');
    expect(d).toMatchObject({ action: 'respond', reason: 'suspended' });
    expect(JSON.parse((d as { response: { body: string } }).response.body).error.message).toMatch(
      /this organization's requests are suspended/,
    );
  });

  it('an invalid item does not hide a valid suspension next to it', async () => {
    const { guard, flags, key, flagKey, suspend } = setup();
    const f = suspend();
    flags.items.set(flagKey, { flagKey, state: 'SUSPENDED' }); // no expiresAt, no orgId
    flags.items.set(orgFlagItemKey(flagKey), {
      ...f,
      flagKey: orgFlagItemKey(flagKey),
      scope: 'organization',
    });
    expect(await guard.check(key.apiKey)).toMatchObject({ action: 'respond', reason: 'suspended' });
  });
});
