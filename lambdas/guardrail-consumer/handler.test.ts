import { flagKeyFor } from '../../core/keys';
import { createLambdaContext } from '../../local/runtime';
import { startBackendHarness, type BackendHarness } from '../../test/backend-harness';
import { envelopeOf, kinesisBatch, telemetryEvent } from '../../test/fixtures';
import { createGuardrailConsumer } from './handler';

let h: BackendHarness;
beforeAll(async () => {
  h = await startBackendHarness();
});
afterAll(() => h.close());

const context = createLambdaContext({ functionName: 'guardrails' });
const consumer = () =>
  createGuardrailConsumer({
    services: h.services,
    registry: h.registry,
    logger: h.logger,
    metrics: h.metrics,
  });
const T0 = Date.parse('2026-11-22T10:00:00.000Z');

describe('guardrail consumer', () => {
  it('suspends the organization on the 4th identical request and the edge key sees the flag', async () => {
    const key = await h.createKey('org_loop');
    const same = { fingerprint: `sha256:${'a'.repeat(64)}`, sessionId: 'agent-1' };
    const records = [0, 1, 2].map((i) => ({
      seq: String(1000 + i),
      envelope: envelopeOf(
        'org_loop',
        [telemetryEvent({ eventId: `l${i}`, ts: T0 + i * 1000, ...same })],
        key.publicId,
      ),
    }));
    await consumer()(kinesisBatch(records), context);
    const flagKey = flagKeyFor(key.prefix, h.pepper);
    expect(await h.services.flags.get(flagKey, T0)).toBeUndefined();

    const fourth = envelopeOf(
      'org_loop',
      [telemetryEvent({ eventId: 'l3', ts: T0 + 3000, ...same })],
      key.publicId,
    );
    expect(
      (await consumer()(kinesisBatch([{ seq: '1003', envelope: fourth }]), context)).batchItemFailures,
    ).toEqual([]);
    const flag = await h.services.flags.get(flagKey, T0 + 4000);
    expect(flag).toMatchObject({
      state: 'SUSPENDED',
      triggerType: 'token_loop_identical',
      mode: 'hard_stop',
      observedValue: 4,
      thresholdValue: 4,
    });
    expect(flag!.expiresAt - Math.floor(T0 / 1000)).toBe(2 * 3600);
    expect(h.notifications.some((n) => n.orgId === 'org_loop' && n.kind === 'guardrail_trip')).toBe(true);
    expect((await h.services.trips.recent('org_loop', 10))[0]).toMatchObject({
      triggerType: 'token_loop_identical',
    });
  });

  it('applies a redelivered record once (no second trip, state unchanged)', async () => {
    const key = await h.createKey('org_redeliver');
    const events = Array.from({ length: 11 }, (_, i) =>
      telemetryEvent({ eventId: `b${i}`, ts: T0 + i * 100, model: `gpt-4o-mini`, inputTokens: 100 + i * 37 }),
    );
    const batch = kinesisBatch([
      { seq: '2000', envelope: envelopeOf('org_redeliver', events, key.publicId) },
    ]);
    await consumer()(batch, context);
    const tripsAfterFirst = await h.services.trips.recent('org_redeliver', 10);
    expect(tripsAfterFirst.map((t) => t.triggerType)).toEqual(['rps_burst']);
    const stateAfterFirst = await h.services.guardrailState.get('org_redeliver');
    await consumer()(batch, context);
    expect(await h.services.guardrailState.get('org_redeliver')).toEqual(stateAfterFirst);
    expect(await h.services.trips.recent('org_redeliver', 10)).toHaveLength(1);
  });

  it('warns at the soft cap (ledger warning + notification) and suspends at the hard cap until the day ends', async () => {
    const key = await h.createKey('org_budget');
    await h.services.config.put('org_budget', {
      budget: { dailySoftLimitUsd: 0.01, dailyLimitUsd: 0.02, action: 'block' },
      policy: {},
      updatedAt: new Date(T0).toISOString(),
    });
    // gpt-4o: 1000 in + 500 out = $0.0075 per call (published $2.50 / $10 per MTok).
    const call = (i: number) => ({
      seq: String(3000 + i),
      envelope: envelopeOf(
        'org_budget',
        [telemetryEvent({ eventId: `m${i}`, ts: T0 + i * 61_000 })],
        key.publicId,
      ),
    });
    await consumer()(kinesisBatch([call(0), call(1)]), context); // $0.015: past the soft cap
    expect(h.notifications.filter((n) => n.orgId === 'org_budget').map((n) => n.kind)).toEqual([
      'soft_cap_warning',
    ]);
    const ledger = await h.services.ledger.query('org_budget', {}, 10, null);
    expect(ledger.entries.some((e) => e.kind === 'budget_warning')).toBe(true);
    expect(await h.services.flags.get(flagKeyFor(key.prefix, h.pepper), T0 + 200_000)).toBeUndefined();

    await consumer()(kinesisBatch([call(2)]), context); // $0.0225: past the hard cap
    const flag = await h.services.flags.get(flagKeyFor(key.prefix, h.pepper), T0 + 200_000);
    expect(flag).toMatchObject({ state: 'SUSPENDED', triggerType: 'budget_daily_hard' });
  });
});
