import { getDefaultPriceRegistry, MAX_MODEL_NAME_LENGTH, normalizeModelName } from './index';

const registry = getDefaultPriceRegistry();

describe('normalizeModelName', () => {
  it('tries the exact name first, then the date-stripped name', () => {
    const { candidates, familyName } = normalizeModelName('GPT-4o-2024-08-06 ');

    expect(candidates.map((c) => c.model)).toEqual(['gpt-4o-2024-08-06', 'gpt-4o']);
    expect(familyName).toBe('gpt-4o');
  });

  it('rewrites compact dates as genai-prices does before stripping them', () => {
    const { candidates } = normalizeModelName('claude-sonnet-4-20250514');

    expect(candidates.map((c) => c.model)).toEqual([
      'claude-sonnet-4-20250514',
      'claude-sonnet-4-2025-05-14',
      'claude-sonnet-4',
    ]);
  });

  it('tries a vendor-prefixed name in the vendor list, then in the requested list', () => {
    const { candidates, familyName } = normalizeModelName('anthropic/claude-3.5-sonnet:beta');

    expect(candidates).toContainEqual({
      model: 'claude-3.5-sonnet',
      list: { kind: 'dataset', providerId: 'anthropic' },
    });
    expect(candidates[0]).toEqual({ model: 'anthropic/claude-3.5-sonnet:beta', list: { kind: 'requested' } });
    expect(familyName).toBe('claude-3.5-sonnet');
  });

  it('reduces Bedrock ids, fine-tunes and resource paths for the family heuristics', () => {
    expect(normalizeModelName('us.anthropic.claude-3-5-sonnet-20240620-v1:0').familyName).toBe(
      'claude-3-5-sonnet',
    );
    expect(normalizeModelName('ft:gpt-4o-mini-2024-07-18:acme:support:9xZ1').familyName).toBe('gpt-4o-mini');
    expect(
      normalizeModelName('projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro')
        .familyName,
    ).toBe('gemini-2.5-pro');
  });

  it('refuses names longer than the limit', () => {
    expect(normalizeModelName('x'.repeat(MAX_MODEL_NAME_LENGTH + 1)).candidates).toEqual([]);
  });
});

describe('model resolution', () => {
  it.each([
    // [provider, reported model, matched dataset model, pricing provider]
    ['openai', 'gpt-4o', 'gpt-4o', 'openai'],
    ['openai', 'GPT-4O', 'gpt-4o', 'openai'],
    ['openai', 'gpt-4o-2024-11-20', 'gpt-4o', 'openai'],
    ['openai', 'gpt-4o-2024-05-13', 'gpt-4o-2024-05-13', 'openai'], // dated snapshot with its own price
    ['openai', 'gpt-4.1-2026-01-01', 'gpt-4.1', 'openai'], // unknown date → base model
    ['openai', 'ft:gpt-4o-mini-2024-07-18:acme::9xZ1', 'ft:gpt-4o-mini', 'openai'], // dataset fine-tune price
    ['openai', 'ft:gpt-4.1-nano-2025-04-14:acme::9xZ1', 'ft:gpt-4.1-nano', 'openai'], // supplemental fine-tune price
    ['openai', 'ft:gpt-5-2025-08-07:acme::9xZ1', 'gpt-5', 'openai'], // no fine-tune price: base model
    ['anthropic', 'claude-sonnet-4-20250514', 'claude-sonnet-4-0', 'anthropic'],
    ['anthropic', 'anthropic.claude-3-5-sonnet-20240620-v1:0', 'claude-3-5-sonnet', 'anthropic'],
    ['anthropic', 'us.anthropic.claude-sonnet-4-20250514-v1:0', 'claude-sonnet-4-0', 'anthropic'],
    [
      'bedrock',
      'us.anthropic.claude-sonnet-4-20250514-v1:0',
      'regional.anthropic.claude-sonnet-4-20250514-v1:0',
      'aws',
    ],
    ['gemini', 'models/gemini-2.5-flash', 'gemini-2.5-flash', 'gemini'],
    [
      'gemini',
      'projects/p/locations/global/publishers/google/models/gemini-2.5-pro',
      'gemini-2.5-pro',
      'gemini',
    ],
    ['gemini', 'claude-sonnet-4@20250514', 'claude-4-sonnet', 'gemini'], // Claude on Vertex AI
    ['openrouter', 'openai/gpt-4o', 'openai/gpt-4o', 'openrouter'],
    ['openrouter', 'anthropic/claude-3.5-sonnet:beta', 'anthropic/claude-3.5-sonnet', 'openrouter'],
    ['openrouter', 'openai/o1-preview', 'o1-preview', 'openai'], // OpenRouter has no own price
    [
      'openrouter',
      'meta-llama/llama-3.3-70b-instruct:free',
      'meta-llama/llama-3.3-70b-instruct:free',
      'openrouter',
    ],
    ['xai', 'grok-4', 'grok-4-0709', 'xai'],
    ['groq', 'openai/gpt-oss-120b', 'openai/gpt-oss-120b', 'groq'],
    ['some-gateway', 'claude-3-5-haiku-20241022', 'claude-3-5-haiku-latest', 'anthropic'], // inferred
  ])('%s %s → %s (%s)', (provider, model, matchedModel, pricingProvider) => {
    const resolution = registry.resolve(provider, model);

    expect(resolution.costSource).toBe('PROVIDER_REGISTRY');
    expect(resolution.matchedModel).toBe(matchedModel);
    expect(resolution.provider).toBe(pricingProvider);
  });

  it.each([
    ['llama', 'Llama-3.3-70B-Instruct', 'fallback:open-weights-80b'],
    ['llama', 'Llama-4-Maverick-17B-128E-Instruct-FP8', 'fallback:open-weights-20b'],
    ['llama', 'llama3', 'fallback:llama'],
    ['openai', 'x'.repeat(MAX_MODEL_NAME_LENGTH + 1), 'fallback:gpt'],
    ['anthropic', '', 'fallback:claude'],
    ['openrouter', 'someone/brand-new-model', 'fallback:unknown'],
  ])('%s %s → %s', (provider, model, matchedModel) => {
    const resolution = registry.resolve(provider, model);

    expect(resolution.costSource).toBe('FALLBACK_ECONOMICS');
    expect(resolution.matchedModel).toBe(matchedModel);
  });

  it('resolves a null model through the fallback', () => {
    expect(registry.resolve('openai', null).costSource).toBe('FALLBACK_ECONOMICS');
  });
});
