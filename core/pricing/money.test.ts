import fc from 'fast-check';
import {
  divRoundHalfUp,
  formatNanosAsUsd,
  nanosToUsd,
  picoTermsToNanos,
  scaleDecimal,
  usdPerMTokToPicos,
  usdToNanos,
} from './money';
import { MoneyRangeError } from './errors';

describe('money', () => {
  it.each([
    [2.5, 2_500_000_000],
    [0.1, 100_000_000],
    [2.675, 2_675_000_000],
    [1e-9, 1],
    [4e-10, 0],
    [5e-10, 1],
    [-0.0000000015, -2],
    [0, 0],
    [9_007_199.25474099, 9_007_199_254_740_990],
  ])('usdToNanos(%p) === %p', (usd, nanos) => {
    expect(usdToNanos(usd)).toBe(nanos);
  });

  it('rejects non-finite and out-of-range amounts', () => {
    expect(() => usdToNanos(Number.NaN)).toThrow(MoneyRangeError);
    expect(() => usdToNanos(Number.POSITIVE_INFINITY)).toThrow(MoneyRangeError);
    expect(() => usdToNanos(10_000_000)).toThrow(MoneyRangeError);
  });

  it.each([
    [2.5, 2_500_000],
    [0.075, 75_000],
    [0.003625, 3_625],
    [0.08333333333333334, 83_333],
    [600, 600_000_000],
    [1e-7, 0],
  ])('usdPerMTokToPicos(%p) === %p', (price, picos) => {
    expect(usdPerMTokToPicos(price)).toBe(picos);
  });

  it('rejects negative prices', () => {
    expect(() => usdPerMTokToPicos(-1)).toThrow(MoneyRangeError);
  });

  it('formats nanos exactly', () => {
    expect(formatNanosAsUsd(2_500_000_001)).toBe('2.500000001');
    expect(formatNanosAsUsd(-5)).toBe('-0.000000005');
    expect(formatNanosAsUsd(0)).toBe('0.000000000');
    expect(nanosToUsd(2_500_000_000)).toBe(2.5);
  });

  it('round-trips integer nanos through dollars', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e15, max: 1e15 }), (nanos) => {
        expect(usdToNanos(nanosToUsd(nanos))).toBe(nanos);
        expect(scaleDecimal(Number(formatNanosAsUsd(nanos)), 9)).toBe(nanos);
      }),
    );
  });

  it('divides with exact half-up rounding', () => {
    expect(divRoundHalfUp(15, 10)).toBe(2);
    expect(divRoundHalfUp(14, 10)).toBe(1);
    expect(divRoundHalfUp(2 ** 52, 1000)).toBe(4_503_599_627_370);
    expect(divRoundHalfUp(2 ** 52 - 500, 1000)).toBe(4_503_599_627_370); // 4,503,599,627,369.996 → …370
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        (x, d) => {
          const expected = x / d + ((x % d) * 2n >= d ? 1n : 0n);
          expect(divRoundHalfUp(Number(x), Number(d))).toBe(Number(expected));
        },
      ),
    );
  });

  it('computes (a·pa + b·pb)·num / (den·1000) exactly on both the number and bigint paths', () => {
    const reference = (a: bigint, pa: bigint, b: bigint, pb: bigint, num: bigint, den: bigint): bigint => {
      const x = (a * pa + b * pb) * num;
      const d = den * 1000n;
      return x / d + ((x % d) * 2n >= d ? 1n : 0n);
    };
    const tokens = fc.integer({ min: 0, max: 2 ** 40 });
    const picos = fc.integer({ min: 0, max: 600_000_000 });
    fc.assert(
      fc.property(
        tokens,
        picos,
        tokens,
        picos,
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 2_000_000 }),
        (a, pa, b, pb, num, den) => {
          const expected = reference(BigInt(a), BigInt(pa), BigInt(b), BigInt(pb), BigInt(num), BigInt(den));
          const capped =
            expected > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(expected);
          expect(picoTermsToNanos(a, pa, b, pb, num, den)).toBe(capped);
        },
      ),
    );
  });
});
