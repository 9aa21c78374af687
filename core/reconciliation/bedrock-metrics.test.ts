import fc from 'fast-check';
import { compileOrgRates } from '../pricing/org-rates';
import getMetricData from './fixtures/cloudwatch-get-metric-data.json';
import {
  bedrockDayUsage,
  bedrockMetricQueries,
  inBatches,
  MAX_METRIC_QUERIES_PER_CALL,
  priceBedrockDayUsage,
  type BedrockDayUsage,
  type BedrockMetricResult,
} from './bedrock-metrics';
import { reconcile } from './reconcile';

const HAIKU_US = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';
const NOVA_PRO_US = 'us.amazon.nova-pro-v1:0';
const GPT_54 = 'openai.gpt-5.4';
const DAYS = ['2026-11-20', '2026-11-21'];

/** The fixture (GetMetricData's JSON wire format: epoch seconds) as the SDK hands it over (Date). */
function sdkResults(body: typeof getMetricData): BedrockMetricResult[] {
  return body.MetricDataResults.map((r) => ({
    Id: r.Id,
    Timestamps: r.Timestamps.map((s) => new Date(s * 1000)),
    Values: r.Values,
  }));
}

/** Nanos of `tokens` at `usdPerMTok`, rounded half-up: tokens × usd/MTok × 1000 nanos. */
const at = (tokens: number, usdPerMTok: number): number => Math.round(tokens * usdPerMTok * 1000);

