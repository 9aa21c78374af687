import { aggregateDeltas } from '../../core/ledger/aggregate-deltas';
import { startBackendHarness, type BackendHarness } from '../../test/backend-harness';
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
