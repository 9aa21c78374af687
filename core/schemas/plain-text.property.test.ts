import fc from 'fast-check';
import { createKeyRequestSchema } from './api/keys';
import { PLAIN_TEXT } from './common';

/** Every code point a name people read must not carry: C0, DEL, C1, and the bidirectional controls. */
const REFUSED: number[] = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i), // DEL and C1 (0x80–0x9f)
  0x061c,
  0x200e,
  0x200f,
  ...[0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e],
  ...[0x2066, 0x2067, 0x2068, 0x2069],
];
const refused = fc.constantFrom(...REFUSED).map((c) => String.fromCodePoint(c));
/** Any other code point, astral planes and the neighbours of the refused ranges included. */
const allowed = fc
  .oneof(
    fc.integer({ min: 0x20, max: 0x7e }),
    fc.integer({ min: 0xa0, max: 0x2fff }),
    fc.integer({ min: 0xe000, max: 0x10ffff }),
    fc.constantFrom(0x061b, 0x061d, 0x200d, 0x2010, 0x2027, 0x202f, 0x2065, 0x206a),
  )
  .filter((c) => !REFUSED.includes(c))
  .map((c) => String.fromCodePoint(c));
const text = (chars: fc.Arbitrary<string>) => fc.array(chars, { maxLength: 20 }).map((a) => a.join(''));

describe('PLAIN_TEXT (key names and correction reasons)', () => {
  it('refuses a string with any control or bidirectional control character anywhere in it', () => {
    fc.assert(
      fc.property(text(allowed), refused, text(allowed), (before, bad, after) => {
        expect(PLAIN_TEXT.test(before + bad + after)).toBe(false);
      }),
    );
  });

  it('accepts every string without one', () => {
    fc.assert(fc.property(text(allowed), (s) => expect(PLAIN_TEXT.test(s)).toBe(true)));
  });

  it('a key name that would read backwards (ci, U+202E, dorp) is a 400 naming `name`', () => {
    const out = createKeyRequestSchema.safeParse({ name: 'ci\u202edorp' });
    expect(out.success).toBe(false);
    expect(out.error?.issues.map((i) => i.path.join('.'))).toEqual(['name']);
  });

  it('a key name with a lone surrogate (not text) is a 400 naming `name`; a whole emoji is a name', () => {
    expect(createKeyRequestSchema.safeParse({ name: 'a\ud800b' }).error?.issues).toEqual([
      expect.objectContaining({
        path: ['name'],
        message: 'must not contain a lone surrogate (invalid UTF-16)',
      }),
    ]);
    expect(createKeyRequestSchema.safeParse({ name: 'ci \ud83d\ude80' }).success).toBe(true);
  });
});
