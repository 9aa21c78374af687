import { contextGrowthLayer, linearIncrements } from './context-growth';
import { DEFAULT_POLICY } from './policy';
import { makeEvent, policyWith, runLayer, T0, trippedAt } from './test-support';

/** Events of one session with the given prompt sizes, 5 s apart. */
function session(prompts: number[], sessionId = 'agent-1', gapMs = 5000) {
  return prompts.map((promptTokens, i) => makeEvent({ promptTokens, sessionId, ts: T0 + i * gapMs }));
}

/** Prompt sizes starting at `start` and growing by the given increments. */
function grow(start: number, increments: number[]): number[] {
  const out = [start];
  for (const d of increments) out.push((out[out.length - 1] as number) + d);
  return out;
}

describe('context growth (layer 3)', () => {
  it.each([
    {
      name: 'error loop: +300 tokens every call → killed on the 7th call',
      prompts: grow(2000, [300, 300, 300, 300, 300, 300, 300]),
      expected: [7, 8],
    },
    {
      name: 'near-constant increments within 10 % of the mean',
      prompts: grow(2000, [300, 310, 295, 305, 290, 315]),
      expected: [7],
    },
    {
      name: 'one increment 20 % off breaks the pattern',
      prompts: grow(2000, [300, 300, 360, 300, 300, 300]),
      expected: [],
    },
    {
      name: 'ordinary conversation: growth with varied increments',
      prompts: grow(1500, [420, 80, 1900, 260, 35, 700, 310, 95]),
      expected: [],
    },
    {
      name: 'increments below the 50-token minimum are not a loop',
      prompts: grow(1000, [40, 40, 40, 40, 40, 40, 40]),
      expected: [],
    },
    {
      name: 'a shrinking context (summarization) restarts the run',
      prompts: [...grow(2000, [300, 300, 300, 300]), 900, ...grow(1200, [300, 300, 300]).slice(1)],
      expected: [],
    },
    {
      name: 'constant prompts are layer 2’s business, not growth',
      prompts: [5000, 5000, 5000, 5000, 5000, 5000, 5000],
      expected: [],
    },
  ])('$name', ({ prompts, expected }) => {
    const { verdicts } = runLayer(contextGrowthLayer, session(prompts));
    expect(trippedAt(verdicts)).toEqual(expected);
  });

  it('reports the run length, the threshold and the mean increment', () => {
    const { verdicts } = runLayer(
      contextGrowthLayer,
      session(grow(2000, [300, 300, 300, 300, 300, 300, 300])),
    );
    expect(verdicts[7]).toEqual([
      expect.objectContaining({
        triggerType: 'context_growth_linear',
        observedValue: 7,
        thresholdValue: 6,
        scope: 'session',
        sessionId: 'agent-1',
        action: 'SUSPENDED',
      }),
    ]);
    expect(verdicts[7]?.[0]?.message).toContain('+300 prompt tokens per call');
  });

  it('tracks sessions separately: two interleaved linear sessions are both caught', () => {
    const a = session(grow(1000, [200, 200, 200, 200, 200, 200]), 'a');
    const b = session(grow(5000, [700, 700, 700, 700, 700, 700]), 'b');
    const interleaved = a.flatMap((e, i) => [e, b[i] as typeof e]);
    const { verdicts } = runLayer(contextGrowthLayer, interleaved);
    expect(trippedAt(verdicts)).toEqual([13, 14]);
  });

  it('a long pause restarts the run', () => {
    const { verdicts } = runLayer(
      contextGrowthLayer,
      session(grow(2000, [300, 300, 300, 300, 300, 300]), 'x', 20 * 60_000),
    );
    expect(trippedAt(verdicts)).toEqual([]);
  });

  it('skips failed calls that report no prompt tokens', () => {
    const prompts = grow(2000, [300, 300, 300, 300, 300, 300]);
    prompts.splice(3, 0, 0);
    const { verdicts } = runLayer(contextGrowthLayer, session(prompts));
    expect(trippedAt(verdicts)).toEqual([8]);
  });

  it('honours the window, the ratio and the absolute tolerance from policy', () => {
    const cfg = { ...DEFAULT_POLICY.contextGrowth, window: 3, maxSpreadRatio: 0, spreadToleranceTokens: 20 };
    expect(linearIncrements([100, 110, 115], cfg)).not.toBeNull();
    expect(linearIncrements([100, 130, 115], cfg)).toBeNull();
    const policy = policyWith({ contextGrowth: { window: 3 } });
    const { verdicts } = runLayer(contextGrowthLayer, session(grow(2000, [300, 300, 300])), policy);
    expect(trippedAt(verdicts)).toEqual([4]);
  });
});

describe('context growth across sessions (issue 19.6)', () => {
  const growing = grow(2000, [300, 300, 300, 300, 300, 300, 300]);

  it('an agent that names a new session on every call is stopped at key scope on the 7th call', () => {
    const renamed = growing.map((promptTokens, i) =>
      makeEvent({ promptTokens, sessionId: `attempt-${i}`, ts: T0 + i * 5000 }),
    );
    const { verdicts } = runLayer(contextGrowthLayer, renamed);
    expect(trippedAt(verdicts)).toEqual([7, 8]);
    expect(verdicts[6]?.[0]).toMatchObject({ scope: 'key', triggerType: 'context_growth_linear' });
    expect(verdicts[6]?.[0]).not.toHaveProperty('sessionId');
  });

  it('two agents of one key, each growing, interleaved: each session is stopped, the key is not', () => {
    const a = session(growing, 'agent-a');
    const b = session(
      growing.map((p) => p + 5_000),
      'agent-b',
    ).map((e) => ({ ...e, ts: e.ts + 1 }));
    const interleaved = a.flatMap((e, i) => [e, b[i]!]);
    const { verdicts } = runLayer(contextGrowthLayer, interleaved);
    const scopes = verdicts.flat().map((v) => v.scope);
    expect(scopes.length).toBeGreaterThan(0);
    expect(new Set(scopes)).toEqual(new Set(['session']));
  });
});
