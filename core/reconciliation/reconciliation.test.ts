import fc from 'fast-check';
import anthropicCost from './fixtures/anthropic-cost-report.json';
import anthropicUsage from './fixtures/anthropic-usage-report.json';
import openAiCosts from './fixtures/openai-costs.json';
import openAiUsage1 from './fixtures/openai-usage-completions-page1.json';
import openAiUsage2 from './fixtures/openai-usage-completions-page2.json';
import openRouterActivity from './fixtures/openrouter-activity.json';
import {
  anthropicCostPageSchema,
  anthropicCostRows,
  anthropicUsagePageSchema,
  anthropicUsageRows,
  decimalStringToNanos,
  modelOfLineItem,
  openAiCostPageSchema,
  openAiCostRows,
  openAiUsagePageSchema,
  openAiUsageRows,
  openRouterActivitySchema,
  openRouterRows,
  reconcile,
  reconciliationModelKey,
  reconciliationView,
  windowDays,
  type LedgerRow,
  type ProviderRow,
} from '.';

describe('the providers’ report formats (real-format fixtures)', () => {
  it('OpenAI usage pages: tokens per day and model, input (cached included) + output', () => {
    const pages = [openAiUsage1, openAiUsage2].map((p) => openAiUsagePageSchema.parse(p));
    expect(pages[0]?.has_more).toBe(true);
    expect(openAiUsageRows(pages)).toEqual([
      { date: '2025-11-20', model: 'gpt-4o', costNanos: 0, tokens: 150_000 },
      { date: '2025-11-21', model: 'gpt-4o-mini', costNanos: 0, tokens: 6_000 },
    ]);
  });

  it('OpenAI costs by line item: dollars to exact nanos, per model', () => {
    const rows = openAiCostRows([openAiCostPageSchema.parse(openAiCosts)]);
    const sum = (date: string) => rows.filter((r) => r.date === date).reduce((n, r) => n + r.costNanos, 0);
    expect(sum('2025-11-20')).toBe(562_500_000); // 0.25 + 0.0125 + 0.3
    expect(sum('2025-11-21')).toBe(1_350_000); // 0.00075 + 0.0006
    expect(new Set(rows.map((r) => r.model))).toEqual(new Set(['gpt-4o', 'gpt-4o-mini']));
  });

  it('Anthropic usage: uncached + cache reads + both cache writes + output', () => {
    expect(anthropicUsageRows([anthropicUsagePageSchema.parse(anthropicUsage)])).toEqual([
      { date: '2025-11-20', model: 'claude-sonnet-4', costNanos: 0, tokens: 21_500 },
    ]);
  });

  it('Anthropic cost report: cents as decimal strings; a web-search fee has no model', () => {
    const rows = anthropicCostRows([anthropicCostPageSchema.parse(anthropicCost)]);
    const byModel = (m: string | null) =>
      rows.filter((r) => r.model === m).reduce((n, r) => n + r.costNanos, 0);
    expect(byModel('claude-sonnet-4')).toBe(62_400_000); // 6.24 cents
    expect(byModel(null)).toBe(30_000_000); // 3 cents
  });

  it('OpenRouter activity: credits (USD) and prompt + completion tokens', () => {
    expect(openRouterRows(openRouterActivitySchema.parse(openRouterActivity))).toEqual([
      { date: '2025-11-20', model: 'openai/gpt-4.1', costNanos: 15_000_000, tokens: 175 },
    ]);
  });

  it('refuses a report of another shape, saying where', () => {
    const r = anthropicCostPageSchema.safeParse({
      data: [{ starting_at: 'x', ending_at: 'y', results: [{ amount: 12, currency: 'USD' }] }],
      has_more: false,
    });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['data', 0, 'results', 0, 'amount']);
  });

  it('line items and model keys', () => {
    expect(modelOfLineItem('gpt-4o-mini-2024-07-18, cached input')).toBe('gpt-4o-mini-2024-07-18');
    expect(modelOfLineItem('web search tool calls')).toBe('web search tool calls');
    expect(reconciliationModelKey(' Claude-Sonnet-4-20250514 ')).toBe('claude-sonnet-4');
    expect(reconciliationModelKey('openai/gpt-4o')).toBe('openai/gpt-4o');
  });
});

describe('decimalStringToNanos', () => {
  it('is exact where floats are not', () => {
    expect(decimalStringToNanos('0.1', 7)).toBe(1_000_000);
    expect(decimalStringToNanos('123.45', 7)).toBe(1_234_500_000);
    expect(decimalStringToNanos('0.00000005', 7)).toBe(1); // half-up at the 8th decimal
    expect(decimalStringToNanos('0.00000004', 7)).toBe(0);
    expect(() => decimalStringToNanos('1e3', 7)).toThrow(RangeError);
    expect(() => decimalStringToNanos('-1', 7)).toThrow(RangeError);
  });

  it('matches integer arithmetic on any amount of cents with up to 7 decimals', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_000_000_000_000 }), (nanos) => {
        const whole = Math.floor(nanos / 1e7);
        const frac = String(nanos % 1e7).padStart(7, '0');
        expect(decimalStringToNanos(`${whole}.${frac}`, 7)).toBe(nanos);
      }),
    );
  });
});

const days = ['2025-11-20', '2025-11-21'];

