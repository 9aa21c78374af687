/**
 * Test wiring shared by the proxy's tests and the benchmark: fake providers, in-memory stores with one
 * organization and key, and a proxy in front.
 */
import { randomBytes } from 'node:crypto';
import { flagKeyFor, generateApiKey, hashApiKey } from '../../core/keys';
import { MemoryMetrics } from '../../lambdas/edge-guard/metrics';
import type { FlagRecord, FlagState } from '../../lambdas/shared/stores/flag-store';
import { startMockProviders, type MockProviders, type MockProvidersOptions } from '../mock-providers';
import { createLocalProxy, type LocalProxy, type LocalProxyOptions } from './local-proxy';
import { MemoryApiKeyStore, MemoryEventSink, MemoryFlagStore } from './memory-stores';

export const TEST_PEPPER = 'test-pepper-0123456789abcdef0123456789abcdef';
export const TEST_ORG = 'org_test';

export interface ProxyHarness {
  readonly mock: MockProviders;
  readonly proxy: LocalProxy;
  readonly flags: MemoryFlagStore;
  readonly keys: MemoryApiKeyStore;
  readonly sink: MemoryEventSink;
  readonly metrics: MemoryMetrics;
  /** A valid key of {@link TEST_ORG}. */
  readonly apiKey: string;
  readonly publicId: string;
  /** Creates another valid key of the organization. */
  newKey(): Promise<{ apiKey: string; publicId: string; prefix: string }>;
  /** Writes a key-scope flag for a key (by prefix), expiring `ttlSeconds` from now. */
  flag(prefix: string, state: FlagState, ttlSeconds: number, triggerType?: string): Promise<FlagRecord>;
  close(): Promise<void>;
}

export async function startProxyHarness(
  opts: { mock?: MockProvidersOptions; proxy?: Partial<LocalProxyOptions> } = {},
): Promise<ProxyHarness> {
  const mock = await startMockProviders({ port: 0, ...opts.mock });
  const flags = new MemoryFlagStore();
  const keys = new MemoryApiKeyStore();
  const sink = new MemoryEventSink();
  const metrics = new MemoryMetrics();
  const newKey = async () => {
    const k = generateApiKey((n) => randomBytes(n));
    await keys.create({
      publicId: k.publicId,
      orgId: TEST_ORG,
      prefix: k.prefix,
      hash: hashApiKey(k.apiKey, TEST_PEPPER),
      name: 'test',
      createdAt: new Date().toISOString(),
      revokedAt: null,
    });
    return { apiKey: k.apiKey, publicId: k.publicId, prefix: k.prefix };
  };
  const first = await newKey();
  const proxy = await createLocalProxy({
    port: 0,
    flags,
    apiKeys: keys,
    sink,
    pepper: TEST_PEPPER,
    upstreams: mock.baseUrls,
    metrics,
    ...opts.proxy,
  });
  return {
    mock,
    proxy,
    flags,
    keys,
    sink,
    metrics,
    apiKey: first.apiKey,
    publicId: first.publicId,
    newKey,
    flag: async (prefix, state, ttlSeconds, triggerType = 'token_loop_identical') => {
      const now = Date.now();
      const record: FlagRecord = {
        flagKey: flagKeyFor(prefix, TEST_PEPPER),
        orgId: TEST_ORG,
        scope: 'key',
        keyId: prefix.slice('abn_'.length),
        sessionId: null,
        state,
        triggerType,
        observedValue: 4,
        thresholdValue: 4,
        mode: 'hard_stop',
        setAt: new Date(now).toISOString(),
        expiresAt: Math.floor(now / 1000) + ttlSeconds,
      };
      await flags.put(record, now);
      return record;
    },
    close: async () => {
      await proxy.close();
      await mock.close();
    },
  };
}
