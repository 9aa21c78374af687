import fc from 'fast-check';
import { identicalLoopLayer } from './identical-loop';
import {
  InlineLoopTable,
  DEFAULT_INLINE_LIMITS,
  type InlineLoopCall,
  type InlineLoopPolicy,
} from './inline-loop';
import { parseGuardrailPolicy } from './policy';
import { makeEvent, runLayer, T0 } from './test-support';
import type { VerdictScope } from './types';

const FP = (c: string) => `sha256:${c.repeat(64)}`;
const A = FP('a');
const B = FP('b');
const DEFAULT: InlineLoopPolicy = parseGuardrailPolicy({}).identicalLoop;

function call(over: Partial<InlineLoopCall> = {}): InlineLoopCall {
  return {
    orgId: 'org_a',
    keyId: 'key_1',
    sessionId: undefined,
    model: 'gpt-4o-mini',
    fingerprint: A,
    ...over,
  };
}

/**
 * Plays calls through the check as the relay does: a call under a hold is refused (not counted), any other
 * is counted. Returns the 1-based numbers of the refused calls and of the calls that put a hold.
 */
function play(
  calls: readonly (InlineLoopCall & { at: number })[],
  policy: InlineLoopPolicy = DEFAULT,
  state: InlineLoopTable = new InlineLoopTable(),
): { refused: number[]; holds: { at: number; scope: VerdictScope }[]; state: InlineLoopTable } {
  const refused: number[] = [];
  const holds: { at: number; scope: VerdictScope }[] = [];
  calls.forEach((c, i) => {
    if (state.holdOf(c, c.at) !== undefined) {
      refused.push(i + 1);
      return;
    }
    const hold = state.observe(c, policy, c.at);
    if (hold) holds.push({ at: i + 1, scope: hold.scope });
  });
  return { refused, holds, state };
}

const renamed = (n: number, at0 = T0, gapMs = 5) =>
  Array.from({ length: n }, (_, i) => ({ ...call({ sessionId: `attempt-${i}` }), at: at0 + i * gapMs }));

