import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { generateApiKey, hashApiKey, type KeyScope } from '../../core/keys';
import { MemoryApiKeyStore } from '../../local/proxy/memory-stores';
import { ApiKeyAuthenticator } from '../shared/api-key-auth';
import { RECENT_VERIFICATION_WINDOW_MS, RelayKeyAuth } from './key-auth';

const PEPPER = 'key-auth-test-pepper-0123456789abcdef';

/** A key store that can be taken down, an authenticator over it with a 30 s cache, and a clock. */
async function setup(scopes?: KeyScope[]) {
  const store = new MemoryApiKeyStore();
  let now = 1_700_000_000_000;
  const clock = () => now;
  const k = generateApiKey((n) => randomBytes(n));
  await store.create({
    publicId: k.publicId,
    orgId: 'org_a',
    prefix: k.prefix,
    hash: hashApiKey(k.apiKey, PEPPER),
    name: 'k',
    createdAt: '',
    revokedAt: null,
    ...(scopes ? { scopes } : {}),
  });
  const verifier = new ApiKeyAuthenticator({ keys: store, pepper: async () => PEPPER, now: clock });
  const auth = new RelayKeyAuth(verifier, { now: clock });
  return {
    store,
    auth,
    key: k,
    advance: (ms: number) => {
      now += ms;
    },
    down: () => {
      store.failWith = new Error('dynamodb unreachable');
    },
    up: () => {
      store.failWith = undefined;
    },
  };
}

describe('RelayKeyAuth: identity fails closed (issue 15.5)', () => {
  it('refuses every key as unavailable when the store is down and nothing was verified', async () => {
    const s = await setup();
    s.down();
    expect(await s.auth.check(s.key.apiKey)).toEqual({ kind: 'unavailable' });
    // A key never issued, well-formed: the same answer (no guess at the owner, no forwarding).
    expect(await s.auth.check(generateApiKey((n) => randomBytes(n)).apiKey)).toEqual({ kind: 'unavailable' });
  });

  it('forwards a key verified within the window while the store is down, and stops when the window lapses', async () => {
    const s = await setup();
    expect((await s.auth.check(s.key.apiKey)).kind).toBe('valid');
    s.down();
    s.advance(31_000); // past the authenticator's cache: the store is really asked, and fails
    expect(await s.auth.check(s.key.apiKey)).toMatchObject({
      kind: 'unverified',
      principal: { orgId: 'org_a', publicId: s.key.publicId },
    });
    s.advance(RECENT_VERIFICATION_WINDOW_MS - 31_000 + 1);
    expect(await s.auth.check(s.key.apiKey)).toEqual({ kind: 'unavailable' });
  });

  it('each successful verification renews the window', async () => {
    const s = await setup();
    await s.auth.check(s.key.apiKey);
    s.advance(RECENT_VERIFICATION_WINDOW_MS - 1000);
    expect((await s.auth.check(s.key.apiKey)).kind).toBe('valid');
    s.down();
    s.advance(RECENT_VERIFICATION_WINDOW_MS - 1000);
    expect((await s.auth.check(s.key.apiKey)).kind).toBe('unverified');
  });

  it('does not lend a verification to another key with the same public id', async () => {
    const s = await setup();
    await s.auth.check(s.key.apiKey);
    s.down();
    s.advance(31_000);
    const forged = `${s.key.prefix}_${'A'.repeat(43)}`;
    expect(await s.auth.check(forged)).toEqual({ kind: 'unavailable' });
  });

  it('forgets a key once it is seen revoked, so an outage right after cannot revive it', async () => {
    const s = await setup();
    await s.auth.check(s.key.apiKey);
    await s.store.revoke('org_a', s.key.publicId, '2026-01-01T00:00:00Z');
    s.advance(31_000);
    expect(await s.auth.check(s.key.apiKey)).toEqual({ kind: 'invalid' });
    s.down();
    s.advance(31_000);
    expect(await s.auth.check(s.key.apiKey)).toEqual({ kind: 'unavailable' });
  });

  it('a revocation reaches the relay within the 30 s cache while the store is up', async () => {
    const s = await setup();
    await s.auth.check(s.key.apiKey);
    await s.store.revoke('org_a', s.key.publicId, '2026-01-01T00:00:00Z');
    s.advance(30_000);
    expect(await s.auth.check(s.key.apiKey)).toEqual({ kind: 'invalid' });
  });

  it('needs the proxy scope; keys stored without scopes carry it', async () => {
    const legacy = await setup();
    expect((await legacy.auth.check(legacy.key.apiKey)).kind).toBe('valid');
    const telemetry = await setup(['ingest', 'read']);
    expect(await telemetry.auth.check(telemetry.key.apiKey)).toMatchObject({
      kind: 'forbidden',
      needed: 'proxy',
    });
    // A key refused for its scope is not remembered: an outage does not turn it into a forwarded call.
    telemetry.down();
    telemetry.advance(31_000);
    expect(await telemetry.auth.check(telemetry.key.apiKey)).toEqual({ kind: 'unavailable' });
  });

  it('property: during an outage, a key is forwarded exactly when its last verification is within the window', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            gapMs: fc.integer({ min: 0, max: 2 * RECENT_VERIFICATION_WINDOW_MS }),
            up: fc.boolean(),
          }),
          {
            minLength: 1,
            maxLength: 12,
          },
        ),
        async (steps) => {
          const s = await setup();
          let lastVerified: number | undefined;
          let t = 0;
          for (const step of steps) {
            s.advance(step.gapMs);
            t += step.gapMs;
            if (step.up) s.up();
            else s.down();
            const out = await s.auth.check(s.key.apiKey);
            if (step.up) {
              expect(out.kind).toBe('valid');
              lastVerified = t;
            } else {
              // The authenticator's 30 s cache may still answer from its last read: that is a verification too.
              const forwarded = out.kind === 'valid' || out.kind === 'unverified';
              if (out.kind === 'valid') lastVerified = t;
              expect(forwarded).toBe(
                lastVerified !== undefined && t - lastVerified <= RECENT_VERIFICATION_WINDOW_MS,
              );
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
