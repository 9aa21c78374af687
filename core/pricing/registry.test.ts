import { calcPrice } from '@pydantic/genai-prices';
import { loadBundledProviders } from './bundled-data';
import {
  calculateCost,
  createPriceRegistry,
  getDefaultPriceRegistry,
  loadPriceRegistry,
  PriceDataError,
  type PricingUsage,
  type ProviderData,
} from './index';
import { PRICE_PATCHES } from './supplements';

const AT = Date.UTC(2025, 9, 1, 12);
const usage = (inputTokens: number, outputTokens: number): PricingUsage => ({
  inputTokens,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  outputTokens,
  reasoningTokens: 0,
});

const tinyDataset = (gpt4oInput: number): ProviderData[] => [
  {
    id: 'openai',
    name: 'OpenAI',
    models: [
      { id: 'gpt-4o', match: { starts_with: 'gpt-4o' }, prices: { input_mtok: gpt4oInput, output_mtok: 10 } },
    ],
  },
];

describe('price registry', () => {
  it('is built once from the bundled data', () => {
    const registry = getDefaultPriceRegistry();

    expect(registry.origin).toBe('bundled');
    expect(registry.version).toBe('genai-prices@0.1.8');
    expect(getDefaultPriceRegistry()).toBe(registry);
    expect(registry.providerIds).toEqual(
      expect.arrayContaining([
        'openai',
        'anthropic',
        'openrouter',
        'google',
        'groq',
        'together',
        'mistral',
        'deepseek',
        'x-ai',
      ]),
    );
    expect(registry.modelCount).toBeGreaterThan(1_000);
  });

  it('can be swapped at runtime: each registry prices from its own data', () => {
    const cheap = createPriceRegistry(tinyDataset(1));
    const dear = createPriceRegistry(tinyDataset(5));
    const input = { provider: 'openai', usage: { ...usage(1_000_000, 0), model: 'gpt-4o' }, at: AT };

    expect(calculateCost(input, cheap).costNanos).toBe(1_000_000_000);
    expect(calculateCost(input, dear).costNanos).toBe(5_000_000_000);
    expect(calculateCost(input).costNanos).toBe(2_500_000_000);
  });

  it('loads a valid snapshot', () => {
    const snapshot = JSON.stringify(loadBundledProviders());

    const { registry, snapshotError } = loadPriceRegistry(snapshot, { version: 'sha256:abc 2025-10-06' });

    expect(snapshotError).toBeUndefined();
    expect(registry.origin).toBe('snapshot');
    expect(registry.version).toBe('sha256:abc 2025-10-06');
    expect(registry.resolve('anthropic', 'claude-sonnet-4-20250514').matchedModel).toBe('claude-sonnet-4-0');
  });

  it.each([
    ['no snapshot', null],
    ['an invalid snapshot', [{ id: 'openai' }]],
    ['a snapshot that fails sanity checks', tinyDataset(1)],
  ])('falls back to the bundled data given %s', (_label, snapshot) => {
    const { registry, snapshotError } = loadPriceRegistry(snapshot);

    expect(registry).toBe(getDefaultPriceRegistry());
    expect(snapshotError).toEqual(expect.any(String));
  });

  it('reports data it cannot compile', () => {
    const broken: ProviderData[] = [
      {
        id: 'openai',
        name: 'OpenAI',
        models: [{ id: 'x', match: { regex: '([' }, prices: { input_mtok: 1 } }],
      },
    ];

    expect(() => createPriceRegistry(broken)).toThrow(PriceDataError);
  });

  it('bounds the resolution cache', () => {
    const registry = createPriceRegistry(tinyDataset(1), { resolutionCacheSize: 2 });
    const first = registry.resolve('openai', 'gpt-4o');

    expect(registry.resolve('openai', 'gpt-4o')).toBe(first);
    registry.resolve('openai', 'gpt-4o-mini');
    registry.resolve('openai', 'gpt-4o-2024-08-06');
    expect(registry.resolve('openai', 'gpt-4o')).not.toBe(first);
    expect(registry.resolve('openai', 'gpt-4o')).toEqual(first);
  });

  /**
   * Parity with genai-prices' own engine: every token-priced model of the providers Spendguard serves
   * costs the same (to the nano) as `calcPrice`, for a call under every long-context threshold.
   * Patched models (supplements.ts) and Claude models whose missing cache prices we derive are
   * compared on input and output only, which the patches do not change below 128k tokens.
   */
  it('agrees with genai-prices calcPrice on every model of the ten providers', () => {
    const registry = getDefaultPriceRegistry();
    const providers = [
      'openai',
      'anthropic',
      'openrouter',
      'google',
      'groq',
      'together',
      'mistral',
      'deepseek',
      'x-ai',
    ];
    const patched = new Set(PRICE_PATCHES.flatMap((p) => p.modelIds.map((id) => `${p.provider}/${id}`)));
    let compared = 0;
    const mismatches: string[] = [];
    for (const datasetId of providers) {
      for (const model of registry.listModels(datasetId)) {
        if (!model.tokenPriced || model.supplemental) continue;
        const theirs = calcPrice({ input_tokens: 12_345, output_tokens: 6_789 }, model.id, {
          providerId: datasetId,
          timestamp: new Date(AT),
        });
        if (theirs === null || theirs.model.id !== model.id) continue; // id not matched by its own rule
        const ours = calculateCost(
          { provider: datasetId, usage: { ...usage(12_345, 6_789), model: model.id }, at: AT },
          registry,
        );
        const expectedNanos = theirs.total_price * 1e9;
        if (Math.abs(ours.costNanos - expectedNanos) > 1 + expectedNanos * 1e-12) {
          mismatches.push(`${datasetId}/${model.id}: ours ${ours.costNanos} vs ${expectedNanos}`);
        }
        compared += patched.has(`${datasetId}/${model.id}`) ? 0 : 1;
      }
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(900);
  });
});
