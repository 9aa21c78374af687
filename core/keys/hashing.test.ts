import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { generateApiKey } from './api-key';
import { ApiKeyError } from './errors';
import { constantTimeEqual, flagKeyFor, hashApiKey, verifyApiKey } from './hashing';

const pepper = randomBytes(32).toString('base64url');
const newKey = () => generateApiKey((n) => randomBytes(n));

describe('hashApiKey / verifyApiKey', () => {
  it('verifies the key it hashed, with the same pepper', () => {
    const { apiKey } = newKey();
    const stored = hashApiKey(apiKey, pepper);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(apiKey.slice(17, 25));
    expect(verifyApiKey(apiKey, stored, pepper)).toBe(true);
    expect(verifyApiKey(apiKey, stored, Buffer.from(pepper))).toBe(true);
  });

  it('is HMAC-SHA-256 of a labelled message (documented derivation)', () => {
    const { apiKey } = newKey();
    const expected = createHmac('sha256', pepper)
      .update(`spendguard:api-key:v1\u0000${apiKey}`)
      .digest('hex');
    expect(hashApiKey(apiKey, pepper)).toBe(expected);
  });

  it('fails with a wrong pepper', () => {
    const { apiKey } = newKey();
    expect(verifyApiKey(apiKey, hashApiKey(apiKey, pepper), `${pepper}x`)).toBe(false);
  });

  it('fails for any tampered key', () => {
    const { apiKey } = newKey();
    const stored = hashApiKey(apiKey, pepper);
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    fc.assert(
      fc.property(fc.integer({ min: 4, max: apiKey.length - 1 }), fc.constantFrom(...alphabet), (at, ch) => {
        const tampered = apiKey.slice(0, at) + ch + apiKey.slice(at + 1);
        fc.pre(tampered !== apiKey);
        expect(verifyApiKey(tampered, stored, pepper)).toBe(false);
      }),
    );
  });

  it('never throws on malformed input, and verifies nothing', () => {
    const { apiKey } = newKey();
    const stored = hashApiKey(apiKey, pepper);
    expect(verifyApiKey(apiKey, stored.toUpperCase(), pepper)).toBe(false);
    expect(verifyApiKey(apiKey, stored.slice(2), pepper)).toBe(false);
    expect(verifyApiKey(apiKey, stored, '')).toBe(false);
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (k, h) => {
        expect(verifyApiKey(k, h, pepper)).toBe(false);
      }),
    );
  });

  it('refuses an empty pepper and a malformed key when hashing', () => {
    expect(() => hashApiKey(newKey().apiKey, '')).toThrow(ApiKeyError);
    expect(() => hashApiKey('abn_nope', pepper)).toThrow(ApiKeyError);
  });
});

describe('flagKeyFor', () => {
  it('is a deterministic 64-hex digest of the prefix, distinct from the key hash', () => {
    const { apiKey, prefix } = newKey();
    const fk = flagKeyFor(prefix, pepper);
    expect(fk).toMatch(/^[0-9a-f]{64}$/);
    expect(flagKeyFor(prefix, pepper)).toBe(fk);
    expect(fk).not.toBe(hashApiKey(apiKey, pepper));
    expect(fk).not.toContain(prefix.slice(4));
    // Domain separation: not the plain HMAC of the prefix, nor the key-hash derivation of it.
    expect(fk).not.toBe(createHmac('sha256', pepper).update(prefix).digest('hex'));
    expect(fk).not.toBe(
      createHmac('sha256', pepper).update(`spendguard:api-key:v1\u0000${prefix}`).digest('hex'),
    );
  });

  it('depends on the pepper and the prefix', () => {
    const a = newKey().prefix;
    const b = newKey().prefix;
    expect(flagKeyFor(a, pepper)).not.toBe(flagKeyFor(b, pepper));
    expect(flagKeyFor(a, pepper)).not.toBe(flagKeyFor(a, `${pepper}x`));
  });

  it('refuses a whole key or anything else that is not a prefix', () => {
    const { apiKey } = newKey();
    expect(() => flagKeyFor(apiKey, pepper)).toThrow(ApiKeyError);
    expect(() => flagKeyFor('abn_', pepper)).toThrow(ApiKeyError);
    expect(() => flagKeyFor(newKey().prefix, new Uint8Array())).toThrow(ApiKeyError);
  });
});

describe('constantTimeEqual', () => {
  it('is string equality', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
      }),
    );
  });

  it('handles different lengths and empty strings', () => {
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('secret', 'secret-longer')).toBe(false);
    expect(constantTimeEqual('', 'x')).toBe(false);
  });
});
