/**
 * The demo end to end (docs/demo.md): the local stack, the whole fleet, and the outcome `npm run demo`
 * exits with. About 40 s: the SDK-path runaway is blocked only when the SDK re-reads its flag (≤ 30 s).
 */
import { runDemo, type DemoResult } from './fleet';

let result: DemoResult;
let output = '';

beforeAll(async () => {
  result = await runDemo({
    out: { write: (text: string) => (output += text) },
    tty: false,
    stack: { dashboardDir: '/nonexistent' },
  });
}, 60_000);

describe('npm run demo', () => {
  it('stops every runaway by its own layer, at the call that was refused', () => {
    const runaways = result.agents.filter((a) => a.expectedLayer !== null);
    expect(runaways.map((a) => a.expectedLayer).sort()).toEqual([1, 2, 3, 4, 5]);
    for (const a of runaways) {
      expect({ name: a.name, status: a.status, layer: a.stoppedBy?.layer }).toEqual({
        name: a.name,
        status: 'stopped',
        layer: a.expectedLayer,
      });
      expect(a.stoppedAtCall).toBe(a.calls);
      // The first trip recorded for its organization is its own layer's.
      expect(a.trip?.layer).toBe(a.expectedLayer);
    }
  });

  it('never stops a healthy agent', () => {
    const healthy = result.agents.filter((a) => a.expectedLayer === null);
    expect(healthy.map((a) => a.path).sort()).toEqual(['proxy', 'sdk']);
    for (const a of healthy) {
      expect({ name: a.name, status: a.status }).toEqual({ name: a.name, status: 'finished' });
      expect(a.calls).toBeGreaterThanOrEqual(4);
      expect(a.spendUsd).toBeGreaterThan(0);
    }
  });

  it('stops runaways on both paths: refused by the proxy and blocked by the SDK', () => {
    const vias = new Set(result.agents.flatMap((a) => (a.stoppedBy ? [a.stoppedBy.via] : [])));
    expect([...vias].sort()).toEqual(['proxy', 'sdk']);
  });

  it('reports success, the final table, the forecast and the dashboard', () => {
    expect(result.ok).toBe(true);
    expect(output).toMatch(
      /budget-burner +proxy +layer 1 .*STOPPED by layer 1 \(budget_daily_hard\) at call \d+ +yes/,
    );
    expect(output).toMatch(/support-bot +proxy +healthy .* finished +yes/);
    expect(result.forecast?.horizons.map((h) => h.horizon)).toEqual([
      'restOfDay',
      'restOfMonth',
      'next7Days',
      'next30Days',
    ]);
    for (const h of result.forecast?.horizons ?? []) {
      expect(h.p50Usd).toBeLessThanOrEqual(h.p95Usd);
      expect(h.p95Usd).toBeLessThanOrEqual(h.p99Usd);
    }
    expect(output).toContain(`Dashboard: ${result.dashboardUrl}`);
    expect(output).toContain('RESULT: every runaway was stopped by its own layer');
    expect(result.fleetMs).toBeLessThan(50_000);
  });
});
