/**
 * The SDK's SHA-256, both ways it can run: the runtime's `crypto` (Node.js >= 20.16, found through
 * `process.getBuiltinModule`) and the bundled `@noble/hashes` (browsers, edge runtimes, older Node.js).
 * Both must give the published test vectors and agree with each other on any input, so that a
 * fingerprint does not depend on where the SDK runs.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { builtinSha256Hex, bundledSha256Hex, sha256Hex, type Sha256Hex } from '../src/sha256';

/**
 * FIPS 180-4 example values for SHA-256 (NIST CSRC "Examples with Intermediate Values", SHA256.pdf
 * and SHA2_Additional.pdf; the same digests as FIPS 180-2 Appendix B).
 */
const NIST_VECTORS: ReadonlyArray<readonly [string, () => string, string]> = [
  ['the empty string', () => '', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['"abc" (one block)', () => 'abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  [
    'the 448-bit message (two blocks)',
    () => 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  ],
  [
    'the 896-bit message',
    () =>
      'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
    'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
  ],
  [
    'one million "a"',
    () => 'a'.repeat(1_000_000),
    'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
  ],
];

const builtin = builtinSha256Hex();

const IMPLEMENTATIONS: ReadonlyArray<readonly [string, Sha256Hex]> = [
  ['bundled (@noble/hashes)', bundledSha256Hex],
  ['built-in (node:crypto)', builtin ?? (() => 'missing')],
  ['sha256Hex (the one in use)', sha256Hex],
];

describe.each(IMPLEMENTATIONS)('%s', (_name, hash) => {
  it.each(NIST_VECTORS)('gives the NIST digest of %s, as text and as bytes', (_what, message, digest) => {
    const text = message();
    expect(hash(text)).toBe(digest);
    expect(hash(new TextEncoder().encode(text))).toBe(digest);
  });

  it('hashes a lone surrogate as U+FFFD (EF BF BD), as UTF-8 encoders and the server do', () => {
    const replacement = 'ef bf bd';
    const bytes = Uint8Array.from(replacement.split(' ').map((h) => parseInt(h, 16)));
    for (const text of ['\ud800', '\udfff', 'a\udc00b']) {
      const expected = text.replace(/[\ud800-\udfff]/, '\ufffd');
      expect(hash(text)).toBe(hash(expected));
    }
    expect(hash('\ud83d')).toBe(hash(bytes));
  });
});

describe('the runtime choice', () => {
  it('uses node:crypto on this Node.js (process.getBuiltinModule exists since 20.16)', () => {
    expect(builtin).toBeDefined();
    const calls: string[] = [];
    const runtime = {
      process: {
        getBuiltinModule: (id: string) => {
          calls.push(id);
          return { createHash: () => ({ update: () => ({ digest: () => 'from the runtime' }) }) };
        },
      },
    };
    expect(builtinSha256Hex(runtime)?.('x')).toBe('from the runtime');
    expect(calls).toEqual(['crypto']);
  });

  it.each([
    ['no process (browsers, edge runtimes)', undefined],
    ['Node.js 20.0–20.15 (no getBuiltinModule)', { versions: { node: '20.15.1' } }],
    [
      'a getBuiltinModule that throws',
      {
        getBuiltinModule: () => {
          throw new Error('denied');
        },
      },
    ],
    ['a runtime without crypto', { getBuiltinModule: () => undefined }],
    ['a crypto module without createHash', { getBuiltinModule: () => ({}) }],
  ])('falls back to the bundled hash with %s', (_name, process) => {
    expect(builtinSha256Hex({ process })).toBeUndefined();
  });
});

/** UTF-16 code units of any value, lone surrogates and the block-boundary lengths included. */
const utf16Arb = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0xffff }),
      fc.constantFrom(0x00, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffd, 0xffff),
    ),
    { maxLength: 200 },
  )
  .map((units) => String.fromCharCode(...units));

describe('the two implementations agree', () => {
  const nodeHash = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

  it('on random byte strings, lengths across the 55/56/64-byte padding boundaries', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.integer({ min: 50, max: 130 }).map((n) => new Uint8Array(n).fill(0x61)),
        ),
        (bytes) => {
          const digest = bundledSha256Hex(bytes);
          expect(builtin!(bytes)).toBe(digest);
          expect(digest).toBe(nodeHash(bytes));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('on random UTF-16 strings, lone surrogates included, hashing their UTF-8 bytes', () => {
    fc.assert(
      fc.property(fc.oneof(utf16Arb, fc.string({ unit: 'grapheme', maxLength: 100 })), (text) => {
        const digest = bundledSha256Hex(text);
        expect(builtin!(text)).toBe(digest);
        expect(digest).toBe(nodeHash(Buffer.from(new TextEncoder().encode(text))));
      }),
      { numRuns: 1000 },
    );
  });
});
