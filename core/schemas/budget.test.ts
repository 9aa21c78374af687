import fc from 'fast-check';
import { budgetConfigSchema, clientBudgetOptionSchema, MAX_BUDGET_USD } from './budget';
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

  it('keeps every whole number of nano-dollars up to the largest limit exactly as written (a decimal of at most 9 places)', () => {
    const maxNanos = MAX_BUDGET_USD * 1_000_000_000;
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: maxNanos }), fc.constantFrom(0, 1, maxNanos)),
        (nanos) => {
          // The decimal a person types: whole dollars, a point, nine digits.
          const typed = `${Math.floor(nanos / 1e9)}.${String(nanos % 1e9).padStart(9, '0')}`;
          expect(budgetConfigSchema.parse({ dailyLimitUsd: Number(typed) }).dailyLimitUsd).toBe(
            Number(typed),
          );
        },
      ),
    );
  });

  it('refuses a positive limit that rounds to no nano-dollar (a freeze nobody asked for), and keeps others as enforced', () => {
    for (const dailyLimitUsd of [1e-12, 4.9e-10, Number.MIN_VALUE]) {
      expect(issuesOf({ dailyLimitUsd })).toEqual([
        {
          path: 'dailyLimitUsd',
          message: 'must be 0 or at least half a nano-dollar (0.0000000005), which rounds to one',
        },
      ]);
    }
    // Finer digits are rounded to the nano-dollar (half away from zero), as admission enforces them.
    expect(budgetConfigSchema.parse({ dailyLimitUsd: 5e-10, monthlyLimitUsd: 100 / 3 })).toEqual({
      dailyLimitUsd: 1e-9,
      monthlyLimitUsd: 33.333333333,
      action: 'block',
    });
    expect(budgetConfigSchema.parse({ dailyLimitUsd: 0.1234567891 }).dailyLimitUsd).toBe(0.123456789);
    expect(issuesOf({ dailyLimitUsd: 1e20 })).toEqual([
      { path: 'dailyLimitUsd', message: `must be at most ${MAX_BUDGET_USD}` },
    ]);
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
