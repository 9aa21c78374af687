import { flagKeyFor } from '../../core/keys';
import { orgFlagItemKey, sessionFlagItemKey } from '../shared/flag-item-keys';
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
  it('suspends the looping session (not its key, not the organization) on the 4th identical request', async () => {
    const key = await h.createKey('org_loop');
    const other = await h.createKey('org_loop');
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
    const sessionItem = sessionFlagItemKey(flagKey, 'agent-1');
    expect(await h.services.flags.get(sessionItem, T0)).toBeUndefined();

    const fourth = envelopeOf(
      'org_loop',
      [telemetryEvent({ eventId: 'l3', ts: T0 + 3000, ...same })],
      key.publicId,
    );
    expect(
      (await consumer()(kinesisBatch([{ seq: '1003', envelope: fourth }]), context)).batchItemFailures,
    ).toEqual([]);
    const flag = await h.services.flags.get(sessionItem, T0 + 4000);
    expect(flag).toMatchObject({
      scope: 'session',
      keyId: key.publicId,
      sessionId: 'agent-1',
      state: 'SUSPENDED',
      triggerType: 'token_loop_identical',
      mode: 'hard_stop',
      observedValue: 4,
      thresholdValue: 4,
    });
    expect(flag!.expiresAt - Math.floor(T0 / 1000)).toBe(2 * 3600);
    // Nothing else of the organization is stopped: not the key, not the org, not the other key.
    const otherFlagKey = flagKeyFor(other.prefix, h.pepper);
    expect(
      await h.services.flags.getMany(
        [flagKey, orgFlagItemKey(flagKey), otherFlagKey, orgFlagItemKey(otherFlagKey)],
        T0 + 4000,
      ),
    ).toEqual([]);
    expect(h.notifications.some((n) => n.orgId === 'org_loop' && n.kind === 'guardrail_trip')).toBe(true);
    expect((await h.services.trips.recent('org_loop', 10))[0]).toMatchObject({
      triggerType: 'token_loop_identical',
    });
  });

  it('hands each new trip to the OpenTelemetry export once and flushes it at the end of every batch', async () => {
    const key = await h.createKey('org_otel_trip');
    const trips: unknown[] = [];
    let flushes = 0;
    const exporting = createGuardrailConsumer({
      services: h.services,
      registry: h.registry,
      logger: h.logger,
      metrics: h.metrics,
      export: { trip: (t) => void trips.push(t), flush: async () => void flushes++ },
    });
    const same = { fingerprint: `sha256:${'c'.repeat(64)}`, sessionId: 'agent-otel' };
    const batchOf = (from: number, to: number) =>
      kinesisBatch(
        Array.from({ length: to - from }, (_, j) => ({
          seq: String(6000 + from + j),
          envelope: envelopeOf(
            'org_otel_trip',
            [telemetryEvent({ eventId: `o${from + j}`, ts: T0 + (from + j) * 1000, ...same })],
            key.publicId,
          ),
        })),
      );
    await exporting(batchOf(0, 3), context);
    expect([trips, flushes]).toEqual([[], 1]);
    await exporting(batchOf(3, 5), context); // the 4th identical request trips; the 5th finds the flag
    expect(flushes).toBe(2);
    expect(trips).toEqual([
      expect.objectContaining({
        orgId: 'org_otel_trip',
        keyId: key.publicId,
        sessionId: 'agent-otel',
        scope: 'session',
        triggerType: 'token_loop_identical',
        action: 'SUSPENDED',
      }),
    ]);
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
    // The same state and sequence (the write counter `rev` counts the second write).
    const { rev: _rev, ...again } = await h.services.guardrailState.get('org_redeliver');
    const { rev: _first, ...first } = stateAfterFirst;
    expect(again).toEqual(first);
    expect(await h.services.trips.recent('org_redeliver', 10)).toHaveLength(1);
  });

  it('after a Resume of the key, the burst window starts there: the next call does not trip it again, 11 new ones do', async () => {
    const key = await h.createKey('org_resume_burst');
    const burst = (from: number, n: number, at: number) =>
      Array.from({ length: n }, (_, i) =>
        telemetryEvent({ eventId: `r${from + i}`, ts: at + i * 100, inputTokens: 100 + (from + i) * 37 }),
      );
    let seq = 3000;
    const send = (events: ReturnType<typeof burst>) =>
      consumer()(
        kinesisBatch([
          { seq: String(seq++), envelope: envelopeOf('org_resume_burst', events, key.publicId) },
        ]),
        context,
      );
    const flagged = async () =>
      (await h.services.flags.listByOrg('org_resume_burst', T0 + 10_000)).filter(
        (f) => f.triggerType === 'rps_burst',
      );
    await send(burst(0, 11, T0));
    expect(await flagged()).toHaveLength(1);

    // A person resumes the key (the enforce function clears its flags and records the time).
    for (const f of await flagged()) await h.services.flags.delete(f.flagKey);
    await h.services.resumes.record('org_resume_burst', { scope: 'key', keyId: key.publicId }, T0 + 2_000);
    await send(burst(11, 1, T0 + 3_000));
    expect(await flagged()).toHaveLength(0);
    // Ten more after the Resume are eleven in the window since it: a new burst, tripped again.
    await send(burst(12, 10, T0 + 4_000));
    expect(await flagged()).toHaveLength(1);
  });

  it('after a Resume of the key, an identical-call run starts again there: 4 new identical calls trip, not 1', async () => {
    const key = await h.createKey('org_resume_loop');
    const same = { fingerprint: `sha256:${'c'.repeat(64)}` };
    let seq = 4000;
    const send = (n: number, at: number) =>
      consumer()(
        kinesisBatch([
          {
            seq: String(seq++),
            envelope: envelopeOf(
              'org_resume_loop',
              Array.from({ length: n }, (_, i) =>
                telemetryEvent({ eventId: `q${seq}-${i}`, ts: at + i, ...same }),
              ),
              key.publicId,
            ),
          },
        ]),
        context,
      );
    const flagged = async () =>
      (await h.services.flags.listByOrg('org_resume_loop', T0 + 20_000)).filter(
        (f) => f.triggerType === 'token_loop_identical',
      );
    await send(4, T0);
    expect(await flagged()).toHaveLength(1);

    for (const f of await flagged()) await h.services.flags.delete(f.flagKey);
    await h.services.resumes.record('org_resume_loop', { scope: 'key', keyId: key.publicId }, T0 + 5_000);
    await send(1, T0 + 6_000);
    await send(2, T0 + 7_000);
    expect(await flagged()).toHaveLength(0);
    await send(1, T0 + 8_000); // the 4th identical call since the Resume
    expect(await flagged()).toHaveLength(1);
  });

  it('warns at the soft cap (ledger warning + notification) and suspends every key at the hard cap, naming the key that sent the events', async () => {
    const key = await h.createKey('org_budget');
    const other = await h.createKey('org_budget');
    await h.services.config.put(
      'org_budget',
      {
        budget: { dailySoftLimitUsd: 0.01, dailyLimitUsd: 0.02, action: 'block' },
        policy: {},
        updatedAt: new Date(T0).toISOString(),
      },
      0,
    );
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
    const orgItem = orgFlagItemKey(flagKeyFor(key.prefix, h.pepper));
    expect(await h.services.flags.get(orgItem, T0 + 200_000)).toBeUndefined();

    await consumer()(kinesisBatch([call(2)]), context); // $0.0225: past the hard cap
    for (const k of [key, other]) {
      const flag = await h.services.flags.get(orgFlagItemKey(flagKeyFor(k.prefix, h.pepper)), T0 + 200_000);
      expect(flag).toMatchObject({
        scope: 'organization',
        state: 'SUSPENDED',
        triggerType: 'budget_daily_hard',
      });
    }
    const trip = (await h.services.trips.recent('org_budget', 10)).find(
      (t) => t.triggerType === 'budget_daily_hard',
    );
    expect(trip).toMatchObject({ keyId: key.publicId });
  });

  it('without a session id, a loop falls back to key scope; a policy can widen layer 2 to the organization', async () => {
    const key = await h.createKey('org_nosession');
    const loop = (org: string, publicId: string, base: number, sessionId: string | null) =>
      kinesisBatch(
        [0, 1, 2, 3].map((i) => ({
          seq: String(base + i),
          envelope: envelopeOf(
            org,
            [
              telemetryEvent({
                eventId: `n${base}${i}`,
                ts: T0 + i * 1000,
                fingerprint: `sha256:${'b'.repeat(64)}`,
                sessionId,
              }),
            ],
            publicId,
          ),
        })),
      );
    await consumer()(loop('org_nosession', key.publicId, 5000, null), context);
    const flagKey = flagKeyFor(key.prefix, h.pepper);
    expect(await h.services.flags.get(flagKey, T0 + 5000)).toMatchObject({
      scope: 'key',
      keyId: key.publicId,
      sessionId: null,
      triggerType: 'token_loop_identical',
    });

    const wide = await h.createKey('org_wide');
    const bystander = await h.createKey('org_wide');
    await h.services.config.put(
      'org_wide',
      {
        budget: {},
        policy: { identicalLoop: { scope: 'organization' } },
        updatedAt: new Date(T0).toISOString(),
      },
      0,
    );
    await consumer()(loop('org_wide', wide.publicId, 6000, 'agent-9'), context);
    const bystanderOrgItem = orgFlagItemKey(flagKeyFor(bystander.prefix, h.pepper));
    expect(await h.services.flags.get(bystanderOrgItem, T0 + 5000)).toMatchObject({
      scope: 'organization',
      triggerType: 'token_loop_identical',
    });
  });
});
