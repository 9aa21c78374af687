import fc from 'fast-check';
import { KEY_GROWTH_STREAMS } from './context-growth';
import { applyEvent } from './engine';
import { KEY_LOOP_STREAMS } from './identical-loop';
import { OWNER_TAGS } from './identity';
import { MAX_COUNT, MAX_NANOS, MAX_TIMESTAMP_MS, MAX_TOKENS, STATE_BYTES_LIMIT } from './limits';
import { utcDayIndex, utcMonthIndex } from './periods';
import { DEFAULT_POLICY, guardrailPolicySchema } from './policy';
import type { GuardrailPolicy } from './policy';
import { MAX_SEQUENCE_DIGITS } from './sequence';
import { initialOrgState, maxStateBytes, reviveOrgState } from './state';
import type { OrgGuardrailState } from './state';
import { eventStreamArb, makeEvent, policyWith, runEngine } from './test-support';

/** Every table full, every number at its widest: the largest state the policy allows. */
function worstCaseState(policy: GuardrailPolicy): OrgGuardrailState {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => 2 ** 53 - 1 - i);
  const { maxSessions, maxKeys } = policy.limits;
  const p = policy.premiumConcentration;
  const buckets = p.windowMs / p.bucketMs;
  const lastBucket = Math.floor(MAX_TIMESTAMP_MS / p.bucketMs);
  return {
    v: 1,
    lastSeq: '9'.repeat(MAX_SEQUENCE_DIGITS),
    layers: {
      financialLimits: {
        day: utcDayIndex(MAX_TIMESTAMP_MS),
        month: utcMonthIndex(MAX_TIMESTAMP_MS),
        daySpendNanos: MAX_NANOS,
        monthSpendNanos: MAX_NANOS,
        daySoftAlerted: false,
        monthSoftAlerted: false,
      },
      identicalLoop: {
        streams: {
          ids: ids(maxSessions),
          entries: ids(maxSessions).map((fp) => [fp, MAX_COUNT, MAX_TIMESTAMP_MS, OWNER_TAGS - 1] as const),
        },
        keyStreams: {
          ids: ids(Math.min(maxKeys, KEY_LOOP_STREAMS)),
          entries: ids(Math.min(maxKeys, KEY_LOOP_STREAMS)).map(
            (fp) => [fp, MAX_COUNT, MAX_TIMESTAMP_MS, fp, MAX_COUNT] as const,
          ),
        },
      },
      contextGrowth: {
        sessions: {
          ids: ids(maxSessions),
          entries: ids(maxSessions).map(
            () =>
              [
                MAX_TIMESTAMP_MS,
                MAX_TOKENS,
                MAX_COUNT,
                new Array<number>(policy.contextGrowth.window).fill(MAX_TOKENS),
                OWNER_TAGS - 1,
              ] as const,
          ),
        },
        keyStreams: {
          ids: ids(Math.min(maxKeys, KEY_GROWTH_STREAMS)),
          entries: ids(Math.min(maxKeys, KEY_GROWTH_STREAMS)).map(
            (fp) =>
              [
                MAX_TIMESTAMP_MS,
                MAX_TOKENS,
                MAX_COUNT,
                new Array<number>(policy.contextGrowth.window).fill(MAX_TOKENS),
                fp,
                MAX_COUNT,
              ] as const,
          ),
        },
      },
      rpsBurst: {
        keys: {
          ids: ids(maxKeys),
          entries: ids(maxKeys).map(() =>
            new Array<number>(policy.rpsBurst.maxRequests).fill(MAX_TIMESTAMP_MS),
          ),
        },
      },
      premiumConcentration: {
        buckets: Array.from({ length: buckets }, (_, i) => lastBucket - buckets + 1 + i),
        totalNanos: new Array<number>(buckets).fill(MAX_NANOS),
        premiumNanos: new Array<number>(buckets).fill(MAX_NANOS),
      },
    },
  };
}

