import fc from 'fast-check';
import { capsSwitchedOff, liftedCaps, ratesCut } from './risky-changes';

describe('liftedCaps', () => {
  it.each([
    [{ dailyLimitUsd: 50, action: 'block' }, { action: 'block' }, ['dailyLimitUsd']],
    [
      { monthlyLimitUsd: 1000, action: 'block' },
      { monthlyLimitUsd: 5000, action: 'block' },
      ['monthlyLimitUsd'],
    ],
    [{ monthlyLimitUsd: 1000, action: 'block' }, { monthlyLimitUsd: 2000, action: 'block' }, []], // exactly double
    [{ dailyLimitUsd: 40, action: 'block' }, { dailyLimitUsd: 4000, action: 'block' }, ['dailyLimitUsd']],
    [{ dailyLimitUsd: 40, action: 'block' }, { dailyLimitUsd: 20, action: 'block' }, []], // tightened
    [{ dailyLimitUsd: 5, action: 'block' }, { dailyLimitUsd: 5, action: 'warn' }, ['action']],
    [{ action: 'block' }, { action: 'log' }, []], // nothing was capped
    [{}, { dailyLimitUsd: 1, action: 'block' }, []],
    [{ dailyLimitUsd: 1, monthlyLimitUsd: 2, action: 'block' }, {}, ['dailyLimitUsd', 'monthlyLimitUsd']],
    [
      { dailyLimitUsd: 5, action: 'block' },
      { dailyLimitUsd: 5, action: 'block', allowDeferredBilling: true },
      ['allowDeferredBilling'],
    ],
    [
      { dailyLimitUsd: 5, action: 'block', allowDeferredBilling: true },
      { dailyLimitUsd: 5, action: 'block', allowDeferredBilling: true },
      [],
    ], // already allowed
    [{ action: 'block' }, { action: 'block', allowDeferredBilling: true }, []], // no cap to pass
  ])('%j → %j finds %j', (before, after, fields) => {
    expect(liftedCaps(before, after).map((c) => c.field)).toEqual(fields);
  });
});

describe('capsSwitchedOff', () => {
  const capped = { dailyLimitUsd: 0.001, action: 'block' };
  it.each([
    // The acceptance case: layer 1 disabled while a block cap is set let calls through over budget.
    [{}, { financialLimits: { enabled: false } }, capped, ['policy.financialLimits.enabled']],
    [{}, { financialLimits: { hardCapMode: 'alert' } }, capped, ['policy.financialLimits.hardCapMode']],
    [{}, { financialLimits: { hardCapMode: 'throttle' } }, capped, ['policy.financialLimits.hardCapMode']],
    [{ financialLimits: { enabled: false } }, { financialLimits: { enabled: false } }, capped, []], // already off
    [{}, { financialLimits: { enabled: false } }, {}, []], // no cap to lift
    [
      {},
      { financialLimits: { enabled: false, dailyHardCapNanos: 5e9 } },
      {},
      ['policy.financialLimits.enabled'],
    ],
    [{}, { financialLimits: { enabled: true, hardCapMode: 'hard_stop' } }, capped, []],
  ])('%j → %j with budget %j finds %j', (before, after, budget, fields) => {
    expect(capsSwitchedOff(before, after, budget).map((c) => c.field)).toEqual(fields);
  });
});

describe('ratesCut', () => {
  it('finds the issue’s $0 multiplier', () => {
    expect(ratesCut({}, { multiplier: 0 })).toEqual([
      { field: 'multiplier', before: 1, after: 0, message: 'multiplier cut from 1 to 0' },
    ]);
  });

  it.each([
    [{ multiplier: 2 }, { multiplier: 1 }, []], // exactly half is not more than half
    [{ multiplier: 2 }, { multiplier: 0.999 }, ['multiplier']],
    [{ multiplier: 0.9 }, { multiplier: 0.45 }, ['multiplier']], // half, and first below half of list
    [{ multiplier: 0.4 }, { multiplier: 0.3 }, []], // already below half of list, cut by less than half
    [{ providers: { openai: 0.5 } }, { providers: { openai: 0.25 } }, ['providers.openai']],
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

  it('reports an organization multiplier exactly when the new one is below half the old, or first below half of list', () => {
    // Integers over 1000 reach both boundaries (after = before / 2, after = 0.5) often.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 2000 }), (b, a) => {
        const found = ratesCut({ multiplier: b / 1000 }, { multiplier: a / 1000 }).length > 0;
        expect(found).toBe(2 * a < b || (a < 500 && b >= 500));
      }),
    );
  });

  it('halving in steps alerts once the multiplier goes below half of list', () => {
    const steps = [1, 0.5, 0.25, 0.125];
    const alerts = steps.slice(1).map((m, i) => ratesCut({ multiplier: steps[i] }, { multiplier: m }).length);
    expect(alerts).toEqual([0, 1, 0]);
  });
});
