/** Builders shared by the guardrail tests (not exported from the module's index). */
import fc from 'fast-check';
import { applyEvent, prepareEvent } from './engine';
import { DEFAULT_POLICY } from './policy';
import type { GuardrailPolicy } from './policy';
import { initialOrgState } from './state';
import type { OrgGuardrailState } from './state';
import type { GuardrailEvent, LayerEvent, StepResult, Verdict } from './types';

/** 2026-04-09 12:00:00 UTC. */
export const T0 = Date.UTC(2026, 3, 9, 12);

let counter = 0;

/** A valid event with overridable fields; `seq` increases by default. */
export function makeEvent(overrides: Partial<GuardrailEvent> = {}): GuardrailEvent {
  counter++;
  return {
    seq: String(1_000_000 + counter),
    orgId: 'org_test',
    keyId: 'abn_key1',
    provider: 'openai',
    model: 'gpt-4o',
    promptTokens: 1000,
    completionTokens: 100,
    costNanos: 1_000_000,
    premium: false,
    ts: T0,
    ...overrides,
  };
}

/** Sequence numbers for a list of events, in order. */
export function withSeqs(events: Omit<GuardrailEvent, 'seq'>[], start = 1): GuardrailEvent[] {
  return events.map((e, i) => ({ ...e, seq: String(start + i) }));
}

/** Deep-freezes a value (so that any mutation by the code under test throws). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Runs one layer alone over events; returns the verdicts of each event (index-aligned) and the last state. */
export function runLayer<S>(
  // Any layer fits: a whole policy holds the section each layer reads.
  layer: {
    initialState(): S;
    step(state: S, event: LayerEvent, policy: GuardrailPolicy, now: number): StepResult<S>;
  },
  events: GuardrailEvent[],
  policy: GuardrailPolicy = DEFAULT_POLICY,
): { state: S; verdicts: Verdict[][] } {
  let state = deepFreeze(layer.initialState());
  const verdicts: Verdict[][] = [];
  for (const e of events) {
    const r = layer.step(state, prepareEvent(e, policy, e.ts), policy, e.ts);
    state = deepFreeze(r.state);
    verdicts.push([...r.verdicts]);
  }
  return { state, verdicts };
}

/** 1-based indexes of the events that produced at least one verdict. */
export function trippedAt(verdicts: Verdict[][]): number[] {
  return verdicts.flatMap((v, i) => (v.length > 0 ? [i + 1] : []));
}

/** Runs the whole engine over events (now = event time); returns the last state and all verdicts. */
export function runEngine(
  events: GuardrailEvent[],
  policy: GuardrailPolicy = DEFAULT_POLICY,
  state: OrgGuardrailState = initialOrgState(),
): { state: OrgGuardrailState; verdicts: Verdict[] } {
  const verdicts: Verdict[] = [];
  for (const e of events) {
    const r = applyEvent(state, e, policy, e.ts);
    state = r.state;
    verdicts.push(...r.verdicts);
  }
  return { state, verdicts };
}

/** A policy with some fields replaced (shallow per section). */
export function policyWith(patch: {
  [K in keyof GuardrailPolicy]?: Partial<GuardrailPolicy[K]>;
}): GuardrailPolicy {
  const out = { ...DEFAULT_POLICY } as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) {
    out[k] = { ...(DEFAULT_POLICY as unknown as Record<string, object>)[k], ...v };
  }
  return out as unknown as GuardrailPolicy;
}

/** Random event streams: few keys/sessions/fingerprints so that loops and bursts do happen. */
export const eventStreamArb = fc
  .array(
    fc.record({
      gap: fc.integer({ min: 0, max: 20_000 }),
      jitter: fc.integer({ min: -3000, max: 3000 }),
      key: fc.integer({ min: 0, max: 5 }),
      session: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
      model: fc.constantFrom('gpt-4o', 'gpt-4o-mini', 'claude-opus-4-1'),
      fp: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      promptTokens: fc.oneof(fc.constantFrom(0, 500, 1000), fc.integer({ min: 0, max: 200_000 })),
      costNanos: fc.integer({ min: 0, max: 3_000_000_000 }),
      premium: fc.boolean(),
    }),
    { minLength: 1, maxLength: 120 },
  )
  .map((rows) => {
    let t = T0;
    return rows.map((r, i): GuardrailEvent => ({
      seq: String(1000 + i),
      orgId: 'org_p',
      keyId: `abn_${r.key}`,
      ...(r.session !== undefined ? { sessionId: `s${r.session}` } : {}),
      provider: 'openai',
      model: r.model,
      ...(r.fp !== undefined ? { fingerprint: `sha256:${String(r.fp).repeat(64)}` } : {}),
      promptTokens: r.promptTokens,
      completionTokens: 100,
      costNanos: r.costNanos,
      premium: r.premium,
      ts: (t += r.gap) + r.jitter,
    }));
  });
