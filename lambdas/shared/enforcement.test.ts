import { randomBytes } from 'node:crypto';
import { flagKeyFor, generateApiKey } from '../../core/keys';
import { MemoryApiKeyStore, MemoryFlagStore } from '../../local/proxy/memory-stores';
import {
  clearFlags,
  coverKeyWithOrgFlags,
  flagTarget,
  FlagTargetError,
  pushFlag,
  type EnforcementDeps,
} from './enforcement';
import { enforcementOf } from './enforcement-state';
import { guardItemKeys, orgFlagItemKey, sessionFlagItemKey, sessionOfHeader } from './flag-item-keys';
import type { FlagRecord } from './stores/flag-store';

const PEPPER = 'pepper-for-enforcement-tests-0123456789';
const ORG = 'org_e';
const T0 = Date.parse('2026-11-22T10:00:00.000Z');

async function setup() {
  const keys = new MemoryApiKeyStore();
  const flags = new MemoryFlagStore();
  const deps: EnforcementDeps = { keys, flags, pepper: PEPPER };
  const newKey = async (revoked = false) => {
    const k = generateApiKey((n) => randomBytes(n));
    const record = {
      publicId: k.publicId,
      orgId: ORG,
      prefix: k.prefix,
      hash: 'h',
      name: 'k',
      createdAt: new Date(T0).toISOString(),
      revokedAt: revoked ? new Date(T0).toISOString() : null,
    };
    await keys.create(record);
    return { ...record, flagKey: flagKeyFor(k.prefix, PEPPER) };
  };
  return { keys, flags, deps, newKey };
}

const verdict = {
  orgId: ORG,
  action: 'SUSPENDED' as const,
  triggerType: 'token_loop_identical',
  observedValue: 4,
  thresholdValue: 4,
  mode: 'hard_stop',
};

describe('flagTarget', () => {
  it('keeps a named session, falls back to the key without one, and ignores both for the organization', () => {
    expect(flagTarget('session', 'k1', 's1')).toEqual({ scope: 'session', keyId: 'k1', sessionId: 's1' });
    expect(flagTarget('session', 'k1', null)).toEqual({ scope: 'key', keyId: 'k1', sessionId: null });
    expect(flagTarget('session', 'k1', '')).toEqual({ scope: 'key', keyId: 'k1', sessionId: null });
    expect(flagTarget('key', 'k1', 's1')).toEqual({ scope: 'key', keyId: 'k1', sessionId: null });
    expect(flagTarget('organization', 'k1', 's1')).toEqual({
      scope: 'organization',
      keyId: null,
      sessionId: null,
    });
    expect(() => flagTarget('key', null, null)).toThrow(FlagTargetError);
  });
});

describe('pushFlag and clearFlags', () => {
  it('writes organization flags on every unrevoked key, a session flag on its key only', async () => {
    const { flags, deps, newKey } = await setup();
    const a = await newKey();
    const b = await newKey();
    const revoked = await newKey(true);
    const org = await pushFlag(deps, { ...verdict, triggerType: 'budget_daily_hard' }, T0);
    expect(org).toMatchObject({ scope: 'organization', keyId: null, keysFlagged: 2 });
    const session = await pushFlag(deps, { ...verdict, target: flagTarget('session', a.publicId, 's1') }, T0);
    expect(session).toMatchObject({ scope: 'session', keyId: a.publicId, sessionId: 's1', keysFlagged: 1 });
    expect([...flags.items.keys()].sort()).toEqual(
      [orgFlagItemKey(a.flagKey), orgFlagItemKey(b.flagKey), sessionFlagItemKey(a.flagKey, 's1')].sort(),
    );
    expect(flags.items.has(orgFlagItemKey(revoked.flagKey))).toBe(false);
  });

  it('writes nothing for a key of another organization or a revoked key', async () => {
    const { flags, deps, newKey } = await setup();
    const revoked = await newKey(true);
    const a = await newKey();
    const other = await pushFlag(
      deps,
      { ...verdict, orgId: 'org_other', target: flagTarget('key', a.publicId, null) },
      T0,
    );
    const gone = await pushFlag(deps, { ...verdict, target: flagTarget('key', revoked.publicId, null) }, T0);
    expect([other.keysFlagged, gone.keysFlagged, flags.items.size]).toEqual([0, 0, 0]);
  });

  it('clears exactly one scope, or everything without one', async () => {
    const { flags, deps, newKey } = await setup();
    const a = await newKey();
    await pushFlag(deps, verdict, T0);
    await pushFlag(deps, { ...verdict, target: flagTarget('key', a.publicId, null) }, T0);
    await pushFlag(deps, { ...verdict, target: flagTarget('session', a.publicId, 's1') }, T0);
    await pushFlag(deps, { ...verdict, target: flagTarget('session', a.publicId, 's2') }, T0);

    expect(await clearFlags(deps, ORG, T0, flagTarget('session', a.publicId, 's1'))).toBe(1);
    expect([...flags.items.values()].map((f) => `${f.scope}:${f.sessionId}`).sort()).toEqual([
      'key:null',
      'organization:null',
      'session:s2',
    ]);
    expect(await clearFlags(deps, ORG, T0, flagTarget('key', a.publicId, null))).toBe(1);
    expect(await clearFlags(deps, ORG, T0, flagTarget('organization', null, null))).toBe(1);
    expect([...flags.items.values()].map((f) => f.sessionId)).toEqual(['s2']);
    expect(await clearFlags(deps, ORG, T0)).toBe(1);
    expect(flags.items.size).toBe(0);
  });

  it('covers a key created during an organization flag with the strongest one, and nothing otherwise', async () => {
    const { flags, deps, newKey } = await setup();
    const services = { flags, pepper: { get: async () => PEPPER }, now: () => T0 };
    const first = await newKey();
    await pushFlag(deps, { ...verdict, target: flagTarget('session', first.publicId, 's1') }, T0);
    const beforeAnyOrgFlag = await newKey();
    expect(await coverKeyWithOrgFlags(services, beforeAnyOrgFlag)).toBe(false);

    await pushFlag(deps, { ...verdict, action: 'THROTTLED', triggerType: 'premium_concentration' }, T0);
    await pushFlag(deps, { ...verdict, triggerType: 'budget_daily_hard', ttlSeconds: 600 }, T0);
    const late = await newKey();
    expect(await coverKeyWithOrgFlags(services, late)).toBe(true);
    expect(flags.items.get(orgFlagItemKey(late.flagKey))).toMatchObject({
      scope: 'organization',
      keyId: late.publicId,
      state: 'SUSPENDED',
      triggerType: 'budget_daily_hard',
      expiresAt: T0 / 1000 + 600,
    });
  });
});

