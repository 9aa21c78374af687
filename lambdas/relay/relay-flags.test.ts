/**
 * Issue 19.5: a call that reaches the relay's Function URL without CloudFront meets the same kill flags,
 * and a relay that cannot read the origin secret refuses instead of letting anyone through.
 */
import { randomBytes } from 'node:crypto';
import { flagKeyFor, generateApiKey, hashApiKey } from '../../core/keys';
import { MemoryApiKeyStore, MemoryEventSink } from '../../local/proxy/memory-stores';
import { startMockProviders, type MockProviders } from '../../local/mock-providers';
import { EdgeGuard, type FlagSource } from '../edge-guard/guard';
import { MemoryMetrics } from '../edge-guard/metrics';
import { ApiKeyAuthenticator } from '../shared/api-key-auth';
import type { FlagRecord } from '../shared/stores/flag-store';
import { Relay, type RelayOptions, type RelayResponder } from './relay';

const PEPPER = 'relay-flags-pepper-0123456789abcdef0123';

class Flags implements FlagSource {
  readonly items = new Map<string, unknown>();
  getMany(flagKeys: readonly string[]): Promise<unknown[]> {
    return Promise.resolve(flagKeys.map((k) => this.items.get(k)).filter((i) => i !== undefined));
  }
}

function collect(): { responder: RelayResponder; out: { status: number; body: string } } {
  const out = { status: 0, body: '' };
  return {
    out,
    responder: {
      keepsContentLength: true,
      start: (status) => {
        out.status = status;
        return {
          write: (c: Buffer) => ((out.body += c.toString()), true),
          end: (c?: Buffer | string) => void (c !== undefined && (out.body += c.toString())),
          once: () => undefined,
          destroy: () => undefined,
        };
      },
    },
  };
}

let mock: MockProviders;
const keys = new MemoryApiKeyStore();
const key = generateApiKey((n) => randomBytes(n));

beforeAll(async () => {
  mock = await startMockProviders({ port: 0 });
  await keys.create({
    publicId: key.publicId,
    orgId: 'org_acme',
    prefix: key.prefix,
    hash: hashApiKey(key.apiKey, PEPPER),
    name: 'agent',
    createdAt: '',
    revokedAt: null,
  });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function relayWith(extra: Partial<RelayOptions>): { relay: Relay; metrics: MemoryMetrics } {
  const metrics = new MemoryMetrics();
  const relay = new Relay({
    keys: new ApiKeyAuthenticator({ keys, pepper: async () => PEPPER }),
    sink: new MemoryEventSink(),
    metrics,
    upstreams: mock.baseUrls,
    ...extra,
  });
  return { relay, metrics };
}

const call = (relay: Relay, headers: Record<string, string> = {}) => {
  const c = collect();
  return relay
    .handle(
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        headers: { 'service-api-key': key.apiKey, ...headers },
        body: Buffer.from(
          JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        ),
      },
      c.responder,
    )
    .then(() => c.out);
};

describe('kill flags at the relay (19.5)', () => {
  it('refuses a suspended key with the guard’s 429, without contacting the provider', async () => {
    const flags = new Flags();
    const { relay, metrics } = relayWith({ flags: new EdgeGuard({ flags, pepper: async () => PEPPER }) });
    expect((await call(relay)).status).toBe(200);
    const flagKey = flagKeyFor(key.prefix, PEPPER);
    const suspended: FlagRecord = {
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
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    };
    flags.items.set(flagKey, suspended);
    // a fresh guard (no cached lookup): the bypassing caller meets the flag
    const fresh = relayWith({ flags: new EdgeGuard({ flags, pepper: async () => PEPPER }) });
    const out = await call(fresh.relay);
    relay.destroy();
    fresh.relay.destroy();
    expect(out.status).toBe(429);
    expect(mock.requests()).toHaveLength(1);
    expect(fresh.metrics.get('RelayFlagRefused', { Reason: 'suspended' })).toBe(1);
    expect(metrics.get('RelayFlagRefused')).toBe(0);
  });

  it('fails closed (503, retryable) when the origin secret cannot be read', async () => {
    const { relay, metrics } = relayWith({ originSecret: () => Promise.reject(new Error('AccessDenied')) });
    const out = await call(relay, { 'x-spendguard-origin-secret': 'whatever' });
    relay.destroy();
    expect(out.status).toBe(503);
    expect(JSON.parse(out.body)).toMatchObject({ error: { code: 'origin_verification_unavailable' } });
    expect(mock.requests()).toHaveLength(0);
    expect(metrics.get('RelayUnverified', { Reason: 'origin_secret_unavailable' })).toBe(1);
  });
});
