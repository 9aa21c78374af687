import fc from 'fast-check';
import {
  calculateCost,
  compileOrgRates,
  MAX_PROVIDER_RATES,
  orgRatesSchema,
  type OrgRates,
  type PricingUsage,
} from './index';

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

describe('provider multipliers: keys and bound', () => {
  const HEAD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const TAIL = `${HEAD}_-`;
  const char = (set: string) => fc.constantFrom(...set.split(''));
  /** A provider id as events name it, in any case: 1 to 64 characters, the longest drawn often. */
  const providerKey = fc
    .tuple(char(HEAD), fc.array(char(TAIL), { maxLength: 63 }), fc.boolean())
    .map(([h, t, full]) => (full ? h + t.join('').padEnd(63, 'x') : h + t.join('')));
  const notAllowed = fc.constantFrom(' ', '.', ':', '/', '*', '\u0000', '\n', 'é', '\u00a0');
  const issues = (providers: Record<string, number>) => {
    const r = orgRatesSchema.safeParse({ providers });
    return r.success ? [] : r.error.issues.map((i) => ({ path: i.path, message: i.message }));
  };

  it('accepts every provider id, in any case; compiles it lower-cased', () => {
    fc.assert(
      fc.property(providerKey, (key) => {
        expect(issues({ [key]: 0.5 })).toEqual([]);
        expect(compileOrgRates({ providers: { [key]: 0.5 } }).providers.get(key.toLowerCase())).toEqual({
          num: 1,
          den: 2,
        });
      }),
    );
  });

  it('refuses a key with a character an id does not have, a leading - or _, or a 65th character, naming it', () => {
    const bad = fc.oneof(
      fc.tuple(providerKey, notAllowed, fc.nat()).map(([k, c, at]) => {
        const i = at % (k.length + 1);
        return k.slice(0, i) + c + k.slice(i);
      }),
      fc.tuple(fc.constantFrom('-', '_'), providerKey).map(([c, k]) => (c + k).slice(0, 64)),
      providerKey.map((k) => k.padEnd(65, 'a')),
    );
    fc.assert(
      fc.property(bad, (key) => {
        expect(issues({ [key]: 0.5 })).toEqual([{ path: ['providers', key], message: expect.any(String) }]);
      }),
    );
  });

  it(`accepts up to ${MAX_PROVIDER_RATES} keys and refuses more with one problem`, () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_PROVIDER_RATES - 2, max: MAX_PROVIDER_RATES + 2 }), (n) => {
        const providers = Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, 1]));
        const found = issues(providers);
        expect(found).toEqual(
          n <= MAX_PROVIDER_RATES ? [] : [{ path: ['providers'], message: expect.any(String) }],
        );
      }),
      { numRuns: 20 },
    );
  });

  it('refuses two keys that name one provider in different case', () => {
    expect(issues({ Anthropic: 0.5, anthropic: 0.9 })).toEqual([
      { path: ['providers', 'anthropic'], message: 'names the same provider as another key (anthropic)' },
    ]);
  });
});
