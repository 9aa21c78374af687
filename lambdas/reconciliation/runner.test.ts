import { aggregateDeltas } from '../../core/ledger/aggregate-deltas';
import { startBackendHarness, type BackendHarness } from '../../test/backend-harness';
import type { BedrockMetricsReader } from './bedrock-metrics-reader';
import { createReconciliationRunner } from './runner';

const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const ORG = 'org_runner';
let h: BackendHarness;

beforeAll(async () => {
  h = await startBackendHarness();
  h.setNow(NOW);
  await h.services.orgs.ensure(ORG, new Date(NOW).toISOString());
  await h.services.aggregates.applyRecord(
    ORG,
    '1',
    aggregateDeltas([
      {
        ts: NOW - 3_600_000,
        provider: 'openai',
        model: 'gpt-4o-mini',
        projectId: null,
        featureId: null,
        inputTokens: 100,
        outputTokens: 50,
        costNanos: 45_000,
      },
    ]),
  );
});
afterAll(() => h.close());

/** OpenAI's reports of today: the ledger's call plus $2 billed that the ledger never saw. */
function openAiFetch(): typeof fetch {
  const day = Math.floor(NOW / 86_400_000) * 86_400;
  return async (input) => {
    const url = new URL(String(input));
    const costs = url.pathname.endsWith('/costs');
    const results = costs
      ? [
          {
            object: 'organization.costs.result',
            amount: { value: 2.000045, currency: 'usd' },
            line_item: 'gpt-4o-mini, input',
            project_id: null,
          },
        ]
      : url.pathname.endsWith('/completions')
        ? [
            {
              object: 'organization.usage.completions.result',
              input_tokens: 100,
              output_tokens: 50,
              num_model_requests: 1,
              model: 'gpt-4o-mini',
            },
          ]
        : [];
    return new Response(
      JSON.stringify({
        object: 'page',
        data: [{ object: 'bucket', start_time: day, end_time: day + 86_400, results }],
        has_more: false,
        next_page: null,
      }),
      { status: 200 },
    );
  };
}

describe('the reconciliation runner', () => {
  it('records a provider that fails beside those that succeed, and notifies untracked spend once a day', async () => {
    await h.services.adminCredentials.put(ORG, 'openai', 'sk-admin-x');
    await h.services.adminCredentials.put(ORG, 'anthropic', 'sk-ant-admin01-x');
    const openai = openAiFetch();
    const runner = createReconciliationRunner({
      services: h.services,
      windowDays: 1,
      fetch: async (input, init) =>
        String(input).startsWith('https://api.anthropic.com')
          ? new Response('{}', { status: 403 })
          : openai(input, init),
    });
    const first = await runner.runOrganization(ORG);
    expect(first.providers.map((p) => [p.provider, p.untrackedNanos, p.overcountedNanos])).toEqual([
      ['openai', 2_000_000_000, 0],
    ]);
    expect(first.errors).toEqual([
      { provider: 'anthropic', message: 'anthropic: /v1/organizations/usage_report/messages answered 403' },
    ]);
    expect(first.window).toEqual({ from: '2026-11-22', to: '2026-11-22' });
    expect(h.notifications.filter((n) => n.kind === 'untracked_spend')).toEqual([
      expect.objectContaining({
        orgId: ORG,
        observedValue: 2,
        thresholdValue: 1,
        triggerType: 'untracked_spend',
      }),
    ]);
    await runner.runAll();
    // Same day, still above the threshold: no second notification.
    expect(h.notifications.filter((n) => n.kind === 'untracked_spend')).toHaveLength(1);
    expect((await h.services.reconciliations.get(ORG))?.computedAt).toBe(new Date(NOW).toISOString());
  });

  it('without a stored credential reads no report and stores an empty run', async () => {
    const calls: string[] = [];
    const runner = createReconciliationRunner({
      services: h.services,
      fetch: async (i) => (calls.push(String(i)), new Response('{}')),
    });
    const record = await runner.runOrganization('org_without_keys');
    expect([record.providers, record.errors, calls]).toEqual([[], [], []]);
  });
});

