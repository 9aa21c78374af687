import { compareSequenceNumbers } from './sequence';
import {
  generateNormalWorkload,
  generateRunawayScenario,
  RUNAWAY_KINDS,
  slidingWindowOracle,
} from './workload';

describe('workload generator', () => {
  const orgs = generateNormalWorkload({ seed: 7, minSessions: 200 });

  it('is deterministic for a seed', () => {
    expect(generateNormalWorkload({ seed: 7, minSessions: 200 })).toEqual(orgs);
    expect(generateRunawayScenario('burst', 3)).toEqual(generateRunawayScenario('burst', 3));
    expect(generateNormalWorkload({ seed: 8, minSessions: 200 })).not.toEqual(orgs);
  });

  it('emits strictly increasing sequence numbers per organization, with some time disorder', () => {
    let outOfOrder = 0;
    for (const org of orgs) {
      for (let i = 1; i < org.events.length; i++) {
        const [a, b] = [org.events[i - 1], org.events[i]];
        if (a === undefined || b === undefined) continue;
        expect(compareSequenceNumbers(a.seq, b.seq)).toBeLessThan(0);
        if (b.ts < a.ts) outOfOrder++;
      }
    }
    expect(outOfOrder).toBeGreaterThan(0);
  });

  it('keeps normal traffic at ≤ 10 requests per key in any 60 s, with bursts at the limit', () => {
    let atLimit = 0;
    for (const org of orgs) {
      const byKey = new Map<string, number[]>();
      for (const e of org.events) byKey.set(e.keyId, [...(byKey.get(e.keyId) ?? []), e.ts]);
      for (const times of byKey.values()) {
        const sorted = times.slice().sort((a, b) => a - b);
        expect(slidingWindowOracle(sorted, 10, 60_000)).toBeUndefined();
        if (slidingWindowOracle(sorted, 9, 60_000) !== undefined) atLimit++;
      }
    }
    expect(atLimit).toBeGreaterThan(0);
  });

  it('mixes SDK and proxy events, named and unnamed sessions, premium and failed calls', () => {
    const events = orgs.flatMap((o) => o.events);
    expect(events.some((e) => e.fingerprint !== undefined)).toBe(true);
    expect(events.some((e) => e.fingerprint === undefined)).toBe(true);
    expect(events.some((e) => e.sessionId !== undefined)).toBe(true);
    expect(events.some((e) => e.sessionId === undefined)).toBe(true);
    expect(events.some((e) => e.premium)).toBe(true);
    expect(events.some((e) => e.promptTokens === 0)).toBe(true);
    expect(events.every((e) => Number.isSafeInteger(e.costNanos) && e.costNanos >= 0)).toBe(true);
  });

  it.each(RUNAWAY_KINDS)('injects a %s runaway and labels its calls', (kind) => {
    const s = generateRunawayScenario(kind, 11);
    expect(s.kind).toBe(kind);
    expect(s.runaway.seqs.length).toBeGreaterThanOrEqual(11);
    expect(s.events.length).toBeGreaterThan(s.runaway.seqs.length);
  });
});
