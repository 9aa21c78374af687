import fc from 'fast-check';
import { DENIAL_AUDIT_RATE, DenialAuditLimiter } from './denial-audit-limiter';

const T0 = Date.parse('2026-11-26T10:00:00.000Z');

describe('DenialAuditLimiter', () => {
  it('records a burst of refusals, then one every 2 s, and counts the rest in the next recorded one', () => {
    const limiter = new DenialAuditLimiter();
    const at = (n: number) => limiter.admit('org_a\u0000ada', T0 + n);
    for (let i = 0; i < DENIAL_AUDIT_RATE.burst; i++) expect(at(0)).toEqual({ record: true, suppressed: 0 });
    for (let i = 0; i < 7; i++) expect(at(0)).toEqual({ record: false });
    expect(at(1_999)).toEqual({ record: false });
    expect(at(2_000)).toEqual({ record: true, suppressed: 8 });
    // Another person of the organization is not held back by the first one's loop.
    expect(limiter.admit('org_a\u0000bob', T0)).toEqual({ record: true, suppressed: 0 });
  });

  it('loses no refusal: every one is recorded or counted in a later recorded one', () => {
    fc.assert(
      fc.property(
        // Loops of refusals at once (past the burst, often), each followed by a pause (a partial refill).
        fc.array(
          fc.record({ n: fc.integer({ min: 1, max: 60 }), pauseMs: fc.integer({ min: 0, max: 30_000 }) }),
          {
            minLength: 1,
            maxLength: 20,
          },
        ),
        (loops) => {
          const limiter = new DenialAuditLimiter();
          let now = T0;
          let total = 0;
          let recorded = 0;
          let counted = 0;
          for (const { n, pauseMs } of loops) {
            for (let i = 0; i < n; i++, total++) {
              const d = limiter.admit('org_a\u0000ada', now);
              if (d.record) {
                recorded++;
                counted += d.suppressed;
              }
            }
            now += pauseMs;
          }
          // One final refusal long after: it carries whatever was still left out.
          const last = limiter.admit('org_a\u0000ada', now + 3_600_000);
          expect(last.record).toBe(true);
          if (last.record) counted += last.suppressed;
          expect(recorded + counted).toBe(total);
          // At most the burst plus the refill were recorded over the run.
          const seconds = (now - T0) / 1000;
          expect(recorded).toBeLessThanOrEqual(
            DENIAL_AUDIT_RATE.burst + Math.floor(seconds * DENIAL_AUDIT_RATE.perSecond),
          );
        },
      ),
    );
  });
});