describe('reconcile', () => {
  const ledger: LedgerRow[] = [
    {
      date: '2025-11-20',
      provider: 'openai',
      model: 'gpt-4o-2024-08-06',
      costNanos: 500_000_000,
      tokens: 140_000,
    },
    { date: '2025-11-21', provider: 'openai', model: 'gpt-4o-mini', costNanos: 1_350_000, tokens: 6_000 },
    { date: '2025-11-21', provider: 'openai', model: 'gpt-4.1', costNanos: 2_000_000, tokens: 900 },
    { date: '2025-11-21', provider: 'anthropic', model: 'claude-haiku-4-5', costNanos: 7, tokens: 1 },
  ];
  const rows: ProviderRow[] = [
    { date: '2025-11-20', model: 'gpt-4o', costNanos: 562_500_000, tokens: 150_000 },
    { date: '2025-11-21', model: 'gpt-4o-mini', costNanos: 1_350_000, tokens: 6_000 },
  ];

  it('splits the difference per day and model into untracked and overcounted', () => {
    const [openai] = reconcile(ledger, [{ provider: 'openai', rows, coveredDays: days }]);
    expect(openai).toMatchObject({
      provider: 'openai',
      ledgerNanos: 503_350_000,
      providerNanos: 563_850_000,
      untrackedNanos: 62_500_000, // gpt-4o billed beyond the ledger
      overcountedNanos: 2_000_000, // gpt-4.1 never billed
    });
    // matched = 500,000,000 + 1,350,000 = 501,350,000 of the larger sides 565,850,000
    expect(openai?.agreementPct).toBe(88.6);
    // tokens: 140,000 + 6,000 matched of 150,000 + 6,000 + 900
    expect(openai?.tokenAgreementPct).toBe(93.05);
    expect(openai?.cells.map((c) => [c.date, c.model])).toEqual([
      ['2025-11-20', 'gpt-4o'],
      ['2025-11-21', 'gpt-4.1'],
      ['2025-11-21', 'gpt-4o-mini'],
    ]);
  });

  it('compares only the days the report covers', () => {
    const [p] = reconcile(ledger, [{ provider: 'openai', rows, coveredDays: ['2025-11-20'] }]);
    expect(p?.cells).toHaveLength(1);
    expect(p?.overcountedNanos).toBe(0);
  });

  it('treats a difference within the tolerance as rounding', () => {
    const [p] = reconcile(
      [{ date: '2025-11-20', provider: 'openai', model: 'm', costNanos: 1_000_000, tokens: 10 }],
      [
        {
          provider: 'openai',
          rows: [{ date: '2025-11-20', model: 'm', costNanos: 1_000_400, tokens: 10 }],
          coveredDays: days,
        },
      ],
      500,
    );
    expect([p?.untrackedNanos, p?.overcountedNanos, p?.agreementPct]).toEqual([0, 0, 100]);
  });

  it('has no agreement figure when neither side spent anything', () => {
    const [p] = reconcile([], [{ provider: 'openrouter', rows: [], coveredDays: days }]);
    expect([p?.agreementPct, p?.tokenAgreementPct, p?.cells]).toEqual([null, null, []]);
  });

  const cellArb = fc.record({
    date: fc.constantFrom(...days),
    model: fc.constantFrom('a', 'b', 'c'),
    costNanos: fc.integer({ min: 0, max: 1e12 }),
    tokens: fc.integer({ min: 0, max: 1e7 }),
  });

  it('property: untracked − overcounted = provider − ledger (beyond tolerance) and agreement stays in [0, 100]', () => {
    fc.assert(
      fc.property(fc.array(cellArb, { maxLength: 20 }), fc.array(cellArb, { maxLength: 20 }), (l, r) => {
        const [p] = reconcile(
          l.map((x) => ({ ...x, provider: 'openai' })),
          [{ provider: 'openai', rows: r, coveredDays: days }],
          0,
        );
        if (!p) throw new Error('no result');
        expect(p.untrackedNanos - p.overcountedNanos).toBe(p.providerNanos - p.ledgerNanos);
        expect(p.untrackedNanos).toBeGreaterThanOrEqual(0);
        expect(p.overcountedNanos).toBeGreaterThanOrEqual(0);
        if (p.agreementPct !== null) {
          expect(p.agreementPct).toBeGreaterThanOrEqual(0);
          expect(p.agreementPct).toBeLessThanOrEqual(100);
        }
      }),
    );
  });

  it('property: a report equal to the ledger agrees 100 % with nothing untracked or overcounted', () => {
    fc.assert(
      fc.property(fc.array(cellArb, { minLength: 1, maxLength: 20 }), (l) => {
        const [p] = reconcile(
          l.map((x) => ({ ...x, provider: 'anthropic' })),
          [{ provider: 'anthropic', rows: l, coveredDays: days }],
        );
        expect([p?.untrackedNanos, p?.overcountedNanos]).toEqual([0, 0]);
        if (l.some((x) => x.costNanos > 0)) expect(p?.agreementPct).toBe(100);
      }),
    );
  });
});

describe('windowDays and the view', () => {
  it('counts back from today, across a month end', () => {
    expect(windowDays('2026-03-02', 4)).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
  });

  it('shows dollars and leaves out the model of unattributed spend', () => {
    const [p] = reconcile(
      [],
      [
        {
          provider: 'anthropic',
          rows: [{ date: '2025-11-20', model: null, costNanos: 30_000_000, tokens: 0 }],
          coveredDays: days,
        },
      ],
    );
    const view = reconciliationView({
      computedAt: '2025-11-21T00:00:00.000Z',
      window: { from: days[0]!, to: days[1]! },
      providers: p ? [p] : [],
      errors: [],
    });
    expect(view.providers[0]).toMatchObject({ providerUsd: 0.03, untrackedUsd: 0.03, ledgerUsd: 0 });
    expect(view.providers[0]?.days[0]).not.toHaveProperty('model');
  });
});
