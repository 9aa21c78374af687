import fc from 'fast-check';
import { scanTopLevel } from './top-level-json';

const text = (s: string) => Buffer.from(s, 'utf8');

/** JSON values with strings full of quotes, backslashes and brackets: the scanner's hard cases. */
const tricky = fc.string({
  unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', 'a', ' ', 'é', '\n'),
});
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(tricky, tie('v'), { maxKeys: 4 }),
  ),
})).v;

describe('scanTopLevel', () => {
  it('finds every member of a serialized object, in order, with spans that parse to its values', () => {
    fc.assert(
      fc.property(fc.dictionary(tricky, value, { maxKeys: 8 }), fc.boolean(), (obj, pretty) => {
        const json = JSON.stringify(obj, null, pretty ? 2 : undefined);
        const buf = text(json);
        const scan = scanTopLevel(buf);
        if (!scan.ok) throw new Error(`refused ${json}: ${scan.reason}`);
        expect(scan.duplicates).toEqual([]);
        expect(scan.members.map((m) => m.key)).toEqual(Object.keys(obj));
        for (const m of scan.members) {
          expect(JSON.parse(buf.toString('utf8', m.start, m.end))).toEqual(
            JSON.parse(JSON.stringify(obj[m.key])),
          );
        }
      }),
      { numRuns: 500 },
    );
  });

  it('reports a repeated key, also when one spelling escapes it, and JSON.parse keeps the last', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 6 }), value, { maxKeys: 5 }),
        fc.string({ minLength: 1, maxLength: 6 }),
        value,
        value,
        fc.boolean(),
        (rest, key, first, last, escape) => {
          const spelled = escape
            ? `"${[...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`
            : JSON.stringify(key);
          const others = Object.entries(rest)
            .filter(([k]) => k !== key)
            .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
          const json = `{${[`${JSON.stringify(key)}:${JSON.stringify(first)}`, ...others, `${spelled}:${JSON.stringify(last)}`].join(',')}}`;
          const scan = scanTopLevel(text(json));
          expect(scan.ok && scan.duplicates).toEqual([key]);
          // Compared as JSON: the generated -0 is written "0", as every JSON encoder writes it.
          expect(JSON.stringify((JSON.parse(json) as Record<string, unknown>)[key])).toEqual(
            JSON.stringify(last),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses every strict prefix of an object, and data after it', () => {
    fc.assert(
      fc.property(fc.dictionary(tricky, value, { minKeys: 1, maxKeys: 5 }), fc.nat(), (obj, cut) => {
        const json = JSON.stringify(obj);
        const prefix = json.slice(0, cut % json.length);
        expect(scanTopLevel(text(prefix)).ok).toBe(false);
        expect(scanTopLevel(text(json + ' {}')).ok).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('names what is wrong and where', () => {
    expect(scanTopLevel(text('[1]'))).toEqual({ ok: false, reason: 'the body is not a JSON object', at: 0 });
    expect(scanTopLevel(text('{"a" 1}'))).toMatchObject({ ok: false, at: 5 });
    expect(scanTopLevel(text(' { } '))).toEqual({ ok: true, members: [], duplicates: [] });
  });
});
