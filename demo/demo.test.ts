/**
 * The demo end to end (docs/demo.md): the local stack, the whole fleet, and the outcome `npm run demo`
 * exits with. Phase 1: a fleet of 32 concurrent calls against a $0.30 daily hard cap, held by the relay's
 * admission. Phase 2: one runaway per layer, most of them sharing one organization and two keys, each
 * stopped in its own scope while its neighbours keep working.
 */
import { FLEET, runDemo, type DemoResult } from './fleet';

let result: DemoResult;
let output = '';

beforeAll(async () => {
  result = await runDemo({
    out: { write: (text: string) => (output += text) },
    tty: false,
    stack: { dashboardDir: '/nonexistent' },
  });
}, 90_000);

const agent = (name: string) => {
  const a = result.agents.find((x) => x.name === name);
  if (a === undefined) throw new Error(`no agent ${name} in the result`);
  return a;
};

describe('npm run demo', () => {
  it('stops every runaway by its own layer, at the call that was refused', () => {
    const runaways = result.agents.filter((a) => a.expectedLayer !== null);
    expect(runaways.map((a) => a.expectedLayer).sort()).toEqual([1, 2, 2, 3, 4, 5]);
    for (const a of runaways) {
      expect({ name: a.name, status: a.status, layer: a.stoppedBy?.layer }).toEqual({
        name: a.name,
        status: 'stopped',
        layer: a.expectedLayer,
      });
      // One worker: its refused call is its last. A concurrent fleet: every worker's last call was refused.
      if (a.name === 'budget-fleet') expect(a.calls).toBeGreaterThan(a.stoppedAtCall ?? Infinity);
      else expect(a.stoppedAtCall).toBe(a.calls);
      // The trip recorded for its own key and session is its own layer's (admission refuses without one).
      if (a.stoppedBy?.scope !== 'admission') expect(a.trip?.layer).toBe(a.expectedLayer);
    }
  });

  it('holds a fleet of 32 concurrent calls at its daily hard cap: overshoot at most one call', () => {
    const adm = result.admission;
    expect(adm).not.toBeNull();
    if (adm === null) return;
    expect(adm.concurrency).toBe(32);
    expect(adm.capUsd).toBe(0.3);
    // The served calls at gpt-4o's list prices: 500 output tokens ($0.005) and a short prompt each.
    expect(adm.maxCallUsd).toBeGreaterThan(0.005);
    expect(adm.maxCallUsd).toBeLessThan(0.0052);
    // The cap was reached: no calls are left reserved, and the counter holds exactly what the ledger
    // holds, which is what was served (a slice left on the counter by a container that froze would
    // lapse and count as spent: docs/admission.md, "Idle holders").
    const margin = 0.0005; // the prompt's byte bound: a call's worst case over its cost
    expect(adm.outstandingReservations).toBe(0);
    expect(adm.spendTodayUsd).toBeCloseTo(adm.servedUsd, 6);
    expect(adm.settledUsd).toBeCloseTo(adm.servedUsd, 6);
    // Spend past the cap: at most one call's cost.
    expect(adm.settledUsd).toBeLessThanOrEqual(0.3 + adm.maxCallUsd);
    expect(adm.servedUsd).toBeLessThanOrEqual(0.3 + adm.maxCallUsd);
    expect(adm.overshootUsd).toBeLessThanOrEqual(adm.maxCallUsd);
    // Refusals came only when another call no longer fit: what the cap had left is less than one call's
    // worst case, so the fleet was served the cap's worth (≈ 59 calls of ≈ $0.005).
    expect(adm.headroomUsd).toBeLessThan(adm.maxCallUsd + margin);
    expect(adm.refused).toBe(32);
    expect(adm.served).toBeGreaterThanOrEqual(Math.floor((0.3 - margin) / adm.maxCallUsd));
    expect(adm.served).toBeLessThanOrEqual(Math.floor(0.3 / adm.maxCallUsd) + 1);
    expect(agent('budget-fleet').stoppedBy?.scope).toBe('admission');
    expect(output).toMatch(/spend past the cap +\$0\.\d{4} \(bound: one call, \$0\.00\d\d\)/);
  });

  it('stops a looping session while the same key’s other session and the other key work to the end', () => {
    const loop = agent('retry-loop');
    const sibling = agent('research-assistant');
    const otherKey = agent('support-bot');
    // One organization, the loop and its sibling on one key, in different sessions; a second key.
    expect(new Set([loop.orgId, sibling.orgId, otherKey.orgId]).size).toBe(1);
    expect(sibling.key).toBe(loop.key);
    expect(sibling.session).not.toBe(loop.session);
    expect(otherKey.key).not.toBe(loop.key);
    expect(loop.stoppedBy).toMatchObject({ layer: 2, scope: 'session', via: 'sdk' });
    for (const a of [sibling, otherKey]) {
      expect({ name: a.name, status: a.status }).toEqual({ name: a.name, status: 'finished' });
      // They went on after the loop (and every other runaway) was stopped.
      expect(a.callsAfterRunaways).toBeGreaterThanOrEqual(1);
    }
    expect(sibling.calls).toBeGreaterThanOrEqual(4);
    // Layer 3 is session-scoped too (its sibling on the key is support-bot); layer 4 stops one key.
    expect(agent('context-grower').stoppedBy?.scope).toBe('session');
    expect(agent('context-grower').key).toBe(otherKey.key);
    expect(agent('burst-sender').stoppedBy?.scope).toBe('key');
    expect(agent('burst-sender').orgId).toBe(loop.orgId);
    expect(output).toMatch(
      /stopped retry-loop at call \d+, blocked by the SDK \(session retry-loop-1 of key agents-sdk\)/,
    );
    expect(output).toMatch(
      /kept working to the end: .*research-assistant \(same key, session research-1, \d+ calls\)/,
    );
  });

  it('stops the looping Bedrock agent (AWS SDK as it comes, HTTP/2) at the proxy within 6 calls', () => {
    const a = agent('bedrock-loop');
    expect(a.stoppedBy).toMatchObject({ layer: 2, scope: 'session', via: 'proxy' });
    expect(a.stoppedAtCall).toBeLessThanOrEqual(6);
  });

  it('never stops a healthy agent', () => {
    const healthy = result.agents.filter((a) => a.expectedLayer === null);
    expect(healthy.map((a) => a.path).sort()).toEqual(['proxy', 'sdk']);
    for (const a of healthy) {
      expect({ name: a.name, status: a.status }).toEqual({ name: a.name, status: 'finished' });
      expect(a.calls).toBeGreaterThanOrEqual(4);
      expect(a.served).toBe(a.calls);
      expect(a.spendUsd).toBeGreaterThan(0);
    }
  });

  it('stops runaways on both paths: refused by the proxy and blocked by the SDK', () => {
    const vias = new Set(result.agents.flatMap((a) => (a.stoppedBy ? [a.stoppedBy.via] : [])));
    expect([...vias].sort()).toEqual(['proxy', 'sdk']);
    // Layers 1 and 5 stop organizations, so their runaways are alone in theirs.
    for (const name of ['budget-fleet', 'premium-hijack']) {
      const a = agent(name);
      expect(result.agents.filter((o) => o.orgId === a.orgId).map((o) => o.name)).toEqual([name]);
    }
    expect(FLEET.length).toBe(result.agents.length);
  });

  it('reports success, the final table, the forecast and the dashboard', () => {
    expect(result.ok).toBe(true);
    expect(output).toMatch(
      /budget-fleet +local +proxy +layer 1 .*STOPPED by layer 1 \(budget_daily_hard\) at call \d+ +yes/,
    );
    expect(output).toMatch(/support-bot +team +proxy +healthy .* finished +yes/);
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
    expect(result.fleetMs).toBeLessThan(52_000);
  });
});
