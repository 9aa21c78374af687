import { createHash, webcrypto } from 'node:crypto';
import fc from 'fast-check';
import { canonicalRequest } from './canonical-request';
import { FINGERPRINT_PATTERN, fallbackFingerprint, fingerprintOf, fingerprintRequest } from './fingerprint';
import { REQUEST_FLAVORS } from './flavors';

const body = {
  model: 'gpt-4o',
  temperature: 0.3,
  messages: [
    { role: 'system', content: 'Ünïcödé — “quotes” and 🚀 and \\ backslash and "quotes"\n' },
    { role: 'user', content: [{ type: 'text', text: 'line 1\nline 2\ttab \u0001 \u2028' }] },
  ],
  tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
};

describe('fingerprintOf', () => {
  it('is sha256: and the hex SHA-256 of the UTF-8 bytes', () => {
    expect(fingerprintOf('{}')).toBe(
      'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
    );
    expect(fingerprintOf('é')).toBe(
      'sha256:' + createHash('sha256').update(Buffer.from('é', 'utf8')).digest('hex'),
    );
    expect(fingerprintOf('x')).toMatch(FINGERPRINT_PATTERN);
  });

  it('matches what the SDK computes with WebCrypto from canonicalRequest', async () => {
    const canonical = canonicalRequest('openai', body)!;
    const digest = await webcrypto.subtle.digest('SHA-256', new TextEncoder().encode(canonical));
    const hex = Buffer.from(digest).toString('hex');
    expect(fingerprintRequest('openai', body)).toBe(`sha256:${hex}`);
  });
});

describe('fingerprintRequest', () => {
  const text = JSON.stringify(body);
  const expected = fingerprintOf(canonicalRequest('openai', body)!);

  it.each<[string, unknown]>([
    ['object', body],
    ['string', text],
    ['indented string', JSON.stringify(body, null, 2)],
    ['Uint8Array', new TextEncoder().encode(text)],
    ['Buffer', Buffer.from(text)],
    ['Buffer slice of a larger pool', Buffer.concat([Buffer.from('xxxx'), Buffer.from(text)]).subarray(4)],
    ['ArrayBuffer', new TextEncoder().encode(text).buffer],
    ['DataView', new DataView(new TextEncoder().encode(text).buffer)],
    ['bytes with a byte-order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
  ])('gives the same fingerprint for a body as %s', (_name, input) => {
    expect(fingerprintRequest('openai', input)).toBe(expected);
  });

  it('returns null for unusable bodies', () => {
    expect(fingerprintRequest('openai', 'not json')).toBeNull();
    expect(fingerprintRequest('openai', Buffer.from([0x7b, 0xff, 0x7d]))).toBeNull();
    expect(fingerprintRequest('openai', Buffer.from('{"model":"m"}'))).toBeNull();
    expect(fingerprintRequest('openai', '\ufeff' + text)).toBeNull(); // JSON.parse refuses a BOM in a string
  });

  it('keeps a U+FEFF that starts a key or a string inside the body, in every input form (fast-check found it)', () => {
    const body = { model: '', messages: [{ '\ufeff': false, '': 0 }, '\ufeffhi'], tools: {}, temperature: 0 };
    const asText = JSON.stringify(body);
    const fromText = fingerprintRequest('openai', asText, { model: 'm' });
    expect(fingerprintRequest('openai', body, { model: 'm' })).toBe(fromText);
    expect(fingerprintRequest('openai', Buffer.from(asText, 'utf8'), { model: 'm' })).toBe(fromText);
    // …and it is not the same request as one without it.
    const without = { ...body, messages: [{ '': 0 }, 'hi'] };
    expect(fingerprintRequest('openai', without, { model: 'm' })).not.toBe(fromText);
  });

  it('agrees across input forms for any body (bytes path = text path = object path)', () => {
    const content = fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' });
    const anyBody = fc.record({
      model: fc.string({ unit: 'binary' }),
      messages: fc.array(content),
      tools: content,
      temperature: fc.double(),
    });
    fc.assert(
      fc.property(anyBody, fc.constantFrom(...REQUEST_FLAVORS), (b, flavor) => {
        const asText = JSON.stringify(b);
        const fromText = fingerprintRequest(flavor, asText, { model: 'm' });
        expect(fingerprintRequest(flavor, b, { model: 'm' })).toBe(fromText);
        // Bytes cannot carry lone surrogates: their UTF-8 form is a different (replaced) text.
        if (!/\p{Surrogate}/u.test(asText)) {
          expect(fingerprintRequest(flavor, Buffer.from(asText, 'utf8'), { model: 'm' })).toBe(fromText);
        }
        const canonical = canonicalRequest(flavor, asText, { model: 'm' });
        expect(fromText).toBe(canonical === null ? null : fingerprintOf(canonical));
      }),
      { numRuns: 300 },
    );
  });

  it('hashes a large body piece by piece to the same result as hashing the canonical string', () => {
    const big = {
      model: 'gpt-4o',
      messages: Array.from({ length: 200 }, (_, i) => ({
        role: 'user',
        content: `${i} `.repeat(500) + '🚀\n',
      })),
    };
    const canonical = canonicalRequest('openai', big)!;
    expect(canonical.length).toBeGreaterThan(200_000);
    expect(fingerprintRequest('openai', JSON.stringify(big))).toBe(fingerprintOf(canonical));
    expect(fingerprintRequest('openai', Buffer.from(JSON.stringify(big)))).toBe(fingerprintOf(canonical));
  });

  it('never throws on random input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string({ unit: 'binary' }), fc.uint8Array()), (input) => {
        const out = fingerprintRequest('anthropic', input);
        expect(out === null || FINGERPRINT_PATTERN.test(out)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('fallbackFingerprint', () => {
  it('is the SHA-256 of model, NUL, prompt tokens', () => {
    const expected = createHash('sha256').update('gpt-4o\u00001200').digest('hex');
    expect(fallbackFingerprint('gpt-4o', 1200)).toBe(`sha256:${expected}`);
  });

  it('separates model and count unambiguously', () => {
    expect(fallbackFingerprint('gpt-4o1', 200)).not.toBe(fallbackFingerprint('gpt-4o', 1200));
    expect(fallbackFingerprint('a', 1)).not.toBe(fallbackFingerprint('a', 2));
  });
});
