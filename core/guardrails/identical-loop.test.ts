import { identicalLoopLayer } from './identical-loop';
import { makeEvent, policyWith, runLayer, T0, trippedAt } from './test-support';
import type { GuardrailEvent } from './types';

const A = 'sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

/** One call per letter: A/B = body fingerprints; digits = SDK calls (no fingerprint) with that many hundred prompt tokens. */
function calls(pattern: string, extra: Partial<GuardrailEvent> = {}, gapMs = 5000): GuardrailEvent[] {
  return [...pattern].map((c, i) =>
    makeEvent({
      ts: T0 + i * gapMs,
      ...(c === 'A'
        ? { fingerprint: A }
        : c === 'B'
          ? { fingerprint: B }
          : { promptTokens: Number(c) * 100 }),
      ...extra,
    }),
  );
}

describe('identical loop (layer 2)', () => {
  it.each([
    { name: 'kills on exactly the 4th identical call', pattern: 'AAAA', expected: [4] },
    { name: 're-emits while the loop goes on', pattern: 'AAAAAA', expected: [4, 5, 6] },
    { name: 'three identical calls (a call and two SDK retries) pass', pattern: 'AAAB', expected: [] },
    { name: 'a different request in between resets the run', pattern: 'AAABAAA', expected: [] },
    { name: 'alternating requests are not "in a row"', pattern: 'ABABABAB', expected: [] },
    { name: 'fallback: same model + prompt tokens 4 times', pattern: '5555', expected: [4] },
    { name: 'fallback: different prompt sizes', pattern: '5565', expected: [] },
    {
      name: 'fallback: failed calls without usage neither count nor reset',
      pattern: '5505055',
      expected: [6, 7],
    },
  ])('$name', ({ pattern, expected }) => {
    const { verdicts } = runLayer(identicalLoopLayer, calls(pattern));
    expect(trippedAt(verdicts)).toEqual(expected);
  });

  it('counts per session, and across the sessions of a key: a run spread over two sessions stops the key', () => {
    const s1 = calls('AA', { sessionId: 's1' });
    const s2 = calls('AA', { sessionId: 's2' });
    const { verdicts } = runLayer(identicalLoopLayer, [...s1, ...s2]);
    expect(trippedAt(verdicts)).toEqual([4]);
    expect(verdicts[3]?.[0]).toMatchObject({ scope: 'key', observedValue: 4 });
    expect(verdicts[3]?.[0]).not.toHaveProperty('sessionId');
  });

  it('a loop that names a new session on every call is stopped at key scope on the 4th call (issue 19.6)', () => {
    const renamed = Array.from({ length: 20 }, (_, i) => calls('A', { sessionId: `run-${i}` })[0]!);
    const { verdicts } = runLayer(identicalLoopLayer, renamed);
    expect(trippedAt(verdicts)[0]).toBe(4);
    expect(verdicts[3]?.[0]).toMatchObject({ scope: 'key', triggerType: 'token_loop_identical' });
  });

  it('one key’s many sessions never evict another key’s loop state', () => {
    const policy = policyWith({ limits: { maxSessions: 8 } });
    // key B is three calls into a loop; key A then opens 50 fresh sessions with distinct requests
    const b = calls('AAA', { keyId: 'key_b', sessionId: 'agent-b' });
    const flood = Array.from({ length: 50 }, (_, i) => ({
      ...calls('A', { keyId: 'key_a', sessionId: `s-${i}` })[0]!,
      ts: T0 + 20_000 + i * 1_000, // each newer than key B's last call: plain LRU would evict B first
      fingerprint: `sha256:${i.toString(16).padStart(64, '0')}`,
    }));
    const again = calls('A', { keyId: 'key_b', sessionId: 'agent-b', ts: T0 + 80_000 });
    const { verdicts } = runLayer(identicalLoopLayer, [...b, ...flood, ...again], policy);
    const last = verdicts[verdicts.length - 1];
    expect(last?.[0]).toMatchObject({ scope: 'session', sessionId: 'agent-b', observedValue: 4 });
  });

  it('without a session id, keys the run by key + model', () => {
    const interleaved = [
      ...calls('5'),
      makeEvent({ model: 'gpt-4o-mini', promptTokens: 120 }),
      ...calls('555'),
    ];
    const { verdicts } = runLayer(identicalLoopLayer, interleaved);
    expect(trippedAt(verdicts)).toEqual([5]);
  });

  it('a pause longer than resetAfterIdleMs restarts the count (an hourly job is not a loop)', () => {
    const { verdicts } = runLayer(identicalLoopLayer, calls('AAAAAA', {}, 3_600_000));
    expect(trippedAt(verdicts)).toEqual([]);
  });

  it('honours a custom threshold and mode', () => {
    const policy = policyWith({ identicalLoop: { consecutive: 2, mode: 'throttle' } });
    const { verdicts } = runLayer(identicalLoopLayer, calls('AA', { sessionId: 'run-7' }), policy);
    expect(verdicts[1]).toEqual([
      expect.objectContaining({
        layer: 'identicalLoop',
        triggerType: 'token_loop_identical',
        observedValue: 2,
        thresholdValue: 2,
        mode: 'throttle',
        action: 'THROTTLED',
        scope: 'session',
        keyId: 'abn_key1',
        sessionId: 'run-7',
      }),
    ]);
  });

  it('keeps at most maxSessions streams, evicting the least recently seen', () => {
    const policy = policyWith({ limits: { maxSessions: 3 } });
    const events = Array.from({ length: 10 }, (_, i) => makeEvent({ sessionId: `s${i}`, ts: T0 + i }));
    const { state } = runLayer(identicalLoopLayer, events, policy);
    expect(state.streams.ids).toHaveLength(3);
  });
});
