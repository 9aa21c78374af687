import fc from 'fast-check';
import { applyEvent, applyEvents } from './engine';
import { GUARDRAIL_LAYERS } from './layers';
import { DEFAULT_POLICY } from './policy';
import { initialOrgState } from './state';
import { deepFreeze, eventStreamArb, makeEvent, policyWith, runEngine, T0 } from './test-support';

const capped = policyWith({
  financialLimits: { dailySoftCapNanos: 20e9, dailyHardCapNanos: 40e9, monthlyHardCapNanos: 60e9 },
});

describe('engine', () => {
  it('runs every layer over an event and collects their verdicts', () => {
    const events = Array.from({ length: 11 }, (_, i) =>
      makeEvent({
        ts: T0 + i * 1000,
        fingerprint: 'sha256:' + 'c'.repeat(64),
        costNanos: 1e9,
        premium: true,
      }),
    );
    const { verdicts } = runEngine(events);
    expect(new Set(verdicts.map((v) => v.triggerType))).toEqual(
      new Set(['token_loop_identical', 'rps_burst', 'premium_concentration']),
    );
  });

  it('skips disabled layers', () => {
    const policy = policyWith({ identicalLoop: { enabled: false }, rpsBurst: { enabled: false } });
    const events = Array.from({ length: 11 }, (_, i) =>
      makeEvent({ ts: T0 + i * 1000, fingerprint: 'sha256:' + 'c'.repeat(64) }),
    );
    const { state, verdicts } = runEngine(events, policy);
    expect(verdicts).toEqual([]);
    expect(state.layers.identicalLoop.streams.ids).toEqual([]);
  });

  it('ignores a redelivered event: same state object, no verdicts', () => {
    const first = applyEvent(initialOrgState(), makeEvent({ seq: '49601' }), DEFAULT_POLICY, T0);
    const again = applyEvent(first.state, makeEvent({ seq: '49601' }), DEFAULT_POLICY, T0);
    const older = applyEvent(first.state, makeEvent({ seq: '9999' }), DEFAULT_POLICY, T0);
    expect(again).toEqual({ state: first.state, verdicts: [], outcome: 'duplicate' });
    expect(again.state).toBe(first.state);
    expect(older.outcome).toBe('duplicate');
  });

  it('compares sequence numbers numerically, not as text', () => {
    const first = applyEvent(initialOrgState(), makeEvent({ seq: '9' }), DEFAULT_POLICY, T0);
    expect(applyEvent(first.state, makeEvent({ seq: '10' }), DEFAULT_POLICY, T0).outcome).toBe('applied');
  });

  it.each([
    { name: 'a number', seq: 12 },
    { name: 'an empty string', seq: '' },
    { name: 'a non-decimal string', seq: '49x1' },
    { name: 'longer than 132 digits', seq: '9'.repeat(133) },
  ])('rejects an event whose seq is $name, changing nothing', ({ seq }) => {
    const state = initialOrgState();
    const r = applyEvent(state, { ...makeEvent(), seq: seq as string }, DEFAULT_POLICY, T0);
    expect(r.outcome).toBe('rejected');
    expect(r.state).toBe(state);
  });

  it('sanitizes impossible numbers instead of throwing', () => {
    const r = applyEvent(
      initialOrgState(),
      makeEvent({ costNanos: -5, promptTokens: Number.NaN, completionTokens: Infinity, ts: Number.NaN }),
      DEFAULT_POLICY,
      T0,
    );
    expect(r.outcome).toBe('applied');
    expect(r.state.layers.financialLimits.daySpendNanos).toBe(0);
    expect(JSON.parse(JSON.stringify(r.state))).toEqual(r.state);
  });

  it('fails open when a layer throws: its state is kept, the others still run', () => {
    const spy = jest.spyOn(GUARDRAIL_LAYERS.identicalLoop, 'step').mockImplementation(() => {
      throw new Error('bug');
    });
    try {
      const r = applyEvent(initialOrgState(), makeEvent({ costNanos: 7 }), DEFAULT_POLICY, T0);
      expect(r.failedLayers).toEqual(['identicalLoop']);
      expect(r.state.layers.identicalLoop).toEqual(initialOrgState().layers.identicalLoop);
      expect(r.state.layers.financialLimits.daySpendNanos).toBe(7);
    } finally {
      spy.mockRestore();
    }
  });

  it('applies a batch and counts outcomes', () => {
    const a = makeEvent();
    const b = makeEvent();
    const r = applyEvents(initialOrgState(), [a, b, a, { ...b, seq: 'x' }], DEFAULT_POLICY, T0);
    expect(r).toMatchObject({ applied: 2, duplicates: 1, rejected: 1 });
    expect(r.state.lastSeq).toBe(b.seq);
  });

  describe('properties', () => {
    it('never mutates its input and never throws', () => {
      fc.assert(
        fc.property(eventStreamArb, (events) => {
          let state = deepFreeze(initialOrgState());
          for (const e of events) {
            const before = JSON.stringify(state);
            const r = applyEvent(state, deepFreeze(e), capped, e.ts);
            expect(JSON.stringify(state)).toBe(before);
            expect(r.failedLayers).toBeUndefined();
            state = deepFreeze(r.state);
          }
        }),
        { numRuns: 100 },
      );
    });

    it('idempotency: re-applying any prefix changes nothing', () => {
      fc.assert(
        fc.property(eventStreamArb, fc.nat(), (events, k) => {
          const { state } = runEngine(events, capped);
          const prefix = events.slice(0, (k % events.length) + 1);
          for (const e of prefix) {
            const r = applyEvent(state, e, capped, e.ts);
            expect(r.outcome).toBe('duplicate');
            expect(r.state).toBe(state);
            expect(r.verdicts).toEqual([]);
          }
        }),
        { numRuns: 100 },
      );
    });

    it('a crashed batch replayed from the stored (JSON) state ends in the same state with the same verdicts', () => {
      fc.assert(
        fc.property(eventStreamArb, fc.nat(), (events, k) => {
          const cut = k % (events.length + 1);
          const once = runEngine(events, capped);
          const saved = JSON.parse(
            JSON.stringify(runEngine(events.slice(0, cut), capped).state),
          ) as typeof once.state;
          const replay = runEngine(events, capped, saved);
          expect(replay.state).toEqual(once.state);
          expect(replay.verdicts).toEqual(
            runEngine(events, capped).verdicts.filter((v) => Number(v.seq) >= 1000 + cut),
          );
        }),
        { numRuns: 100 },
      );
    });
  });
});
