/**
 * The SDK's fingerprint equals core/fingerprint's (the proxy's and the server's) for any body: the
 * same canonical text, hashed with the SDK's `sha256Hex` (node:crypto here; WebCrypto where the runtime
 * has no node:crypto, and `sha256.test.ts` holds the two equal).
 */
import fc from 'fast-check';
import {
  canonicalRequest,
  fingerprintRequest,
  REQUEST_FLAVORS,
  type RequestFlavor,
} from '../../core/fingerprint';
import { FINGERPRINT_BOUNDS } from '../../core/fingerprint/bounds';
import {
  canonicalRequestText,
  fingerprintBody,
  MAX_FINGERPRINT_BODY,
  parseRequestBody,
} from '../src/fingerprint';

const memberArb = fc.oneof(fc.json(), fc.constant('null'), fc.constant('"x"'));
const bodyArb = fc
  .record(
    {
      model: fc.oneof(fc.constantFrom('gpt-4o', 'claude-haiku-4-5', ''), fc.json()),
      messages: memberArb,
      input: memberArb,
      prompt: memberArb,
      contents: memberArb,
      system: memberArb,
      tools: memberArb,
      instructions: memberArb,
      temperature: fc.double(),
      extra: fc.json(),
    },
    { requiredKeys: [] },
  )
  .map((members) => {
    // members are JSON texts; assemble an object text (keys in random-ish order, duplicates allowed)
    const entries = Object.entries(members).map(
      ([k, v]) => `${JSON.stringify(k)}: ${typeof v === 'string' ? v : JSON.stringify(v)}`,
    );
    return `{ ${entries.join(' ,\n')} }`;
  });

describe('canonicalRequestText', () => {
  it('equals core canonicalRequest for random bodies of every flavor (text and bytes)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...REQUEST_FLAVORS),
        bodyArb,
        fc.option(fc.string(), { nil: undefined }),
        (flavor, body, model) => {
          const opts = model === undefined ? undefined : { model };
          expect(canonicalRequestText(flavor, body, model)).toBe(canonicalRequest(flavor, body, opts));
          const bytes = new TextEncoder().encode(body);
          expect(canonicalRequestText(flavor, bytes, model)).toBe(canonicalRequest(flavor, bytes, opts));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it.each<[string, RequestFlavor, string | Uint8Array]>([
    ['not JSON', 'openai', '{"model":'],
    ['not an object', 'openai', '[1,2]'],
    ['no content member', 'anthropic', '{"model":"x","max_tokens":5}'],
    ['invalid UTF-8', 'openai', new Uint8Array([0x7b, 0xff, 0x7d])],
    ['too deep', 'openai', `{"messages":${'['.repeat(1001)}${']'.repeat(1001)}}`],
    ['escapes and duplicates', 'openai', '{"messages":[{"content":"\\u00e9\\/"}],"model":"a","model":"b"}'],
    ['numbers', 'ollama', '{"prompt":"p","images":[1.0,1e2,-0,1e400,0.1]}'],
  ])('agrees with core on %s', (_name, flavor, body) => {
    expect(canonicalRequestText(flavor, body)).toBe(canonicalRequest(flavor, body));
  });

  it('hashes to the same fingerprint as core', () => {
    const body = '{"model":"gpt-4o","temperature":0.2,"messages":[{"role":"user","content":"hi"}]}';
    expect(fingerprintBody('openai', body)).toBe(fingerprintRequest('openai', body));
    expect(
      fingerprintBody('gemini', '{"contents":[{"parts":[{"text":"hi"}]}]}', 'models/gemini-2.5-pro'),
    ).toBe(
      fingerprintRequest('gemini', '{"contents":[{"parts":[{"text":"hi"}]}]}', { model: 'gemini-2.5-pro' }),
    );
  });
});

describe('the byte bound', () => {
  const chatOf = (chars: number) =>
    JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a'.repeat(chars) }] });
  const overhead = chatOf(0).length;

  it("is core's: bodies at the bound are fingerprinted as core does, one byte more not at all", () => {
    expect(MAX_FINGERPRINT_BODY).toBe(FINGERPRINT_BOUNDS.maxBytes);
    const atBound = chatOf(MAX_FINGERPRINT_BODY - overhead);
    expect(atBound.length).toBe(MAX_FINGERPRINT_BODY);
    expect(fingerprintBody('openai', atBound)).toBe(fingerprintRequest('openai', atBound));
    const over = chatOf(MAX_FINGERPRINT_BODY - overhead + 1);
    expect(fingerprintBody('openai', over)).toBeUndefined();
    expect(fingerprintBody('openai', new TextEncoder().encode(over))).toBeUndefined();
    expect(parseRequestBody(over)).toBeUndefined();
  });

  it('never parses a 6 MB body (the host would wait for JSON.parse and the canonical form)', () => {
    const big = chatOf(6 * 1024 * 1024);
    const parse = jest.spyOn(JSON, 'parse');
    try {
      expect(fingerprintBody('openai', big)).toBeUndefined();
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });
});