describe('enforcementOf', () => {
  const base = (over: Partial<FlagRecord>): FlagRecord => ({
    flagKey: 'x',
    orgId: ORG,
    scope: 'organization',
    keyId: 'k1',
    sessionId: null,
    state: 'SUSPENDED',
    triggerType: 'budget_daily_hard',
    observedValue: 1,
    thresholdValue: 1,
    mode: 'hard_stop',
    setAt: new Date(T0).toISOString(),
    expiresAt: T0 / 1000 + 100,
    ...over,
  });

  it('lists the flags of the organization, the key and its sessions; only org or key SUSPENDED blocks', () => {
    const session = base({ scope: 'session', sessionId: 'agent-7', triggerType: 'token_loop_identical' });
    expect(enforcementOf([session, base({ scope: 'key', keyId: 'k2' })], 'k1', T0)).toEqual({
      blocked: false,
      flags: [
        {
          scope: 'session',
          state: 'SUSPENDED',
          sessionId: 'agent-7',
          triggerType: 'token_loop_identical',
          expiresAt: new Date(T0 + 100_000).toISOString(),
          retryAfterSeconds: 100,
        },
      ],
    });
    const throttledKey = base({ scope: 'key', state: 'THROTTLED', triggerType: 'rps_burst' });
    expect(enforcementOf([throttledKey], 'k1', T0).blocked).toBe(false);
    // An organization flag is stored once per key: the caller's copy counts, once.
    const orgFlags = [base({}), base({ keyId: 'k2' }), base({ keyId: null })];
    const state = enforcementOf([...orgFlags, throttledKey], 'k1', T0);
    expect(state.blocked).toBe(true);
    expect(state.flags.map((f) => `${f.scope}:${f.state}`)).toEqual([
      'organization:SUSPENDED',
      'key:THROTTLED',
    ]);
    expect(enforcementOf([base({ expiresAt: T0 / 1000 })], 'k1', T0)).toEqual({ blocked: false, flags: [] });
  });
});

describe('flag item keys', () => {
  it('reads a session as the relay records it: first value, truncated to 256, empty is none', () => {
    expect(sessionOfHeader(undefined)).toBeUndefined();
    expect(sessionOfHeader('')).toBeUndefined();
    expect(sessionOfHeader(['a', 'b'])).toBe('a');
    expect(sessionOfHeader('s'.repeat(300))).toBe('s'.repeat(256));
  });

  it('gives each scope its own bounded item key under the key', () => {
    const fk = 'f'.repeat(64);
    const long = sessionFlagItemKey(fk, 'x'.repeat(256));
    expect(long).toMatch(/^f{64}#s#[0-9a-f]{32}$/);
    expect(sessionFlagItemKey(fk, 'a')).not.toBe(sessionFlagItemKey(fk, 'b'));
    expect(guardItemKeys(fk, undefined)).toEqual([fk, `${fk}#org`]);
    expect(guardItemKeys(fk, 'a')).toEqual([fk, `${fk}#org`, sessionFlagItemKey(fk, 'a')]);
  });
});