/** Events chosen to fill every table with wide numbers, through the real engine. */
function stuffedState(policy: GuardrailPolicy): OrgGuardrailState {
  let state = initialOrgState();
  let seq = 10n ** 127n;
  const base = 9_000_000_000_000;
  let t = base;
  const apply = (e: Parameters<typeof makeEvent>[0]) => {
    seq += 1n;
    state = applyEvent(state, makeEvent({ ...e, seq: seq.toString() }), policy, t).state;
  };
  // sessions: each grows linearly by ~10 M tokens (8-digit increments), more sessions than the cap
  for (let s = 0; s < policy.limits.maxSessions + 20; s++) {
    for (let i = 0; i <= policy.contextGrowth.window; i++) {
      t += 1;
      apply({
        keyId: `abn_${s % 7}`,
        sessionId: `session-${s}`,
        promptTokens: 10_000_000 + i * 12_345_678,
        ts: t,
        costNanos: 0,
      });
    }
  }
  // keys: every key with a full ring
  for (let k = 0; k < policy.limits.maxKeys + 10; k++) {
    for (let i = 0; i < policy.rpsBurst.maxRequests; i++) {
      t += 1;
      apply({ keyId: `abn_burst_${k}`, ts: t, costNanos: 0 });
    }
  }
  // premium: a large amount in every minute bucket of the window
  for (let m = 0; m < 60; m++) {
    t += 60_000;
    apply({ ts: t, costNanos: 99_999_999_999_999, premium: m % 2 === 0 });
  }
  return state;
}

describe('state size bound', () => {
  const policies: [string, GuardrailPolicy][] = [
    ['default policy', DEFAULT_POLICY],
    ['small caps', policyWith({ limits: { maxSessions: 4, maxKeys: 3 } })],
    [
      '200 sessions and 100 keys',
      guardrailPolicySchema.parse({ limits: { maxSessions: 200, maxKeys: 100 } }),
    ],
  ];

  it('the default policy bounds a state at about 42 KB, under the 64 KB limit', () => {
    expect(maxStateBytes(DEFAULT_POLICY)).toBeLessThanOrEqual(43_000);
    expect(maxStateBytes(DEFAULT_POLICY)).toBeLessThanOrEqual(STATE_BYTES_LIMIT);
  });

  it.each(policies)('a worst-case state stays within the bound (%s)', (_name, policy) => {
    const json = JSON.stringify(worstCaseState(policy));
    expect(json.length).toBeLessThanOrEqual(maxStateBytes(policy));
    expect(json.length).toBeGreaterThan(0.95 * maxStateBytes(policy));
    expect(json.length).toBeLessThanOrEqual(STATE_BYTES_LIMIT);
  });

  it.each(policies)('a state stuffed through the engine stays within the bound (%s)', (_name, policy) => {
    const state = stuffedState(policy);
    expect(state.layers.identicalLoop.streams.ids).toHaveLength(policy.limits.maxSessions);
    expect(state.layers.rpsBurst.keys.ids).toHaveLength(policy.limits.maxKeys);
    expect(JSON.stringify(state).length).toBeLessThanOrEqual(maxStateBytes(policy));
  });

  it('holds for random event streams', () => {
    const small = policyWith({ limits: { maxSessions: 3, maxKeys: 2 } });
    fc.assert(
      fc.property(eventStreamArb, (events) => {
        for (const policy of [DEFAULT_POLICY, small]) {
          const { state } = runEngine(events, policy);
          expect(JSON.stringify(state).length).toBeLessThanOrEqual(maxStateBytes(policy));
          expect(state.layers.identicalLoop.streams.ids.length).toBeLessThanOrEqual(
            policy.limits.maxSessions,
          );
          expect(state.layers.rpsBurst.keys.ids.length).toBeLessThanOrEqual(policy.limits.maxKeys);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('the policy schema rejects a policy whose worst case exceeds 64 KB', () => {
    const r = guardrailPolicySchema.safeParse({ limits: { maxSessions: 1024 } });
    expect(r.success).toBe(false);
  });
});

describe('reviveOrgState', () => {
  it('returns a stored state as is', () => {
    const { state } = runEngine([makeEvent()]);
    const stored = JSON.parse(JSON.stringify(state)) as unknown;
    expect(reviveOrgState(stored)).toEqual(state);
  });

  it.each([
    { name: 'nothing stored', value: undefined },
    { name: 'another version', value: { v: 2, lastSeq: null, layers: {} } },
    { name: 'a bad sequence number', value: { ...initialOrgState(), lastSeq: 'abc' } },
    {
      name: 'a missing layer',
      value: { v: 1, lastSeq: '1', layers: { financialLimits: initialOrgState().layers.financialLimits } },
    },
  ])('starts over on $name', ({ value }) => {
    expect(reviveOrgState(value)).toEqual(initialOrgState());
  });
});