describe('in-line loop check (issue 19.6)', () => {
  it('a loop renaming its session on every call is refused from the call after the pipeline’s verdict call', () => {
    const { refused, holds } = play(renamed(20));
    expect(holds).toEqual([{ at: 4, scope: 'key' }]);
    expect(refused).toEqual(Array.from({ length: 16 }, (_, i) => i + 5));
  });

  it('applies only an enabled hard_stop policy', () => {
    for (const policy of [
      { ...DEFAULT, enabled: false },
      { ...DEFAULT, mode: 'throttle' as const },
      { ...DEFAULT, mode: 'alert' as const },
    ]) {
      expect(play(renamed(20), policy).refused).toEqual([]);
    }
  });

  it('takes the policy’s scope: organization stops every key of the organization, session only that session', () => {
    const org = play(renamed(4), { ...DEFAULT, scope: 'organization' });
    expect(org.holds).toEqual([{ at: 4, scope: 'organization' }]);
    const other = { orgId: 'org_a', keyId: 'key_2', sessionId: undefined };
    expect(org.state.holdOf(other, T0 + 100)).toMatchObject({ scope: 'organization' });
    expect(org.state.holdOf({ ...other, orgId: 'org_b' }, T0 + 100)).toBeUndefined();

    const same = Array.from({ length: 4 }, (_, i) => ({ ...call({ sessionId: 's1' }), at: T0 + i }));
    const session = play(same);
    expect(session.holds).toEqual([{ at: 4, scope: 'session' }]);
    expect(session.state.holdOf({ ...other, keyId: 'key_1', sessionId: 's2' }, T0 + 10)).toBeUndefined();
    expect(session.state.holdOf({ ...other, keyId: 'key_1', sessionId: 's1' }, T0 + 10)).toBeDefined();
    // no session named: the key (the pipeline's fallback for a session verdict without a session)
    const unnamed = Array.from({ length: 4 }, (_, i) => ({ ...call(), at: T0 + i }));
    expect(play(unnamed).holds).toEqual([{ at: 4, scope: 'key' }]);
  });

  it('a hold ends after holdMs, and the run then starts again from zero', () => {
    const first = play(renamed(4));
    const end = T0 + 15 + DEFAULT_INLINE_LIMITS.holdMs;
    expect(first.state.holdOf(call(), end - 1)).toBeDefined();
    expect(first.state.holdOf(call(), end)).toBeUndefined();
    // after the hold: three more identical calls pass, the fourth puts a hold again
    const again = play(renamed(5, end), DEFAULT, first.state);
    expect(again.holds).toEqual([{ at: 4, scope: 'key' }]);
    expect(again.refused).toEqual([5]);
  });

  it('a hold ends when the flag is seen (release), and the key’s runs start again; other keys keep theirs', () => {
    const { state } = play([...renamed(4), ...renamed(4).map((c) => ({ ...c, keyId: 'key_2' }))]);
    state.release({ orgId: 'org_a', keyId: 'key_1' });
    expect(state.holdOf(call(), T0 + 30)).toBeUndefined();
    expect(state.holdOf({ ...call(), keyId: 'key_2' }, T0 + 30)).toBeDefined();
    expect(play(renamed(3, T0 + 40), DEFAULT, state).holds).toEqual([]);
    // an organization's hold is released by a flag seen on any of its keys
    const org = play(renamed(4), { ...DEFAULT, scope: 'organization' }).state;
    org.release({ orgId: 'org_a', keyId: 'key_9' });
    expect(org.holdOf(call(), T0 + 30)).toBeUndefined();
  });

  it('property: the run count reaches the boundary exactly, a different request resets it, so does an idle pause', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 1, max: 14 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom<'none' | 'other' | 'idle' | 'unfingerprinted'>(
          'none',
          'other',
          'idle',
          'unfingerprinted',
        ),
        (consecutive, before, after, breaker) => {
          const policy = { ...DEFAULT, consecutive, resetAfterIdleMs: 60_000 };
          const calls: (InlineLoopCall & { at: number })[] = [];
          let at = T0;
          for (let i = 0; i < before; i++) calls.push({ ...call({ sessionId: `s${i}` }), at: (at += 10) });
          if (breaker === 'other') calls.push({ ...call({ fingerprint: B }), at: (at += 10) });
          if (breaker === 'unfingerprinted') calls.push({ ...call({ fingerprint: null }), at: (at += 10) });
          if (breaker === 'idle') at += 60_001;
          for (let i = 0; i < after; i++) calls.push({ ...call({ sessionId: `t${i}` }), at: (at += 10) });
          const { holds } = play(calls, policy);
          const runs = breaker === 'none' ? [before + after] : [before, after];
          // the first run that reaches `consecutive` puts the hold on its consecutive-th call
          let offset = 0;
          let expected: number | undefined;
          for (const [i, n] of runs.entries()) {
            if (expected === undefined && n >= consecutive) expected = offset + consecutive;
            offset += n + (i === 0 && (breaker === 'other' || breaker === 'unfingerprinted') ? 1 : 0);
          }
          expect(holds[0]?.at).toBe(expected);
        },
      ),
    );
  });

  it('property: it holds on the call the pipeline gives its key-stream verdict on, at the verdict’s scope', () => {
    // One key and model, calls from a few sessions (or none) with two requests. Oracles: the first call
    // that completes `consecutive` identical calls in a row over the key (whatever the session), and that
    // call's own session run. The pipeline (layer 2) sees every call; the in-line check sees the same prefix
    // up to its first hold (refused calls are never forwarded, so they have no event).
    fc.assert(
      fc.property(
        fc.array(fc.record({ fp: fc.constantFrom(A, B), session: fc.constantFrom('s1', 's2', 's3', '') }), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.integer({ min: 2, max: 6 }),
        fc.constantFrom<VerdictScope>('session', 'key', 'organization'),
        (seq, consecutive, scope) => {
          const policy = parseGuardrailPolicy({ identicalLoop: { consecutive, scope } });
          const events = seq.map((c, i) =>
            makeEvent({
              keyId: 'key_1',
              model: 'gpt-4o-mini',
              fingerprint: c.fp,
              ...(c.session ? { sessionId: c.session } : {}),
              ts: T0 + i * 10,
            }),
          );
          const verdicts = runLayer(identicalLoopLayer, events, policy).verdicts;
          const inline = play(
            seq.map((c, i) => ({
              ...call({ fingerprint: c.fp, sessionId: c.session || undefined }),
              at: T0 + i * 10,
            })),
            policy.identicalLoop,
          );
          // oracle: the first index whose key run reaches `consecutive`, and the sessions it spans
          let k0 = -1;
          for (let i = 0, run = 0; i < seq.length && k0 < 0; i++) {
            run = i > 0 && seq[i]!.fp === seq[i - 1]!.fp ? run + 1 : 1;
            if (run >= consecutive) k0 = i;
          }
          const firstHold = inline.holds[0];
          if (k0 < 0) {
            expect(firstHold).toBeUndefined();
            expect(inline.refused).toEqual([]);
            return;
          }
          expect(firstHold?.at).toBe(k0 + 1);
          expect(verdicts[k0]!.length).toBeGreaterThan(0); // the pipeline gives a verdict on that call too
          const runSessions = new Set(seq.slice(k0 - consecutive + 1, k0 + 1).map((c) => c.session));
          const own = seq.slice(0, k0 + 1).filter((c) => c.session === seq[k0]!.session);
          let ownRun = 0;
          for (let i = own.length - 1; i >= 0 && own[i]!.fp === seq[k0]!.fp; i--) ownRun++;
          const acrossSessions = runSessions.size > 1;
          const expectedScope: VerdictScope = acrossSessions
            ? scope === 'organization'
              ? 'organization'
              : 'key'
            : scope === 'session' && seq[k0]!.session === ''
              ? 'key'
              : scope;
          expect(firstHold?.scope).toBe(expectedScope);
          // the pipeline's verdict has that scope, unless the call's own session also completed a run
          // (then the pipeline's verdict is the session's, at the layer's scope: the documented corner)
          if (!(acrossSessions && ownRun >= consecutive)) {
            const pipelineScope = verdicts[k0]![0]!.scope;
            expect(pipelineScope === 'session' && seq[k0]!.session === '' ? 'key' : pipelineScope).toBe(
              expectedScope,
            );
          }
          expect(inline.refused[0] ?? Infinity).toBeGreaterThan(k0 + 1);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: one key opening runs without end never evicts another key’s runs while it holds more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 24 }),
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 3 }),
        (capacity, victimRuns, flood, bystanders) => {
          const table = new InlineLoopTable({ ...DEFAULT_INLINE_LIMITS, runsCapacity: capacity });
          let at = T0;
          const victimModels = Array.from({ length: Math.min(victimRuns, capacity) }, (_, i) => `v-${i}`);
          for (const model of victimModels)
            table.observe(call({ keyId: 'victim', model }), DEFAULT, (at += 1));
          for (let b = 0; b < bystanders; b++) table.observe(call({ keyId: `b-${b}` }), DEFAULT, (at += 1));
          for (let i = 0; i < flood; i++) {
            const c = call({ keyId: 'flooder', model: `f-${i}`, fingerprint: FP((i % 10).toString()) });
            table.observe(c, DEFAULT, (at += 1));
          }
          expect(table.runCount).toBeLessThanOrEqual(capacity);
          // what the table still counts for each victim run (a read: no call is made)
          const kept = victimModels.filter(
            (model) => table.countOf(call({ keyId: 'victim', model })) === 1,
          ).length;
          // the victim keeps what it had, down to its share against the flooder (half of what the two hold)
          const share = Math.floor((capacity - Math.min(bystanders, capacity)) / 2);
          expect(kept).toBeGreaterThanOrEqual(Math.min(victimModels.length, share));
          if (flood === 0 && victimModels.length + bystanders <= capacity)
            expect(kept).toBe(victimModels.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: holds are bounded and one key’s holds never evict another key’s while it holds more', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 0, max: 60 }), (capacity, flood) => {
        const table = new InlineLoopTable({ ...DEFAULT_INLINE_LIMITS, holdsCapacity: capacity });
        const policy = { ...DEFAULT, consecutive: 2 };
        let at = T0;
        const loop = (keyId: string, sessionId: string, fingerprint: string) => {
          for (let i = 0; i < 2; i++)
            table.observe(call({ keyId, sessionId, fingerprint }), policy, (at += 1));
        };
        loop('victim', 'v', A);
        // the flooder's loops are each held in their own session (session scope)
        for (let i = 0; i < flood; i++) loop('flooder', `f-${i}`, FP((i % 10).toString()));
        expect(table.holdCount).toBeLessThanOrEqual(capacity);
        expect(table.holdOf({ orgId: 'org_a', keyId: 'victim', sessionId: 'v' }, at)).toBeDefined();
      }),
    );
  });
});
