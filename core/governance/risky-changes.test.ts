import fc from 'fast-check';
import { liftedCaps, ratesCut } from './risky-changes';

describe('liftedCaps', () => {
  it.each([
    [{ dailyLimitUsd: 50, action: 'block' }, { action: 'block' }, ['dailyLimitUsd']],
    [{ monthlyLimitUsd: 1000, action: 'block' }, { monthlyLimitUsd: 5000, action: 'block' }, []],
    [{ dailyLimitUsd: 5, action: 'block' }, { dailyLimitUsd: 5, action: 'warn' }, ['action']],
    [{ action: 'block' }, { action: 'log' }, []], // nothing was capped
    [{}, { dailyLimitUsd: 1, action: 'block' }, []],
    [{ dailyLimitUsd: 1, monthlyLimitUsd: 2, action: 'block' }, {}, ['dailyLimitUsd', 'monthlyLimitUsd']],
  ])('%j → %j finds %j', (before, after, fields) => {
    expect(liftedCaps(before, after).map((c) => c.field)).toEqual(fields);
  });
});

describe('ratesCut', () => {
  it('finds the issue’s $0 multiplier', () => {
    expect(ratesCut({}, { multiplier: 0 })).toEqual([
      { field: 'multiplier', before: 1, after: 0, message: 'multiplier cut from 1 to 0' },
    ]);
  });

  it.each([
    [{ multiplier: 0.9 }, { multiplier: 0.45 }, []], // exactly half is not more than half
    [{ multiplier: 0.9 }, { multiplier: 0.449 }, ['multiplier']],
    [{}, { providers: { openai: 0.4 } }, ['providers.openai']],
    [{ providers: { openai: 0.4 } }, {}, []], // back to 1
    [
      { models: { 'openai:gpt-4o': { inputUsdPerMTok: 2, outputUsdPerMTok: 8 } } },
      { models: { 'openai:gpt-4o': { inputUsdPerMTok: 2, outputUsdPerMTok: 3.99 } } },
      ['models.openai:gpt-4o.outputUsdPerMTok'],
    ],
    [{}, { models: { 'llama:*': { inputUsdPerMTok: 0, outputUsdPerMTok: 0 } } }, []],
  ])('%j → %j finds %j', (before, after, fields) => {
    expect(ratesCut(before, after).map((c) => c.field)).toEqual(fields);
  });

  it('reports an organization multiplier exactly when the new one is below half the old', () => {
    // Integers over 1000 reach the boundary (after = before / 2) often.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 2000 }), (b, a) => {
        const found = ratesCut({ multiplier: b / 1000 }, { multiplier: a / 1000 }).length > 0;
        expect(found).toBe(2 * a < b);
      }),
    );
  });
});