describe('Bedrock CloudWatch token metrics', () => {
  it('one Sum query per model id and token metric, one-day period, dimension ModelId', () => {
    const plan = bedrockMetricQueries([HAIKU_US, NOVA_PRO_US, HAIKU_US]);
    expect(plan.queries).toHaveLength(8);
    expect(plan.queries[5]).toEqual({
      Id: 'm1_1',
      MetricStat: {
        Metric: {
          Namespace: 'AWS/Bedrock',
          MetricName: 'OutputTokenCount',
          Dimensions: [{ Name: 'ModelId', Value: NOVA_PRO_US }],
        },
        Period: 86_400,
        Stat: 'Sum',
      },
      ReturnData: true,
    });
    expect(plan.queries.map((q) => q.MetricStat.Metric.MetricName).slice(0, 4)).toEqual([
      'InputTokenCount',
      'OutputTokenCount',
      'CacheReadInputTokenCount',
      'CacheWriteInputTokenCount',
    ]);
    for (const q of plan.queries) expect(q.Id).toMatch(/^[a-z][a-zA-Z0-9_]*$/);
  });

  it('batches queries by the API limit of 500 per GetMetricData call', () => {
    const ids = Array.from({ length: 130 }, (_, i) => `amazon.model-${i}`);
    const batches = inBatches(bedrockMetricQueries(ids).queries);
    expect(batches.map((b) => b.length)).toEqual([500, 20]);
    expect(MAX_METRIC_QUERIES_PER_CALL).toBe(500);
  });

  it('folds a real GetMetricData result to one row per day and model, days outside the window dropped', () => {
    const plan = bedrockMetricQueries([HAIKU_US, NOVA_PRO_US, GPT_54]);
    const rows = bedrockDayUsage(
      plan,
      [...sdkResults(getMetricData), { Id: 'unknown', Timestamps: [new Date()], Values: [5] }],
      'us-east-1',
      DAYS,
    );
    expect(rows).toEqual([
      {
        date: '2026-11-20',
        region: 'us-east-1',
        modelId: GPT_54,
        inputTokens: 20_000,
        outputTokens: 1_000,
        cacheReadTokens: 8_000,
        cacheWriteTokens: 0,
      },
      {
        date: '2026-11-20',
        region: 'us-east-1',
        modelId: HAIKU_US,
        inputTokens: 10_000,
        outputTokens: 2_000,
        cacheReadTokens: 50_000,
        cacheWriteTokens: 4_000,
      },
      {
        date: '2026-11-21',
        region: 'us-east-1',
        modelId: NOVA_PRO_US,
        inputTokens: 100_000,
        outputTokens: 10_000,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
      {
        date: '2026-11-21',
        region: 'us-east-1',
        modelId: HAIKU_US,
        inputTokens: 1_000,
        outputTokens: 500,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
    ]);
  });

  it('prices each day and model at the published Bedrock rates (aws.amazon.com/bedrock/pricing)', () => {
    const plan = bedrockMetricQueries([HAIKU_US, NOVA_PRO_US, GPT_54]);
    const rows = priceBedrockDayUsage(bedrockDayUsage(plan, sdkResults(getMetricData), 'us-east-1', DAYS));
    expect(rows).toEqual([
      // OpenAI on Bedrock counts cache reads IN the input: 12,000 at $2.75, 8,000 at $0.275, 1,000 out at $16.50.
      {
        date: '2026-11-20',
        model: GPT_54,
        costNanos: at(12_000, 2.75) + at(8_000, 0.275) + at(1_000, 16.5),
        tokens: 21_000,
      },
      // Claude Haiku 4.5, US profile (+10 %): $1.10 in, $5.50 out, reads $0.11, 5-minute writes $1.375;
      // the input metric excludes the cache tokens, so the ledger's input is 10,000 + 50,000 + 4,000.
      {
        date: '2026-11-20',
        model: HAIKU_US,
        costNanos: at(10_000, 1.1) + at(2_000, 5.5) + at(50_000, 0.11) + at(4_000, 1.375),
        tokens: 66_000,
      },
      // Nova Pro, US profile: $0.80 in, $3.20 out.
      {
        date: '2026-11-21',
        model: NOVA_PRO_US,
        costNanos: at(100_000, 0.8) + at(10_000, 3.2),
        tokens: 110_000,
      },
      { date: '2026-11-21', model: HAIKU_US, costNanos: at(1_000, 1.1) + at(500, 5.5), tokens: 1_500 },
    ]);
  });

  it('prices the tiers CloudWatch publishes as <model-id>+priority and +flex, keyed as the model', () => {
    const day = (modelId: string) => ({
      date: '2026-11-20',
      region: 'us-east-1',
      modelId,
      inputTokens: 100_000,
      outputTokens: 10_000,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    const [standard, priority, flex] = priceBedrockDayUsage([
      day(NOVA_PRO_US),
      day(`${NOVA_PRO_US}+priority`),
      day(`${NOVA_PRO_US}+flex`),
    ]);
    // Nova Pro (US profile) $0.80 / $3.20; Priority $1.40 / $5.60; Flex $0.40 / $1.60 (docs/bedrock.md table)
    expect(standard?.costNanos).toBe(at(100_000, 0.8) + at(10_000, 3.2));
    expect(priority).toMatchObject({ model: NOVA_PRO_US, costNanos: at(100_000, 1.4) + at(10_000, 5.6) });
    expect(flex).toMatchObject({ model: NOVA_PRO_US, costNanos: at(100_000, 0.4) + at(10_000, 1.6) });
  });

  it('a day of Sonnet 4.5 tokens above 200k is priced at the base rates, not the long-context band', () => {
    const [row] = priceBedrockDayUsage([
      {
        date: '2026-11-20',
        region: 'us-east-1',
        modelId: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
        inputTokens: 1_000_000,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
    ]);
    expect(row?.costNanos).toBe(at(1_000_000, 3));
  });

  it('an application profile is priced as the model the organization maps it to, keyed by its ARN', () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6';
    const orgRates = compileOrgRates({ bedrockProfiles: { a1b2c3d4e5f6: HAIKU_US } });
    const [row] = priceBedrockDayUsage(
      [
        {
          date: '2026-11-20',
          region: 'us-east-1',
          modelId: arn,
          inputTokens: 1_000,
          outputTokens: 100,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        },
      ],
      { orgRates },
    );
    expect(row).toEqual({
      date: '2026-11-20',
      model: arn,
      costNanos: at(1_000, 1.1) + at(100, 5.5),
      tokens: 1_100,
    });
  });

  it('the rows line up with the ledger: a tracked model agrees, an untracked one is untracked spend', () => {
    const plan = bedrockMetricQueries([HAIKU_US, NOVA_PRO_US, GPT_54]);
    const rows = priceBedrockDayUsage(bedrockDayUsage(plan, sdkResults(getMetricData), 'us-east-1', DAYS));
    const haiku21 = at(1_000, 1.1) + at(500, 5.5);
    const [r] = reconcile(
      [{ date: '2026-11-21', provider: 'bedrock', model: HAIKU_US, costNanos: haiku21, tokens: 1_500 }],
      [{ provider: 'bedrock', source: 'token_metrics_at_rates', rows, coveredDays: ['2026-11-21'] }],
    );
    expect(r?.source).toBe('token_metrics_at_rates');
    expect(r?.cells.map((c) => [c.model, c.untrackedNanos, c.overcountedNanos])).toEqual([
      [NOVA_PRO_US, at(100_000, 0.8) + at(10_000, 3.2), 0],
      [HAIKU_US, 0, 0],
    ]);
  });
});

/**
 * Exact oracle in BigInt: $X per million tokens is X × 1e9 / 1e6 = 1000·X nanos per token, so a price
 * written in thousandths of a dollar per MTok is that many nanos per token.
 */
function oracle(tokens: number, milliUsdPerMTok: bigint): bigint {
  return BigInt(tokens) * milliUsdPerMTok;
}

describe('Bedrock metric pricing (property)', () => {
  // Claude Haiku 4.5 on a US profile: $1.100 in, $5.500 out, $0.110 read, $1.375 5-minute write.
  const day = fc.constantFrom('2026-11-20', '2026-11-21', '2026-11-22');
  const tokens = fc.oneof(
    fc.constant(0),
    fc.integer({ min: 0, max: 1_000 }),
    fc.integer({ min: 0, max: 2 ** 36 }),
  );
  const usage = fc.record({
    date: day,
    inputTokens: tokens,
    outputTokens: tokens,
    cacheReadTokens: tokens,
    cacheWriteTokens: tokens,
  });

  it('each day and model is priced exactly, and the sum over days and models is the priced total', () => {
    fc.assert(
      fc.property(fc.array(usage, { maxLength: 12 }), (us) => {
        const rows: BedrockDayUsage[] = us.map((u) => ({ ...u, region: 'us-east-1', modelId: HAIKU_US }));
        const priced = priceBedrockDayUsage(rows);
        let total = 0n;
        priced.forEach((p, i) => {
          const u = rows[i] as BedrockDayUsage;
          const expected =
            oracle(u.inputTokens, 1_100n) +
            oracle(u.outputTokens, 5_500n) +
            oracle(u.cacheReadTokens, 110n) +
            oracle(u.cacheWriteTokens, 1_375n);
          expect(Number.isSafeInteger(p.costNanos)).toBe(true);
          expect(BigInt(p.costNanos)).toBe(expected);
          expect(p.tokens).toBe(u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens);
          total += expected;
        });
        const [r] = reconcile(
          [],
          [{ provider: 'bedrock', rows: priced, coveredDays: ['2026-11-20', '2026-11-21', '2026-11-22'] }],
        );
        expect(BigInt(r?.providerNanos ?? 0)).toBe(total);
      }),
      { numRuns: 200 },
    );
  });

  it('splitting the data points over pages and batches never changes the folded rows', () => {
    const point = fc.record({
      model: fc.integer({ min: 0, max: 2 }),
      metric: fc.integer({ min: 0, max: 3 }),
      day: fc.integer({ min: 0, max: 2 }),
      value: fc.integer({ min: 0, max: 2 ** 32 }),
    });
    fc.assert(
      fc.property(fc.array(point, { maxLength: 40 }), fc.integer({ min: 1, max: 7 }), (points, pageSize) => {
        const plan = bedrockMetricQueries([HAIKU_US, NOVA_PRO_US, GPT_54]);
        const results: BedrockMetricResult[] = points.map((p) => ({
          Id: `m${p.model}_${p.metric}`,
          Timestamps: [new Date(Date.UTC(2026, 10, 20 + p.day))],
          Values: [p.value],
        }));
        const days = ['2026-11-20', '2026-11-21', '2026-11-22'];
        const whole = bedrockDayUsage(plan, results, 'us-east-1', days);
        const paged = bedrockDayUsage(plan, inBatches(results, pageSize).flat(), 'us-east-1', days);
        expect(paged).toEqual(whole);
        const sum = (rows: BedrockDayUsage[]) =>
          rows.reduce(
            (s, r) => s + r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens,
            0,
          );
        expect(sum(whole)).toBe(points.reduce((s, p) => s + p.value, 0));
      }),
      { numRuns: 200 },
    );
  });
});
