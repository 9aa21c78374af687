import { calculateCost, compileOrgRates, orgRatesSchema, type OrgRates, type PricingUsage } from './index';

const AT = Date.UTC(2025, 10, 23);
const million = (model: string): PricingUsage => ({
  model,
  inputTokens: 1_000_000,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  outputTokens: 1_000_000,
  reasoningTokens: 0,
});
const price = (provider: string, model: string, orgRates: OrgRates) =>
  calculateCost({ provider, usage: million(model), at: AT, orgRates: compileOrgRates(orgRates) });

describe('org rates for endpoint families', () => {
  const rates: OrgRates = {
    models: {
      'llama:*': { inputUsdPerMTok: 0.1, outputUsdPerMTok: 0.2 },
      'llama:llama-3.3-*': { inputUsdPerMTok: 0.3, outputUsdPerMTok: 0.4 },
      'llama:llama-3.3-70b-instruct': { inputUsdPerMTok: 0.5, outputUsdPerMTok: 0.6 },
    },
  };

  it('prices every model of a self-hosted provider by `provider:*`, and says ORG_RATE', () => {
    expect(price('llama', 'Mistral-Small-24B', rates)).toMatchObject({
      costNanos: 300_000_000,
      costSource: 'ORG_RATE',
      orgRate: 'override',
      matchedModel: 'mistral-small-24b',
    });
  });

  it('prefers an exact key, then the longest prefix', () => {
    expect(price('llama', 'Llama-3.3-70B-Instruct', rates).costNanos).toBe(1_100_000_000);
    expect(price('llama', 'llama-3.3-8b', rates).costNanos).toBe(700_000_000);
  });

  it('does not apply a provider pattern to another provider', () => {
    expect(price('together', 'meta-llama/Llama-3.3-70B-Instruct-Turbo', rates).costSource).not.toBe(
      'ORG_RATE',
    );
  });

  it('accepts $0 (hardware already paid for)', () => {
    expect(
      price('llama', 'qwen2.5-coder', { models: { 'llama:*': { inputUsdPerMTok: 0, outputUsdPerMTok: 0 } } }),
    ).toMatchObject({ costNanos: 0, costSource: 'ORG_RATE' });
  });

  it.each([
    [{ models: { 'llama:*x': { inputUsdPerMTok: 1, outputUsdPerMTok: 1 } } }, 'models'],
    [{ models: { 'llama:*': { inputUsdPerMTok: -1, outputUsdPerMTok: 1 } } }, 'models'],
    [{ models: { 'llama:*': { inputUsdPerMTok: 1 } } }, 'models'],
    [{ multiplier: 101 }, 'multiplier'],
    [{ rates: {} }, ''],
  ])('rejects %j at %s', (input, path) => {
    const parsed = orgRatesSchema.safeParse(input);

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path.join('.').startsWith(path)).toBe(true);
  });
});
