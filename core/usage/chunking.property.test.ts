/**
 * Properties of every streaming parser, over every stream fixture:
 * - any chunking of the bytes gives a result deep-equal to the single-chunk parse (random split points,
 *   1-byte chunks, splits inside multi-byte UTF-8 characters and inside `\r\n`);
 * - the line-ending style (`\n`, `\r\n`, `\r`) does not change the result;
 * - random bytes, and valid streams with random bytes spliced in, never throw.
 */
import fc from 'fast-check';
import { PROVIDER_IDS, type ProviderId } from '../providers';
import { chunksOf, fixtureBytes, splitAt, STREAM_FIXTURES } from './fixtures/load';
import { createUsageStream, parseUsageJson, usageFromResponse } from './index';
import type { UsageResult } from './types';

function parseChunks(provider: string, chunks: readonly Uint8Array[]): UsageResult {
  const stream = createUsageStream(provider as ProviderId, {
    requestBody: { model: 'm', messages: [{ role: 'user', content: 'Hello there' }] },
  });
  for (const chunk of chunks) stream.push(chunk);
  return stream.end();
}

/** The fixture with its line endings rewritten (each `\r\n`, `\r` or `\n` becomes `ending`). */
function withLineEndings(bytes: Uint8Array, ending: string): Uint8Array {
  const text = new TextDecoder().decode(bytes).replace(/\r\n|\r|\n/g, ending);
  return new TextEncoder().encode(text);
}

describe.each(STREAM_FIXTURES)('%s stream %s', (provider, file) => {
  const bytes = fixtureBytes(file);
  const whole = parseChunks(provider, [bytes]);

  it('parses (sanity check of the reference result)', () => {
    expect(whole.ok || whole.reason.startsWith('provider error')).toBe(true);
  });

  it('gives the same result for any split points', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: bytes.length }), { maxLength: 64 }), (offsets) => {
        expect(parseChunks(provider, splitAt(bytes, offsets))).toEqual(whole);
      }),
      { numRuns: 150 },
    );
  });

  it('gives the same result in 1-, 2- and 3-byte chunks (splitting every multi-byte character)', () => {
    for (const size of [1, 2, 3]) expect(parseChunks(provider, chunksOf(bytes, size))).toEqual(whole);
  });

  it.each([
    ['\\r\\n', '\r\n'],
    ['\\r', '\r'],
    ['\\n', '\n'],
  ])('gives the same result with %s line endings, split anywhere (also inside \\r\\n)', (_label, ending) => {
    const rewritten = withLineEndings(bytes, ending);
    expect(parseChunks(provider, [rewritten])).toEqual(whole);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: rewritten.length }), { maxLength: 64 }), (offsets) => {
        expect(parseChunks(provider, splitAt(rewritten, offsets))).toEqual(whole);
      }),
      { numRuns: 50 },
    );
  });

  it('never throws when random bytes are spliced into the stream', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: bytes.length }),
        fc.uint8Array({ maxLength: 40 }),
        (at, garbage) => {
          const mixed = new Uint8Array(bytes.length + garbage.length);
          mixed.set(bytes.subarray(0, at));
          mixed.set(garbage, at);
          mixed.set(bytes.subarray(at), at + garbage.length);
          const result = parseChunks(provider, [mixed]);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('random input never throws', () => {
  const providerArb = fc.constantFrom(...PROVIDER_IDS);

  it('streams of random bytes, in random chunks', () => {
    fc.assert(
      fc.property(
        providerArb,
        fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 16 }),
        (provider, chunks) => {
          const result = parseChunks(provider, chunks);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('streams of SSE-like text', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '',
        'data: [DONE]',
        ': comment',
        'event: message_delta',
        'data: {"usage":{',
        'data: {}',
      ),
      fc.string().map((s) => `data: ${s}`),
      fc.json().map((j) => `data: ${j}`),
    );
    fc.assert(
      fc.property(providerArb, fc.array(line, { maxLength: 20 }), (provider, lines) => {
        const result = parseChunks(provider, [new TextEncoder().encode(lines.join('\n'))]);
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });

  it('JSON bodies of any shape', () => {
    fc.assert(
      fc.property(providerArb, fc.jsonValue(), (provider, body) => {
        expect(typeof parseUsageJson(provider, body).ok).toBe('boolean');
        expect(typeof parseUsageJson(provider, { usage: body, usageMetadata: body, error: body }).ok).toBe(
          'boolean',
        );
      }),
      { numRuns: 300 },
    );
  });

  it('whole responses of random bytes with any content type', () => {
    fc.assert(
      fc.property(
        providerArb,
        fc.uint8Array({ maxLength: 200 }),
        fc.constantFrom(
          undefined,
          'application/json',
          'text/event-stream',
          'application/x-ndjson',
          'text/html',
        ),
        fc.constantFrom(200, 400, 500),
        (provider, body, contentType, status) => {
          expect(typeof usageFromResponse({ provider, body, contentType, status }).ok).toBe('boolean');
        },
      ),
      { numRuns: 300 },
    );
  });
});
