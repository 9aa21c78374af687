import fc from 'fast-check';
import {
  anthropicCostPageSchema,
  anthropicCostRows,
  openAiCostPageSchema,
  openAiCostRows,
  openAiUsagePageSchema,
  openAiUsageRows,
} from '../../core/reconciliation';
import type { BilledCall } from './billing';
import { anthropicCostReport, nanosAsCents, openAiCosts, openAiUsage } from './formats/admin-reports';
import type { MockReply } from './types';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-22T15:00:00.000Z');
const START = NOW - 9 * DAY;

const callArb = fc.record({
  at: fc.integer({ min: START, max: NOW }),
  provider: fc.constantFrom('openai' as const, 'anthropic' as const),
  model: fc.constantFrom('m-a', 'm-b'),
  kind: fc.constant('completions' as const),
  inputTokens: fc.integer({ min: 0, max: 10_000 }),
  outputTokens: fc.integer({ min: 0, max: 10_000 }),
  inputNanos: fc.integer({ min: 0, max: 1e10 }),
  outputNanos: fc.integer({ min: 0, max: 1e10 }),
});

const body = (r: MockReply): unknown => (r.kind === 'json' ? JSON.parse(r.body) : undefined);

/** Follows next_page like a client would. */
function collect(answer: (q: URLSearchParams) => MockReply, base: Record<string, string>): unknown[] {
  const pages: unknown[] = [];
  let page: string | null = null;
  for (let i = 0; i < 100; i++) {
    const q = new URLSearchParams(base);
    if (page) q.set('page', page);
    const b = body(answer(q)) as { has_more: boolean; next_page: string | null };
    pages.push(b);
    if (!b.has_more) return pages;
    page = b.next_page;
  }
  throw new Error('too many pages');
}

describe('the mock providers’ admin reports', () => {
  it('property: whatever the page size, the pages hold every billed nano and token exactly once', () => {
    fc.assert(
      fc.property(
        fc.array(callArb, { maxLength: 30 }),
        fc.integer({ min: 1, max: 31 }),
        (calls: BilledCall[], limit) => {
          const openai = calls.filter((c) => c.provider === 'openai');
          const anthropic = calls.filter((c) => c.provider === 'anthropic');
          const start = String(Math.floor(START / 1000));
          const usage = collect((q) => openAiUsage('completions', calls, q, NOW), {
            start_time: start,
            limit: String(limit),
            group_by: 'model',
          });
          const costs = collect((q) => openAiCosts(calls, q, NOW), {
            start_time: start,
            limit: String(limit),
            group_by: 'line_item',
          });
          const aCosts = collect((q) => anthropicCostReport(calls, q, NOW), {
            starting_at: new Date(START).toISOString(),
            limit: String(limit),
            'group_by[]': 'description',
          });
          expect(usage).toHaveLength(Math.ceil(10 / limit));
          const sum = <T>(xs: T[], f: (x: T) => number) => xs.reduce((n, x) => n + f(x), 0);
          expect(
            sum(openAiUsageRows(usage.map((p) => openAiUsagePageSchema.parse(p))), (r) => r.tokens),
          ).toBe(sum(openai, (c) => c.inputTokens + c.outputTokens));
          expect(
            sum(openAiCostRows(costs.map((p) => openAiCostPageSchema.parse(p))), (r) => r.costNanos),
          ).toBe(sum(openai, (c) => c.inputNanos + c.outputNanos));
          expect(
            sum(anthropicCostRows(aCosts.map((p) => anthropicCostPageSchema.parse(p))), (r) => r.costNanos),
          ).toBe(sum(anthropic, (c) => c.inputNanos + c.outputNanos));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('writes cents as exact decimal strings', () => {
    expect(nanosAsCents(0)).toBe('0');
    expect(nanosAsCents(45_000)).toBe('0.0045');
    expect(nanosAsCents(1_234_500_000)).toBe('123.45');
  });

  it('answers 400 in the provider’s error format for a request it cannot serve', () => {
    const missing = body(openAiUsage('completions', [], new URLSearchParams(), NOW)) as {
      error: { message: string };
    };
    expect(missing.error.message).toBe('start time is required');
    const r = anthropicCostReport(
      [],
      new URLSearchParams({ starting_at: '2026-11-01T00:00:00Z', limit: '32' }),
      NOW,
    );
    expect(r.kind === 'json' && r.status).toBe(400);
    expect((body(r) as { type: string }).type).toBe('error');
    const badPage = openAiCosts([], new URLSearchParams({ start_time: '1763596800', page: 'bm9wZQ' }), NOW);
    expect(badPage.kind === 'json' && badPage.status).toBe(400);
  });
});
