import { aggregateDeltas } from '../../core/ledger/aggregate-deltas';
import { startBackendHarness, type BackendHarness } from '../../test/backend-harness';
import { loadOrganizations, simulateOrganization, storeForecast } from './tasks';

let h: BackendHarness;
beforeAll(async () => {
  h = await startBackendHarness();
});
afterAll(() => h.close());

describe('forecast tasks', () => {
  it('load → simulate → store: horizons ordered, and the month fan agrees with the horizons where they meet', async () => {
    const now = Date.parse('2026-11-10T12:30:00.000Z');
    h.setNow(now);
    await h.createKey('org_fc');
    // Ten days of steady traffic: 4 calls an hour at 1 cent each.
    const calls = [];
    for (let t = now - 10 * 24 * 3600_000; t < now; t += 15 * 60_000) {
      calls.push({
        ts: t,
        provider: 'openai',
        model: 'gpt-4o',
        projectId: null,
        featureId: null,
        inputTokens: 500,
        outputTokens: 100,
        costNanos: 10_000_000,
      });
    }
    // Only the items the forecast reads (hours, and the month for spend to date): fewer writes to dynalite.
    const deltas = aggregateDeltas(calls).filter((d) => /^(HOUR#[^#]+|MONTH#[^#]+|DAY#[^#]+)$/.test(d.sk));
    await h.services.aggregates.applyRecord('org_fc', '1', deltas);

    expect((await loadOrganizations(h.services)).orgIds).toContain('org_fc');
    const view = await simulateOrganization(h.services, 'org_fc');
    const byId = Object.fromEntries(view.horizons.map((x) => [x.horizon, x]));
    for (const x of view.horizons) {
      expect(x.p50Usd).toBeLessThanOrEqual(x.p95Usd);
      expect(x.p95Usd).toBeLessThanOrEqual(x.p99Usd);
    }
    // About 96 calls a day at $0.01: the rest of the month (~19.5 days) should project roughly $19.
    expect(byId.restOfMonth!.p50Usd).toBeGreaterThan(10);
    expect(byId.restOfMonth!.p50Usd).toBeLessThan(40);

    const monthToDate = byId.restOfMonth!.toDateUsd;
    const endOfToday = view.fan[0]!;
    expect(endOfToday.date).toBe('2026-11-10');
    expect(endOfToday.p95Usd).toBeCloseTo(monthToDate + byId.restOfDay!.p95Usd, 6);
    const last = view.fan[view.fan.length - 1]!;
    expect(last.date).toBe('2026-11-30');
    expect(last.p99Usd).toBeCloseTo(monthToDate + byId.restOfMonth!.p99Usd, 6);
    for (let i = 1; i < view.fan.length; i++)
      expect(view.fan[i]!.p50Usd).toBeGreaterThanOrEqual(view.fan[i - 1]!.p50Usd);

    await storeForecast(h.services, 'org_fc', view);
    expect((await h.services.forecasts.get('org_fc'))?.forecast).toEqual(view);
  }, 90_000);
});
