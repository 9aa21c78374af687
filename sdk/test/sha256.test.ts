/**
 * The SDK's SHA-256, both ways it can run: the runtime's `crypto` (Node.js >= 20.16, found through
 * `process.getBuiltinModule`), synchronous, and WebCrypto's `crypto.subtle.digest` (browsers, edge
 * runtimes, older Node.js), a promise. Both must give the published test vectors and agree with each
 * other and with the server on any input, so that a fingerprint does not depend on where the SDK runs.
 */
import { createHash, webcrypto } from 'node:crypto';
import fc from 'fast-check';
import {
  builtinSha256Hex,
  runtimeSha256,
  sha256Hex,
  webCryptoSha256Hex,
  type Sha256HexAsync,
} from '../src/sha256';

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
const web = webCryptoSha256Hex({ crypto: webcrypto });

/** Every implementation, as a promise of the digest. */
const IMPLEMENTATIONS: ReadonlyArray<readonly [string, Sha256HexAsync]> = [
  ['built-in (node:crypto)', async (text) => (builtin ?? (() => 'missing'))(text)],
  ['WebCrypto (crypto.subtle)', web ?? (async () => 'missing')],
  ['sha256Hex (the one in use)', async (text) => (await sha256Hex(text)) ?? 'missing'],
];

describe.each(IMPLEMENTATIONS)('%s', (_name, hash) => {
  it.each(NIST_VECTORS)('gives the NIST digest of %s', async (_what, message, digest) => {
    expect(await hash(message())).toBe(digest);
  });

  it('hashes a lone surrogate as U+FFFD (EF BF BD), as UTF-8 encoders and the server do', async () => {
    const efbfbd = createHash('sha256')
      .update(Buffer.from([0xef, 0xbf, 0xbd]))
      .digest('hex');
    for (const text of ['\ud800', '\udfff', 'a\udc00b']) {
      const expected = text.replace(/[\ud800-\udfff]/, '\ufffd');
      expect(await hash(text)).toBe(await hash(expected));
    }
    expect(await hash('\ud83d')).toBe(efbfbd);
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
  ])('has no built-in hash with %s', (_name, process) => {
    expect(builtinSha256Hex({ process })).toBeUndefined();
  });

  it('takes WebCrypto where there is no built-in hash, and nothing where there is neither', async () => {
    const choice = runtimeSha256({ crypto: webcrypto });
    expect(choice).not.toBeNull();
    const digest = choice!('abc');
    expect(digest).toBeInstanceOf(Promise);
    expect(await digest).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(runtimeSha256({})).toBeNull();
    expect(runtimeSha256({ crypto: {} })).toBeNull();
    expect(runtimeSha256({ crypto: { subtle: {} } })).toBeNull();
  });

  it('prefers the synchronous built-in hash where both exist', () => {
    expect(typeof runtimeSha256({ process, crypto: webcrypto })!('abc')).toBe('string');
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
  it('on random UTF-16 strings, lone surrogates and the 55/56/64-byte padding boundaries included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          utf16Arb,
          fc.string({ unit: 'grapheme', maxLength: 100 }),
          fc.integer({ min: 50, max: 130 }).map((n) => 'a'.repeat(n)),
        ),
        async (text) => {
          const digest = builtin!(text);
          expect(await web!(text)).toBe(digest);
          expect(digest).toBe(
            createHash('sha256')
              .update(Buffer.from(new TextEncoder().encode(text)))
              .digest('hex'),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });
});
