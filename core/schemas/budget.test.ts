import { budgetConfigSchema, clientBudgetOptionSchema } from './budget';
import { formatZodIssues } from './issues';

const issuesOf = (input: unknown) => {
  const r = budgetConfigSchema.safeParse(input);
  return r.success ? [] : formatZodIssues(r.error);
};

describe('budgetConfigSchema', () => {
  it('accepts the spec 1.4 fields and soft caps under the hard caps', () => {
    const b = {
      dailyLimitUsd: 50,
      monthlyLimitUsd: 1000,
      dailySoftLimitUsd: 40,
      monthlySoftLimitUsd: 1000,
      action: 'block',
    };
    expect(budgetConfigSchema.parse(b)).toEqual(b);
  });

  it('accepts a budget with only an action (no limit set) and a zero limit (freeze)', () => {
    expect(budgetConfigSchema.parse({ action: 'log' })).toEqual({ action: 'log' });
    expect(budgetConfigSchema.parse({ dailyLimitUsd: 0, action: 'block' }).dailyLimitUsd).toBe(0);
  });

  it('accepts a soft cap without a hard cap', () => {
    expect(budgetConfigSchema.safeParse({ monthlySoftLimitUsd: 10, action: 'warn' }).success).toBe(true);
  });

  it('refuses a soft cap above its hard cap, naming both', () => {
    expect(
      issuesOf({
        dailyLimitUsd: 50,
        dailySoftLimitUsd: 60,
        monthlyLimitUsd: 10,
        monthlySoftLimitUsd: 11,
        action: 'warn',
      }),
    ).toEqual([
      { path: 'dailySoftLimitUsd', message: 'dailySoftLimitUsd (60) must not exceed dailyLimitUsd (50)' },
      {
        path: 'monthlySoftLimitUsd',
        message: 'monthlySoftLimitUsd (11) must not exceed monthlyLimitUsd (10)',
      },
    ]);
  });

  it.each<[string, unknown, string]>([
    ['a misspelt limit', { dailyLimitUSD: 5, action: 'block' }, 'dailyLimitUSD'],
    ['a negative limit', { dailyLimitUsd: -1, action: 'block' }, 'dailyLimitUsd'],
    ['an unknown action', { action: 'kill' }, 'action'],
    ['a limit as a string', { monthlyLimitUsd: '100', action: 'warn' }, 'monthlyLimitUsd'],
  ])('rejects %s', (_name, input, path) => {
    expect(issuesOf(input).map((i) => i.path)).toEqual([path]);
  });

  it('takes a limit without an action as a blocking one, as the SDK’s budget option does', () => {
    expect(budgetConfigSchema.parse({ dailyLimitUsd: 5 })).toEqual({ dailyLimitUsd: 5, action: 'block' });
  });
});

describe('clientBudgetOptionSchema', () => {
  it('is the SDK option of spec 1.4', () => {
    expect(clientBudgetOptionSchema.parse({ dailyLimitUsd: 5, action: 'block' })).toEqual({
      dailyLimitUsd: 5,
      action: 'block',
    });
    expect(clientBudgetOptionSchema.safeParse({ dailySoftLimitUsd: 5, action: 'block' }).success).toBe(false);
  });
});
