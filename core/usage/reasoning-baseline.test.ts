import fc from 'fast-check';
import { BASELINE_WINDOW, MAX_BASELINES, MIN_OBSERVATIONS, ReasoningBaseline } from './reasoning-baseline';

describe('ReasoningBaseline', () => {
  it('says nothing before MIN_OBSERVATIONS calls reported, then their mean', () => {
    const b = new ReasoningBaseline();
    for (let i = 1; i < MIN_OBSERVATIONS; i++) {
      b.observe('org_a', 'o3', 'medium', 1_000 * i);
      expect(b.typical('org_a', 'o3', 'medium')).toBeUndefined();
    }
    b.observe('org_a', 'o3', 'medium', 3_000);
    expect(b.typical('org_a', 'o3', 'medium')).toBe(2_000); // (1,000 + 2,000 + 3,000) / 3
    expect(b.typical('org_b', 'o3', 'medium')).toBeUndefined(); // another organization learns apart
    expect(b.typical('org_a', 'o3', 'high')).toBeUndefined(); // and another effort
  });

  it('stays within the range of what was observed, follows the recent calls, and ignores nonsense', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: MIN_OBSERVATIONS, maxLength: 200 }),
        (xs) => {
          const b = new ReasoningBaseline();
          b.observe('o', 'o3', 'low', Number.NaN);
          b.observe('o', 'o3', 'low', -5);
          for (const x of xs) b.observe('o', 'o3', 'low', x);
          const t = b.typical('o', 'o3', 'low') as number;
          expect(t).toBeGreaterThanOrEqual(Math.min(...xs));
          expect(t).toBeLessThanOrEqual(Math.max(...xs));
        },
      ),
    );
    const b = new ReasoningBaseline();
    for (let i = 0; i < BASELINE_WINDOW * 10; i++) b.observe('o', 'o3', 'low', 100);
    for (let i = 0; i < BASELINE_WINDOW * 10; i++) b.observe('o', 'o3', 'low', 5_000);
    expect(b.typical('o', 'o3', 'low')).toBeGreaterThan(4_900);
  });

  it('holds at most MAX_BASELINES entries, evicting the least recently observed', () => {
    const b = new ReasoningBaseline();
    for (let i = 0; i < 3; i++) b.observe('keep', 'o3', 'medium', 1_234);
    for (let i = 0; i < MAX_BASELINES * 2; i++) {
      b.observe(`org_${i}`, 'o3', 'medium', 1);
      if (i % 100 === 0) b.observe('keep', 'o3', 'medium', 1_234);
    }
    expect(b.size).toBe(MAX_BASELINES);
    expect(b.typical('keep', 'o3', 'medium')).toBe(1_234);
  });
});
