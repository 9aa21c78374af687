import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import {
  API_KEY_LENGTH,
  API_KEY_PATTERN,
  generateApiKey,
  isApiKeyPrefix,
  parseApiKey,
  redactApiKey,
  redactApiKeysIn,
  type RandomBytes,
} from './api-key';
import { ApiKeyError } from './errors';

const secure: RandomBytes = (n) => randomBytes(n);

/** A deterministic random source built from fast-check bytes (cycled). */
const seededSource = fc.uint8Array({ minLength: 64, maxLength: 256 }).map((pool): RandomBytes => {
  let i = 0;
  return (n) => Uint8Array.from({ length: n }, () => pool[i++ % pool.length]! ^ ((i * 37) % 256));
});

describe('generateApiKey', () => {
  it('produces abn_<12 [a-z0-9]>_<43 base62> and a matching prefix', () => {
    const { apiKey, publicId, prefix } = generateApiKey(secure);
    expect(apiKey).toMatch(API_KEY_PATTERN);
    expect(apiKey).toHaveLength(API_KEY_LENGTH);
    expect(prefix).toBe(`abn_${publicId}`);
    expect(apiKey.startsWith(`${prefix}_`)).toBe(true);
  });

  it('round-trips through parseApiKey for any random source', () => {
    fc.assert(
      fc.property(seededSource, (source) => {
        const key = generateApiKey(source);
        const parsed = parseApiKey(key.apiKey);
        expect(parsed).toEqual({
          ok: true,
          publicId: key.publicId,
          prefix: key.prefix,
          secret: key.apiKey.slice(key.prefix.length + 1),
        });
      }),
    );
  });

  it('never repeats (10,000 keys)', () => {
    const keys = new Set(Array.from({ length: 10_000 }, () => generateApiKey(secure).apiKey));
    expect(keys.size).toBe(10_000);
  });

  it('uses the whole alphabet without modulo bias (every character about equally often)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) {
      for (const ch of generateApiKey(secure).apiKey.slice(17)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (2_000 * 43) / 62;
    for (const c of counts.values()) expect(Math.abs(c - expected) / expected).toBeLessThan(0.15);
  });

  it('discards the bytes that would bias the result', () => {
    // 248..255 are unusable for base62 (248 = 4 × 62) and 252..255 for base36; only 0s remain usable.
    const source: RandomBytes = (n) => Uint8Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 255 : 0));
    const key = generateApiKey(source);
    expect(key.apiKey).toBe(`abn_${'0'.repeat(12)}_${'0'.repeat(43)}`);
  });

  it.each<[string, RandomBytes]>([
    ['always unusable bytes', (n) => new Uint8Array(n).fill(255)],
    ['too few bytes', (n) => new Uint8Array(n - 1)],
    ['not a Uint8Array', (n) => Array.from({ length: n }, () => 1) as unknown as Uint8Array],
    [
      'a failing source',
      () => {
        throw new Error('entropy pool closed');
      },
    ],
  ])('refuses a broken random source: %s', (_name, source) => {
    expect(() => generateApiKey(source)).toThrow(ApiKeyError);
  });
});

describe('parseApiKey', () => {
  const { apiKey, publicId } = generateApiKey(secure);

  it.each<[string, unknown, string]>([
    ['a number', 42, 'not_a_string'],
    ['undefined', undefined, 'not_a_string'],
    ['empty', '', 'wrong_length'],
    ['a prefix only', `abn_${publicId}`, 'wrong_length'],
    ['too long', `${apiKey}x`, 'wrong_length'],
    ['another prefix', `key_${apiKey.slice(4)}`, 'wrong_prefix'],
    [
      'upper-case public id',
      apiKey.replace(publicId, publicId.toUpperCase().replace(/[0-9]/g, 'A')),
      'bad_public_id',
    ],
    ['a dash in the secret', apiKey.slice(0, -1) + '-', 'bad_secret'],
    ['missing separator', apiKey.replace(`${publicId}_`, `${publicId}x`), 'bad_public_id'],
    ['whitespace', ` ${apiKey.slice(1)}`, 'wrong_prefix'],
  ])('rejects %s', (_name, input, reason) => {
    expect(parseApiKey(input)).toEqual({ ok: false, reason });
  });

  it('accepts exactly the strings matching the format (random strings)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
        expect(parseApiKey(s).ok).toBe(API_KEY_PATTERN.test(s));
      }),
    );
  });

  it('rejects any single-character corruption outside the alphabet', () => {
    const bad = fc.constantFrom('-', '_', ' ', '+', '/', '=', 'é', '\u0000', '\n', '.');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: API_KEY_LENGTH - 1 }), bad, fc.boolean(), (at, ch, insert) => {
        const corrupted = insert
          ? apiKey.slice(0, at) + ch + apiKey.slice(at)
          : apiKey.slice(0, at) + ch + apiKey.slice(at + 1);
        fc.pre(corrupted !== apiKey);
        expect(parseApiKey(corrupted).ok).toBe(false);
      }),
    );
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        expect(typeof parseApiKey(v).ok).toBe('boolean');
      }),
    );
  });
});

describe('redaction', () => {
  it('keeps the prefix and hides the secret', () => {
    const { apiKey, prefix } = generateApiKey(secure);
    expect(redactApiKey(apiKey)).toBe(`${prefix}_****`);
    expect(redactApiKey(prefix)).toBe(prefix);
    expect(redactApiKey('sk-proj-123456')).toBe('****');
  });

  it('never contains the secret, alone or inside text', () => {
    fc.assert(
      fc.property(seededSource, fc.string(), fc.string(), (source, before, after) => {
        const { apiKey } = generateApiKey(source);
        const secret = apiKey.slice(17);
        expect(redactApiKey(apiKey)).not.toContain(secret);
        expect(redactApiKey(apiKey.slice(0, -1))).not.toContain(secret.slice(0, 8));
        expect(redactApiKeysIn(`${before} key=${apiKey} ${after}`)).not.toContain(secret);
      }),
    );
  });

  it('recognizes prefixes', () => {
    expect(isApiKeyPrefix('abn_0123456789ab')).toBe(true);
    expect(isApiKeyPrefix('abn_0123456789ab_')).toBe(false);
    expect(isApiKeyPrefix(7)).toBe(false);
  });
});