describe('the reconciliation runner with Amazon Bedrock (CloudWatch token metrics)', () => {
  const HAIKU_US = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';
  const NOVA_PRO_US = 'us.amazon.nova-pro-v1:0';
  const BEDROCK_ORG = 'org_bedrock_runner';
  const today = new Date(NOW).toISOString().slice(0, 10);
  /** $X per MTok is 1000·X nanos per token (aws.amazon.com/bedrock/pricing, US profiles). */
  const haikuNanos = 1_000 * 1_100 + 500 * 5_500;
  const novaNanos = 1_000_000 * 800 + 100_000 * 3_200;

  /** A reader that answers what Bedrock counted today: the tracked Haiku calls and untracked Nova ones. */
  function reader(asked: string[]): BedrockMetricsReader {
    return {
      read: async (region, days) => {
        asked.push(`${region} ${days.join(',')}`);
        const row = (modelId: string, inputTokens: number, outputTokens: number) => ({
          date: today,
          region,
          modelId,
          inputTokens,
          outputTokens,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        });
        return [row(HAIKU_US, 1_000, 500), row(NOVA_PRO_US, 1_000_000, 100_000)];
      },
    };
  }

  it('prices the metrics, agrees on the tracked model, finds and alerts the untracked one', async () => {
    await h.services.aggregates.applyRecord(
      BEDROCK_ORG,
      '1',
      aggregateDeltas([
        {
          ts: NOW - 60_000,
          provider: 'bedrock',
          model: HAIKU_US,
          projectId: null,
          featureId: null,
          inputTokens: 1_000,
          outputTokens: 500,
          costNanos: haikuNanos,
        },
      ]),
    );
    await h.services.bedrockReconciliation.put(BEDROCK_ORG, {
      account: h.services.awsAccountId,
      regions: [],
    });
    const asked: string[] = [];
    const runner = createReconciliationRunner({
      services: h.services,
      windowDays: 1,
      bedrockMetrics: reader(asked),
      deploymentRegion: 'eu-central-1',
    });
    const record = await runner.runOrganization(BEDROCK_ORG);
    expect(asked).toEqual([`eu-central-1 ${today}`]);
    expect(record.errors).toEqual([]);
    const [bedrock] = record.providers;
    expect(bedrock).toMatchObject({
      provider: 'bedrock',
      source: 'token_metrics_at_rates',
      ledgerNanos: haikuNanos,
      providerNanos: haikuNanos + novaNanos,
      untrackedNanos: novaNanos,
      overcountedNanos: 0,
    });
    expect(bedrock?.cells.map((c) => [c.model, c.untrackedNanos, c.ledgerTokens, c.providerTokens])).toEqual([
      [NOVA_PRO_US, novaNanos, 0, 1_100_000],
      [HAIKU_US, 0, 1_500, 1_500],
    ]);
    expect(h.notifications.filter((n) => n.orgId === BEDROCK_ORG)).toEqual([
      expect.objectContaining({
        kind: 'untracked_spend',
        observedValue: 1.12,
        message: expect.stringMatching(/^bedrock billed \$1\.12 that Spendguard never saw/),
      }),
    ]);
  });

  it('reads the regions the setting names; an organization that lost the account reads nothing', async () => {
    await h.services.bedrockReconciliation.put('org_bedrock_regions', {
      account: '111122223333',
      regions: ['us-east-1', 'us-west-2'],
    });
    const asked: string[] = [];
    const runner = createReconciliationRunner({
      services: h.services,
      windowDays: 2,
      bedrockMetrics: reader(asked),
    });
    const record = await runner.runOrganization('org_bedrock_regions');
    expect(asked.sort()).toEqual(['us-east-1 2026-11-21,2026-11-22', 'us-west-2 2026-11-21,2026-11-22']);
    // Two regions' counts of one model and day are one cell.
    expect(record.providers[0]?.providerNanos).toBe(2 * (haikuNanos + novaNanos));

    // A setting whose account's claim another organization holds (a write raced the claim): no figures.
    const store = h.services.bedrockReconciliation;
    const raced = createReconciliationRunner({
      services: {
        ...h.services,
        bedrockReconciliation: {
          get: (orgId) => store.get(orgId),
          put: (orgId, setting) => store.put(orgId, setting),
          delete: (orgId) => store.delete(orgId),
          ownerOf: async () => 'org_bedrock_owner',
        },
      },
      windowDays: 2,
      bedrockMetrics: reader(asked),
    });
    const before = asked.length;
    const lost = await raced.runOrganization('org_bedrock_regions');
    expect(lost.providers).toEqual([]);
    expect(lost.errors).toEqual([
      { provider: 'bedrock', message: expect.stringMatching(/claimed by another organization/) },
    ]);
    expect(asked.length).toBe(before);
  });
});
