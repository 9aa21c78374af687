import fc from 'fast-check';
import { KeyedTokenBuckets } from './token-bucket';

describe('KeyedTokenBuckets', () => {
  it('admits a burst, then refuses with the seconds until the next token, then refills', () => {
    const b = new KeyedTokenBuckets({ burst: 3, perSecond: 0.5 });
    expect([1, 2, 3].map(() => b.take('k', 0).allowed)).toEqual([true, true, true]);
    expect(b.take('k', 0)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(b.take('k', 1000)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(b.take('k', 2000)).toEqual({ allowed: true });
  });

  it('keeps callers apart: one caller emptying its bucket costs another nothing', () => {
    const b = new KeyedTokenBuckets({ burst: 2, perSecond: 1 });
    for (let i = 0; i < 100; i++) b.take('flood', 0);
    expect(b.take('quiet', 0)).toEqual({ allowed: true });
  });

  it('never admits more than burst + rate × time, whatever the arrivals (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 500 }), { minLength: 1, maxLength: 300 }),
        (burst, perSecond, gaps) => {
          const b = new KeyedTokenBuckets({ burst, perSecond });
          let t = 0;
          let admitted = 0;
          for (const gap of gaps) {
            t += gap;
            const d = b.take('k', t);
            if (d.allowed) admitted++;
            else expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
          }
          expect(admitted).toBeLessThanOrEqual(burst + Math.floor((t / 1000) * perSecond) + 1e-9);
        },
      ),
    );
  });

  it('earns a token exactly every interval at any fractional rate, refused just before (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60_000 }),
        fc.array(fc.integer({ min: 1, max: 1_000 }), { maxLength: 20 }),
        (intervalMs, probes) => {
          const b = new KeyedTokenBuckets({ burst: 1, perSecond: 1000 / intervalMs });
          let last = 0;
          expect(b.take('k', last).allowed).toBe(true);
          for (const p of probes) {
            // probes before the next token (refused, and they must not delay it), then the token
            const early = last + Math.floor(((intervalMs - 1) * p) / 1000);
            if (early < last + intervalMs) expect(b.take('k', early).allowed).toBe(false);
            last += intervalMs;
            expect(b.take('k', last).allowed).toBe(true);
          }
        },
      ),
    );
  });

  it('remembers at most maxKeys callers (least recently used forgotten)', () => {
    const b = new KeyedTokenBuckets({ burst: 1, perSecond: 0.001, maxKeys: 2 });
    b.take('a', 0);
    b.take('b', 0);
    b.take('a', 0); // a is now the most recent
    b.take('c', 0); // forgets b
    expect(b.size).toBe(2);
    expect(b.take('a', 0).allowed).toBe(false); // still remembered, still empty
    expect(b.take('b', 0).allowed).toBe(true); // forgotten: starts full
  });
});
