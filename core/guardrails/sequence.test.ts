import fc from 'fast-check';
import { compareSequenceNumbers, eventSequenceNumber, isSequenceNumber } from './sequence';

describe('sequence numbers', () => {
  it.each([
    ['9', '10', -1],
    ['10', '9', 1],
    [
      '49590338271490256608559692538361571095921575989136588898',
      '49590338271490256608559692538361571095921575989136588898',
      0,
    ],
    [
      '49590338271490256608559692538361571095921575989136588898',
      '49590338271490256608559692538361571095921575989136588899',
      -1,
    ],
    ['007', '7', 0],
  ])('compare(%s, %s) has the sign of %i', (a, b, sign) => {
    expect(Math.sign(compareSequenceNumbers(a, b))).toBe(sign);
  });

  it('agrees with BigInt on random decimal strings', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 60n }),
        fc.bigInt({ min: 0n, max: 10n ** 60n }),
        (a, b) => {
          expect(Math.sign(compareSequenceNumbers(a.toString(), b.toString()))).toBe(
            a < b ? -1 : a > b ? 1 : 0,
          );
        },
      ),
    );
  });

  it('numbers the events of one record so that record order, then index order, holds', () => {
    const a = [
      eventSequenceNumber('4959', 0),
      eventSequenceNumber('4959', 99),
      eventSequenceNumber('4960', 0),
    ];
    expect(a.every(isSequenceNumber)).toBe(true);
    expect(compareSequenceNumbers(a[0] as string, a[1] as string)).toBeLessThan(0);
    expect(compareSequenceNumbers(a[1] as string, a[2] as string)).toBeLessThan(0);
    expect(() => eventSequenceNumber('1', 10_000)).toThrow(RangeError);
  });
});
