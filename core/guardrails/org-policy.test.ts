import { hardCapsOf } from '../admission/budget-scopes';
import { effectivePolicy } from './org-policy';

const mode = (policy: unknown, budget: Parameters<typeof effectivePolicy>[1]) =>
  effectivePolicy(policy, budget).financialLimits.hardCapMode;
const alertPolicy = { financialLimits: { hardCapMode: 'alert' } };

describe('effectivePolicy: the hard caps’ mode', () => {
  it.each([
    ['no budget: the policy’s mode', {}, undefined, 'hard_stop'],
    ['no budget, an alert policy', alertPolicy, undefined, 'alert'],
    ['block leaves the policy’s default', {}, { dailyLimitUsd: 1, action: 'block' }, 'hard_stop'],
    [
      'block leaves the policy’s alert (stored, shown, and now in force)',
      alertPolicy,
      { dailyLimitUsd: 1 },
      'alert',
    ],
    [
      'block leaves the policy’s throttle',
      { financialLimits: { hardCapMode: 'throttle' } },
      { dailyLimitUsd: 1 },
      'throttle',
    ],
    ['warn relaxes a hard-stop policy', {}, { dailyLimitUsd: 1, action: 'warn' }, 'alert'],
    ['log relaxes a hard-stop policy', {}, { dailyLimitUsd: 1, action: 'log' }, 'alert'],
  ] as const)('%s', (_name, policy, budget, expected) => {
    expect(mode(policy, budget)).toBe(expected);
  });

  it('takes the caps from the budget in nano-USD', () => {
    const fl = effectivePolicy(alertPolicy, {
      dailyLimitUsd: 1.5,
      monthlySoftLimitUsd: 0.000000001,
    }).financialLimits;
    expect([fl.dailyHardCapNanos, fl.monthlyHardCapNanos, fl.monthlySoftCapNanos]).toEqual([
      1_500_000_000,
      null,
      1,
    ]);
  });

  it('admission enforces a cap only in hard_stop: an alert policy under a block budget refuses nothing', () => {
    const budget = { dailyLimitUsd: 1, action: 'block' };
    expect(hardCapsOf({ budget, policy: {} })).toEqual({ day: 1_000_000_000, month: null });
    expect(hardCapsOf({ budget, policy: alertPolicy })).toEqual({ day: null, month: null });
  });
});
