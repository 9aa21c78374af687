import fc from 'fast-check';
import { SESSION_LIMITS, summarizeSessions, type SessionCall, type SessionTrip } from './session-summary';

const call = (over: Partial<SessionCall>): SessionCall => ({
  ts: '2026-11-23T10:00:00.000Z',
  keyId: 'key1',
  sessionId: 'agent-7',
  costNanos: 1000,
  inputTokens: 100,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  fingerprint: null,
  ...over,
});
const at = (minute: number) => new Date(Date.UTC(2026, 10, 23, 10, minute)).toISOString();

describe('summarizeSessions', () => {
  it('groups by session and key, with exact cost, prompt growth, repeats, trip and session flag', () => {
    const calls = [
      call({ ts: at(3), inputTokens: 300, cacheReadTokens: 50, fingerprint: 'fpA', costNanos: 7 }),
      call({ ts: at(1), inputTokens: 100, fingerprint: 'fpA', costNanos: 5 }),
      call({ ts: at(2), inputTokens: 200, fingerprint: 'fpA', costNanos: 3 }),
      call({ ts: at(2), inputTokens: 10, fingerprint: 'fpB' }),
      call({ ts: at(5), sessionId: 'agent-7', keyId: 'key2' }), // same name, another key: another session
      call({ ts: at(4), sessionId: null }), // not a session
    ];
    const trips: Array<SessionTrip & { layer: string }> = [
      { at: at(2), keyId: 'key1', sessionId: 'agent-7', layer: 'identicalLoop' },
      { at: at(3), keyId: 'key1', sessionId: 'agent-7', layer: 'contextGrowth' },
      { at: at(9), keyId: 'key1', sessionId: 'other', layer: 'identicalLoop' },
    ];
    const flags = [
      { scope: 'organization', keyId: null, sessionId: null, state: 'THROTTLED' },
      { scope: 'session', keyId: 'key1', sessionId: 'agent-7', state: 'SUSPENDED' },
    ];
    const out = summarizeSessions(calls, trips, flags);
    expect(out.map((s) => [s.sessionId, s.keyId, s.calls])).toEqual([
      ['agent-7', 'key2', 1],
      ['agent-7', 'key1', 4],
    ]);
    const s = out[1]!;
    expect(s.costNanos).toBe(1000 + 5 + 3 + 7);
    expect([s.firstAt, s.lastAt]).toEqual([at(1), at(3)]);
    expect(s.promptTokens.map((p) => p.tokens)).toEqual([100, 200, 10, 350]);
    expect(s.repeatedFingerprints).toEqual([{ fingerprint: 'fpA', count: 3 }]);
    expect(s.trip?.layer).toBe('contextGrowth');
    expect(s.flag?.state).toBe('SUSPENDED');
    expect(out[0]!.flag).toBeNull();
    expect(out[0]!.trip).toBeNull();
  });

  it('property: every session call is counted once, costs add up exactly, newest session first, within bounds', () => {
    const arbCall = fc.record({
      ts: fc
        .integer({ min: 0, max: 10_000 })
        .map((m) => new Date(Date.UTC(2026, 0, 1) + m * 60_000).toISOString()),
      keyId: fc.constantFrom('k1', 'k2'),
      sessionId: fc.option(fc.constantFrom('s1', 's2', 's3'), { nil: null }),
      costNanos: fc.integer({ min: 0, max: 1e12 }),
      inputTokens: fc.nat(2_000_000),
      cacheReadTokens: fc.nat(1_000_000),
      cacheWrite5mTokens: fc.nat(1000),
      cacheWrite1hTokens: fc.nat(1000),
      fingerprint: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(arbCall, { maxLength: 400 }), (calls) => {
        const out = summarizeSessions(calls, [], []);
        const withSession = calls.filter((c) => c.sessionId !== null);
        expect(out.reduce((n, s) => n + s.calls, 0)).toBe(withSession.length);
        expect(out.reduce((n, s) => n + s.costNanos, 0)).toBe(
          withSession.reduce((n, c) => n + c.costNanos, 0),
        );
        for (let i = 1; i < out.length; i++) expect(out[i - 1]!.lastAt >= out[i]!.lastAt).toBe(true);
        for (const s of out) {
          expect(s.promptTokens.length).toBeLessThanOrEqual(SESSION_LIMITS.promptPoints);
          expect(s.repeatedFingerprints.every((f) => f.count >= 2)).toBe(true);
          expect(s.firstAt <= s.lastAt).toBe(true);
        }
      }),
    );
  });
});
