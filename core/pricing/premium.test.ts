import {
  createPriceRegistry,
  getDefaultPriceRegistry,
  isPremiumModel,
  listPremiumModels,
  PREMIUM_OUTPUT_USD_PER_MTOK,
  type ProviderData,
} from './index';

describe('isPremiumModel', () => {
  it.each([
    ['anthropic', 'claude-opus-4-1-20250805', true], // $75 output
    ['anthropic', 'claude-opus-4-5', true], // $25 output: at the threshold
    ['anthropic', 'claude-sonnet-4-20250514', false], // $15
    ['anthropic', 'claude-haiku-4-5', false],
    ['openai', 'o1', true], // $60
    ['openai', 'o3-pro', true], // $80
    ['openai', 'gpt-5-pro', true], // $120
    ['openai', 'gpt-4.5-preview', true], // $150
    ['openai', 'gpt-5', false], // $10
    ['openai', 'gpt-4o', false], // $10
    ['openai', 'o3', false], // $8 since 2025-06-10 ($40 before, see below)
    ['gemini', 'gemini-2.5-pro', false], // $10, $15 above 200k: bands do not count
    ['openrouter', 'anthropic/claude-opus-4', true],
    ['bedrock', 'us.anthropic.claude-opus-4-1-20250805-v1:0', true],
    ['groq', 'llama-3.3-70b-versatile', false],
    // unknown models: only named families count
    ['anthropic', 'claude-opus-9', true],
    ['openai', 'o1-pro-2027', true],
    ['openai', 'gpt-9-ultra', false], // generic 'gpt' family, $50 guess
    ['together', 'acme/custom-model', false], // catch-all, $30 guess
  ])('%s %s → %p', (provider, model, premium) => {
    expect(isPremiumModel(provider, model)).toBe(premium);
  });

  it('uses the list price in force at the given time (o3 launched at $40 output, $8 since 2025-06-10)', () => {
    const o3 = getDefaultPriceRegistry().findModel('openai', 'o3');

    expect(o3?.periods.map((period) => period.price.base.output)).toEqual([40_000_000, 8_000_000]);
    expect(isPremiumModel('openai', 'o3', { at: Date.UTC(2025, 4, 1) })).toBe(true);
    expect(isPremiumModel('openai', 'o3', { at: new Date('2025-07-01T00:00:00Z') })).toBe(false);
    expect(isPremiumModel('openai', 'o3')).toBe(false);
  });

  it('follows the registry it is given', () => {
    const data: ProviderData[] = [
      {
        id: 'openai',
        name: 'OpenAI',
        models: [{ id: 'gpt-4o', match: { equals: 'gpt-4o' }, prices: { input_mtok: 10, output_mtok: 40 } }],
      },
    ];
    const registry = createPriceRegistry(data);

    expect(isPremiumModel('openai', 'gpt-4o', { registry })).toBe(true);
    expect(isPremiumModel('openai', 'gpt-4o')).toBe(false);
  });

  it('marks the expensive tail only: between the 85th and 97th percentile of output prices', () => {
    const registry = getDefaultPriceRegistry();
    const ours = [
      'openai',
      'anthropic',
      'google',
      'groq',
      'together',
      'mistral',
      'deepseek',
      'x-ai',
      'openrouter',
    ];
    const models = ours.flatMap((id) => registry.listModels(id)).filter((m) => m.tokenPriced);
    const premium = new Set(ours.flatMap((id) => listPremiumModels(registry, id)));
    const share = premium.size / models.length;

    expect(PREMIUM_OUTPUT_USD_PER_MTOK).toBe(25);
    expect(share).toBeGreaterThan(0.03);
    expect(share).toBeLessThan(0.15);
  });
});
