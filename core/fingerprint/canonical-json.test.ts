import fc from 'fast-check';
import {
  CanonicalScanner,
  MAX_JSON_DEPTH,
  byteStringToText,
  canonicalizeJsonText,
  canonicalizeValue,
  textToByteString,
} from './canonical-json';

/** The obvious (slow) definition: JSON.parse, then serialize with keys sorted at every level. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(reference).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).sort();
    return '{' + keys.map((k) => JSON.stringify(k) + ':' + reference(obj[k])).join(',') + '}';
  }
  return JSON.stringify(value);
}

/**
 * Canonical text through the byte-string scanner (UTF-8 bytes read as Latin-1), decoded back.
 * Texts with lone surrogates have no UTF-8 form; for them this returns the text scanner's result.
 */
function viaBytes(text: string): string | null {
  if (/\p{Surrogate}/u.test(text)) return canonicalizeJsonText(text);
  try {
    const sc = new CanonicalScanner(textToByteString(text), true);
    sc.skipWs();
    const v = sc.valuePieces();
    sc.expectEnd();
    return byteStringToText(v.text());
  } catch {
    return null;
  }
}

/** Rewrites a JSON text with some characters of its strings escaped as \uXXXX or \/. */
function escapeSome(text: string, seed: number): string {
  let out = '';
  let inString = false;
  let r = seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (!inString) {
      if (ch === '"') inString = true;
      out += ch;
      continue;
    }
    if (ch === '\\') {
      const len = text[i + 1] === 'u' ? 6 : 2;
      out += text.slice(i, i + len);
      i += len - 1;
      continue;
    }
    if (ch === '"') {
      inString = false;
      out += ch;
      continue;
    }
    r = (r * 1103515245 + 12345) & 0x7fffffff;
    if (r % 3 === 0) out += '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
    else if (ch === '/' || r % 7 === 0)
      out += ch === '/' ? '\\/' : '\\u' + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    else out += ch;
  }
  return out;
}

const jsonValue = fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 });

describe('canonicalizeJsonText', () => {
  it.each([
    ['{"b":1,"a":2}', '{"a":2,"b":1}'],
    [' { "b" : [ 1 , 2 ] ,\n "a" : { "d" : null , "c" : true } } ', '{"a":{"c":true,"d":null},"b":[1,2]}'],
    ['{"a":1,"a":2}', '{"a":2}'],
    ['{"a":1,"b":0,"a":3}', '{"a":3,"b":0}'],
    [
      '[1.0,1e2,-0,0.5e-3,1E+2,123456789012345678,1e400,-1e400]',
      '[1,100,0,0.0005,100,123456789012345680,null,null]',
    ],
    ['"\\u00e9\\/\\u0041"', '"é/A"'],
    ['"\\u001F\\u000a\\b"', '"\\u001f\\n\\b"'],
    ['"\\ud800"', '"\\ud800"'],
    ['"\\ud83d\\ude80"', '"🚀"'],
    ['{"\\u0062":1,"a":2}', '{"a":2,"b":1}'],
    ['{"\\ue000":1,"\\ud800\\udc00":2}', '{"𐀀":2,"\ue000":1}'],
    ['[]', '[]'],
    ['{}', '{}'],
    ['[ ]', '[]'],
    ['{ }', '{}'],
    ['"a\\\\"', '"a\\\\"'],
    ['"\\\\\\""', '"\\\\\\""'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalizeJsonText(input)).toBe(expected);
    expect(viaBytes(input)).toBe(expected);
  });

  it.each([
    '',
    ' ',
    '{',
    '{"a":1,}',
    '[1,]',
    '{"a" 1}',
    '{a:1}',
    "{'a':1}",
    '01',
    '1.',
    '.5',
    '-',
    '1e',
    '+1',
    'tru',
    'nul',
    'NaN',
    '"\\x"',
    '"\\u12"',
    '"\\u12G4"',
    '"abc',
    '"a\nb"',
    '"a\u0001b"',
    '[1] 2',
    '\ufeff{}',
    '{"a":1}}',
    '[1}',
    '{"a":[}',
  ])('rejects %j like JSON.parse', (input) => {
    expect(() => JSON.parse(input) as unknown).toThrow();
    expect(canonicalizeJsonText(input)).toBeNull();
    expect(viaBytes(input)).toBeNull();
  });

  it('equals the reference for any JSON value, compact or indented', () => {
    fc.assert(
      fc.property(jsonValue, (v) => {
        const expected = reference(v);
        expect(canonicalizeJsonText(JSON.stringify(v))).toBe(expected);
        expect(canonicalizeJsonText(JSON.stringify(v, null, 2))).toBe(expected);
        expect(viaBytes(JSON.stringify(v, null, '\t'))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('ignores how strings are escaped', () => {
    fc.assert(
      fc.property(jsonValue, fc.nat(), (v, seed) => {
        const escaped = escapeSome(JSON.stringify(v), seed);
        expect(canonicalizeJsonText(escaped)).toBe(reference(v));
        expect(viaBytes(escaped)).toBe(reference(v));
      }),
      { numRuns: 300 },
    );
  });

  it('accepts exactly what JSON.parse accepts (random and mutated texts)', () => {
    const mutated = fc
      .tuple(
        fc.json(),
        fc.nat(),
        fc.constantFrom('', '"', '\\', ',', '}', ']', '\n', '\u0000', ' ', 'e', '-', '\ud800'),
      )
      .map(([json, at, ins]) => {
        const i = at % (json.length + 1);
        return json.slice(0, i) + ins + json.slice(i + (at % 2));
      });
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string({ unit: 'binary' })), (text) => {
        let parsed: unknown;
        let valid = true;
        try {
          parsed = JSON.parse(text);
        } catch {
          valid = false;
        }
        const canonical = canonicalizeJsonText(text);
        if (!valid) expect(canonical).toBeNull();
        else expect(canonical).toBe(reference(parsed));
      }),
      { numRuns: 2000 },
    );
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH}`, () => {
    const nested = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    expect(canonicalizeJsonText(nested(MAX_JSON_DEPTH))).toBe(nested(MAX_JSON_DEPTH));
    expect(canonicalizeJsonText(nested(MAX_JSON_DEPTH + 1))).toBeNull();
    expect(canonicalizeJsonText(nested(100_000))).toBeNull();
  });
});

describe('canonicalizeValue', () => {
  it('equals canonicalizeJsonText(JSON.stringify(value)) for any value', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBoxedValues: true, withObjectString: true, withNullPrototype: true }),
        (v) => {
          let text: string | undefined;
          try {
            text = JSON.stringify(v) as string | undefined;
          } catch {
            return; // BigInt and the like: covered below
          }
          if (text === undefined) expect(canonicalizeValue(v)).toBeUndefined();
          else expect(canonicalizeValue(v)).toBe(canonicalizeJsonText(text));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('follows JSON.stringify for toJSON, undefined, NaN and holes', () => {
    const withHole: unknown[] = [undefined, () => 1, NaN, -0];
    withHole[5] = 1; // index 4 is a hole
    const value = {
      z: new Date(0),
      y: undefined,
      x: withHole,
      w: { toJSON: () => ({ b: 1, a: 2 }) },
      v: Symbol('s'),
    };
    expect(canonicalizeValue(value)).toBe(
      '{"w":{"a":2,"b":1},"x":[null,null,null,0,null,1],"z":"1970-01-01T00:00:00.000Z"}',
    );
  });

  it('throws (caught as "not JSON" by callers) on cycles and BigInt', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalizeValue(cyclic)).toThrow();
    expect(() => canonicalizeValue({ n: 1n })).toThrow();
  });
});
