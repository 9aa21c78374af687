/**
 * The Flags table on dynalite: conditional writes never downgrade a flag (issue 15.7), the edge's one
 * round trip reads key, organization and session items together, and items from before scopes read as
 * organization flags. The in-memory store of the proxy tests and the benchmark must agree with it.
 */
import fc from 'fast-check';
import { MemoryFlagStore } from '../../../local/proxy/memory-stores';
import { startBackendHarness, type BackendHarness } from '../../../test/backend-harness';
import { outranks, parseFlagItem, type FlagRecord, type FlagState } from './flag-store';

let h: BackendHarness;
beforeAll(async () => {
  h = await startBackendHarness();
});
afterAll(() => h.close());

const T0 = Date.parse('2026-11-22T10:00:00.000Z');

function flag(flagKey: string, state: FlagState, expiresAt: number, triggerType = 'rps_burst'): FlagRecord {
  return {
    flagKey,
    orgId: 'org_store',
    scope: 'key',
    keyId: 'k3v9x0q2m7za',
    sessionId: null,
    state,
    triggerType,
    observedValue: 11,
    thresholdValue: 10,
    mode: state === 'SUSPENDED' ? 'hard_stop' : 'throttle',
    setAt: new Date(T0).toISOString(),
    expiresAt,
  };
}

describe('DynamoFlagStore', () => {
  it('keeps an active SUSPENDED flag when a THROTTLED one is written over it', async () => {
    const flags = h.services.flags;
    const nowSec = T0 / 1000;
    expect(await flags.put(flag('fk-1', 'SUSPENDED', nowSec + 7200, 'budget_daily_hard'), T0)).toBe(true);
    expect(await flags.put(flag('fk-1', 'THROTTLED', nowSec + 1800), T0)).toBe(false);
    expect(await flags.get('fk-1', T0)).toMatchObject({
      state: 'SUSPENDED',
      triggerType: 'budget_daily_hard',
    });
    // A shorter suspension does not cut it short; a longer one extends it.
    expect(await flags.put(flag('fk-1', 'SUSPENDED', nowSec + 60), T0)).toBe(false);
    expect(await flags.put(flag('fk-1', 'SUSPENDED', nowSec + 9000), T0)).toBe(true);
    expect((await flags.get('fk-1', T0))?.expiresAt).toBe(nowSec + 9000);
    // Once it has expired (TTL deletes lazily), anything may take its place.
    expect(await flags.put(flag('fk-1', 'THROTTLED', nowSec + 9000 + 1800), (nowSec + 9000) * 1000)).toBe(
      true,
    );
  });

  it('reads several items in one call and skips missing and expired ones', async () => {
    const nowSec = T0 / 1000;
    await h.services.flags.put(flag('fk-2', 'SUSPENDED', nowSec + 60), T0);
    await h.services.flags.put(flag('fk-2#org', 'THROTTLED', nowSec + 60), T0);
    await h.services.flags.put(flag('fk-2#s#old', 'SUSPENDED', nowSec - 1), T0 - 10_000);
    const found = await h.services.flags.getMany(['fk-2', 'fk-2#org', 'fk-2#s#old', 'fk-2#s#none'], T0);
    expect(found.map((f) => f.flagKey).sort()).toEqual(['fk-2', 'fk-2#org']);
  });

  it("lists one key's items (key, organization copy, sessions) with one query, and nothing of another key", async () => {
    const nowSec = T0 / 1000;
    const [mine, theirs] = ['a'.repeat(64), 'b'.repeat(64)];
    for (const k of [mine, `${mine}#org`, `${mine}#s#1`, theirs, `${theirs}#org`]) {
      await h.services.flags.put(flag(k, 'SUSPENDED', nowSec + 60), T0);
    }
    await h.services.flags.put({ ...flag(`${mine}#s#2`, 'SUSPENDED', nowSec + 60), orgId: 'org_other' }, T0);
    const listed = await h.services.flags.listByKey('org_store', mine, T0);
    expect(listed.map((f) => f.flagKey).sort()).toEqual([mine, `${mine}#org`, `${mine}#s#1`]);
  });

  it('reads an item written before scopes as an organization flag', () => {
    // As the old code wrote it: one copy per key, for the whole organization, without scope attributes.
    const { scope: _s, keyId: _k, sessionId: _i, ...legacy } = flag('fk-legacy', 'SUSPENDED', T0 / 1000 + 60);
    expect(parseFlagItem(legacy)).toMatchObject({
      scope: 'organization',
      keyId: null,
      sessionId: null,
      state: 'SUSPENDED',
    });
    expect(parseFlagItem({ ...legacy, scope: 'team' })).toBeUndefined();
    expect(parseFlagItem({ ...legacy, state: 'PAUSED' })).toBeUndefined();
  });

  it('agrees with the in-memory store and never replaces an active flag with a weaker one', async () => {
    // One item per flag key holds one flag: a stronger flag may replace a weaker one (and, once it expires,
    // leave nothing), but no write may downgrade the flag that is active when it lands (issue 15.7).
    const write = fc.record({
      state: fc.constantFrom<FlagState>('SUSPENDED', 'THROTTLED'),
      ttl: fc.integer({ min: 1, max: 600 }),
      advance: fc.integer({ min: 0, max: 400 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 6 }), async (writes) => {
        const key = `fk-prop-${run++}`;
        const memory = new MemoryFlagStore();
        let nowSec = T0 / 1000;
        for (const w of writes) {
          nowSec += w.advance;
          const before = await h.services.flags.get(key, nowSec * 1000);
          const f = flag(key, w.state, nowSec + w.ttl);
          const inDynamo = await h.services.flags.put(f, nowSec * 1000);
          expect(await memory.put(f, nowSec * 1000)).toBe(inDynamo);
          const held = await h.services.flags.get(key, nowSec * 1000);
          expect(held).toBeDefined();
          if (before !== undefined) expect(outranks(before, held!)).toBe(false);
          expect(held).toEqual(inDynamo ? f : before);
        }
      }),
      { numRuns: 25 },
    );
  });
});
