/**
 * The one token bound (request-bound.ts) read the SDK's way (a plain Uint8Array, no Buffer anywhere) gives
 * what the relay reserves from a Buffer (worst-case.ts prices the same bound), so the SDK reserves what the
 * relay would: the output bound the shape reads, choices, base64 parts, server-side context; and the shape
 * carries the same tier, cache write and deferred billing that the relay prices or refuses. The image
 * count is checked against an oracle of its own (Buffer#indexOf, each marker's non-overlapping matches).
 */
import fc from 'fast-check';
import { REQUEST_SHAPE_READERS } from '../providers/request-shape';
import { mentions, mentionsString } from '../providers/request-shape/types';
import type { RequestFlavor } from '../providers/types';
import { callShapeOf } from './call-shape';
import { contextTokensOf } from './context-window';
import {
  cheapWorstCase,
  DEFERRED_WORST_CASE_NANOS,
  IMAGE_TOKEN_BOUND as RELAY_IMAGE_BOUND,
  INPUT_MARGIN_TOKENS as RELAY_MARGIN,
  preciseWorstCase,
} from './worst-case';
import {
  cheapTokenBound,
  IMAGE_TOKEN_BOUND,
  INPUT_MARGIN_TOKENS,
  preciseTokenBound,
  utf8Bytes,
} from './request-bound';

const MODELS = [
  'gpt-4o-mini',
  'gpt-4o',
  'gpt-5',
  'claude-sonnet-4-5',
  'claude-opus-4-5',
  'claude-3-5-haiku-20241022',
  'gemini-2.5-pro',
  'llama-3.1-70b',
  'unknown-x',
  null,
];
const AT = Date.UTC(2026, 10, 1);
/** The image-part markers (spec: OpenAI, Anthropic, Gemini and Ollama image members). */
const IMAGE_MARKERS = [
  '"image_url"',
  '"input_image"',
  '"image"',
  '"inline_data"',
  '"inlineData"',
  '"images"',
];

/** The SDK's reading: bytes from TextEncoder (never a Buffer) and the dialect's reader; Buffer hidden. */
function sdkBounds(text: string, flavor: RequestFlavor, endpoint: string) {
  const g = globalThis as { Buffer?: unknown };
  const saved = g.Buffer;
  delete g.Buffer;
  try {
    const buf = utf8Bytes(text);
    const read = callShapeOf(buf, endpoint, REQUEST_SHAPE_READERS[flavor]);
    const shape = read.ok ? read.shape : undefined;
    const model = shape?.model ?? null;
    return {
      shape,
      cheap: cheapTokenBound(buf, shape, model),
      precise: preciseTokenBound(buf, shape, flavor, model),
    };
  } finally {
    g.Buffer = saved;
  }
}

/** The relay's reading of the same call (relay.ts passes the shape's model). */
function relayCall(text: string, flavor: RequestFlavor, endpoint: string) {
  const body = Buffer.from(text);
  const read = callShapeOf(body, endpoint, REQUEST_SHAPE_READERS[flavor]);
  const model = read.ok ? read.shape.model : null;
  return { provider: flavor === 'gemini' ? 'google' : flavor, flavor, model, body, atMs: AT, endpoint };
}

const base64 = fc
  .array(fc.constantFrom('A', 'B', 'z', '9', '+', '/'), { minLength: 1, maxLength: 400 })
  .map((cs) => cs.join(''));
const part = fc.oneof(
  fc.string({ maxLength: 200 }).map((text) => ({ type: 'text', text })),
  fc.constant({ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }),
  fc.constant({ type: 'input_image', image_url: 'https://example.com/a.png' }),
  base64.map((data) => ({
    type: 'document',
    source: { type: 'base64', media_type: 'application/pdf', data },
  })),
  base64.map((data) => ({ type: 'input_audio', input_audio: { data, format: 'wav' } })),
  base64.map((d) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${d}` } })),
  fc.constant({ type: 'input_file', file_id: 'file-abc' }),
  fc.constant({ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }),
  fc.constant({ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }),
);
const messages = fc.array(
  fc.record({
    role: fc.constantFrom('user', 'system', 'assistant'),
    content: fc.oneof(fc.string({ maxLength: 300 }), fc.array(part, { maxLength: 4 })),
  }),
  { maxLength: 6 },
);
/** Up to the boundaries: 0 (no bound), 1, the documented maxima, above them, past MAX_CHOICES. */
const tokens = fc.oneof(
  fc.constantFrom(0, 1, 16_384, 16_385, 64_000, 64_001, 131_072, 200_000),
  fc.integer({ min: 0, max: 200_000 }),
);
const chatRequest = fc.record(
  {
    model: fc.constantFrom(...MODELS),
    max_tokens: tokens,
    max_completion_tokens: tokens,
    max_output_tokens: tokens,
    n: fc.integer({ min: 0, max: 300 }),
    best_of: fc.integer({ min: 0, max: 300 }),
    service_tier: fc.constantFrom('priority', 'default', 'flex', 'auto'),
    previous_response_id: fc.constant('resp_1'),
    background: fc.boolean(),
    // A nested bound does not lower (or raise) the top-level one: the shape reads the top level only.
    tools: fc.constant([{ type: 'function', function: { name: 'f', parameters: { max_tokens: 5, n: 9 } } }]),
    messages,
  },
  { requiredKeys: ['messages'] },
);
const geminiRequest = fc.record(
  {
    contents: fc.array(
      fc.record({
        role: fc.constantFrom('user', 'model'),
        parts: fc.array(
          fc.oneof(
            fc.string({ maxLength: 200 }).map((text) => ({ text })),
            base64.map((data) => ({ inlineData: { mimeType: 'image/png', data } })),
            fc.constant({ fileData: { fileUri: 'https://generativelanguage.googleapis.com/v1/files/x' } }),
          ),
          { maxLength: 3 },
        ),
      }),
      { maxLength: 4 },
    ),
    generationConfig: fc.record(
      { maxOutputTokens: tokens, candidateCount: fc.integer({ min: 0, max: 300 }) },
      { requiredKeys: [] },
    ),
    cachedContent: fc.constant('cachedContents/abc'),
  },
  { requiredKeys: ['contents'] },
);
const call = fc.oneof(
  fc.record({
    flavor: fc.constantFrom<RequestFlavor>('openai', 'anthropic'),
    endpoint: fc.constantFrom('/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/batches'),
    body: chatRequest as fc.Arbitrary<unknown>,
  }),
  fc.record({
    flavor: fc.constant<RequestFlavor>('gemini'),
    endpoint: fc.constantFrom(
      '/v1beta/models/gemini-2.5-pro:generateContent',
      '/v1beta/models/gemini-2.0-flash:streamGenerateContent',
      '/v1beta/models/gemini-2.5-flash:batchGenerateContent',
    ),
    body: geminiRequest as fc.Arbitrary<unknown>,
  }),
);

describe('request-bound', () => {
  it('uses the relay estimator constants', () => {
    expect(IMAGE_TOKEN_BOUND).toBe(RELAY_IMAGE_BOUND);
    expect(INPUT_MARGIN_TOKENS).toBe(RELAY_MARGIN);
  });

  it("gives the relay's cheap and precise token bounds, tier, cache write and deferral for any request", () => {
    fc.assert(
      fc.property(call, ({ flavor, endpoint, body }) => {
        const text = JSON.stringify(body);
        const relay = relayCall(text, flavor, endpoint);
        const ours = sdkBounds(text, flavor, endpoint);
        const relayCheap = cheapWorstCase(relay);
        if (relayCheap.costNanos === DEFERRED_WORST_CASE_NANOS) {
          // The relay refuses it under a hard cap; the SDK sees the same deferral and refuses it too.
          expect(ours.shape?.deferred).not.toBeNull();
          return;
        }
        expect(ours.shape?.deferred ?? null).toBeNull();
        expect([ours.cheap.inputTokens, ours.cheap.outputTokens, ours.cheap.outputBound]).toEqual([
          relayCheap.inputTokens,
          relayCheap.outputTokens,
          relayCheap.outputBound,
        ]);
        const relayPrecise = preciseWorstCase(relay, undefined);
        expect([ours.precise?.inputTokens, ours.precise?.outputTokens]).toEqual([
          relayPrecise.inputTokens,
          relayPrecise.outputTokens,
        ]);
        // What the relay prices beyond tokens comes from the same fields of the shape.
        const relayShape = callShapeOf(relay.body, endpoint, REQUEST_SHAPE_READERS[flavor]);
        const theirs = relayShape.ok ? relayShape.shape : undefined;
        expect([ours.shape?.serviceTier, ours.shape?.cacheWrite, ours.shape?.serverContext]).toEqual([
          theirs?.serviceTier,
          theirs?.cacheWrite,
          theirs?.serverContext,
        ]);
      }),
      { numRuns: 500 },
    );
  });

  it("gives the relay's counts for bodies made of the needles' own pieces (overlaps, bare quotes)", () => {
    const piece = fc.constantFrom(
      '"n"',
      '"n',
      ':',
      ' ',
      '7',
      '42',
      '"',
      'x',
      ',',
      '"image"',
      '"images"',
      '"image_url"',
      '"inlineData"',
      '"max_tokens"',
      '"max_tokens',
      '"num_predict"',
      '"file_id"',
      '"cache_control"',
      '"ttl"',
      '"1h"',
      '\u00a0',
      '\t',
      '\u000b',
      '{',
      'é',
    );
    // A small alphabet, so that overlapping matches (`"n"n":7`) and top-level members come up often.
    const tight = fc.constantFrom('"n', '"n"', ':', '7', '"max_tokens"', '"image"', '"ttl"', '"1h"');
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(fc.oneof(piece, tight), { maxLength: 40 }),
        fc.constantFrom<RequestFlavor>('openai', 'anthropic'),
        (braced, pieces, flavor) => {
          const text = braced ? `{${pieces.join('')}}` : pieces.join('');
          const relay = cheapWorstCase(relayCall(text, flavor, '/v1/messages'));
          const ours = sdkBounds(text, flavor, '/v1/messages');
          expect([ours.cheap.inputTokens, ours.cheap.outputTokens]).toEqual([
            relay.inputTokens,
            relay.outputTokens,
          ]);
          // Image parts as successive Buffer#indexOf searches find them, marker by marker.
          const buf = Buffer.from(text);
          let images = 0;
          for (const marker of IMAGE_MARKERS) {
            for (let at = buf.indexOf(marker); at !== -1; at = buf.indexOf(marker, at + marker.length))
              images++;
          }
          const context = ours.shape?.serverContext === true ? contextTokensOf(ours.shape.model) : 0;
          expect(ours.cheap.inputTokens).toBe(
            buf.byteLength + images * IMAGE_TOKEN_BOUND + INPUT_MARGIN_TOKENS + context,
          );
          // The 1-hour cache write as the readers found it before they were Buffer-free: a regular
          // expression over the body read as Latin-1 (NBSP and vertical tab are spaces there).
          const oneHour = /"ttl"\s*:\s*"1h"/.test(Buffer.from(text).toString('latin1'));
          expect(mentionsString(utf8Bytes(text), 'ttl', '1h')).toBe(oneHour);
          if (ours.shape !== undefined && flavor === 'anthropic' && ours.shape.cacheWrite !== null) {
            expect(ours.shape.cacheWrite).toBe(oneHour ? '1h' : '5m');
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('finds a 1-hour cache write as the Latin-1 regular expression did, on any bytes', () => {
    const enc = new TextEncoder();
    const bytes = (...ps: string[]): number[] => ps.flatMap((p) => [...enc.encode(p)]);
    // Spaces as a regular expression sees them in Latin-1 (tab to CR, space, NBSP) and near misses.
    const space = fc.array(
      fc.oneof(
        fc.constantFrom(' ', '\t', '\n', '\u000b', '\f', '\r').map((c) => bytes(c)),
        fc.constantFrom([0xa0], [0xc2], [0x85], [0x1c], [0x00]),
      ),
      { maxLength: 3 },
    );
    const junk = fc.array(fc.constantFrom('"ttl"', '"1h"', '"ttl', '1h"', ':', '"', 'x'), { maxLength: 4 });
    const candidate = fc.tuple(
      junk,
      fc.constantFrom('"ttl"', '"ttl', 'ttl"', '"TTL"'),
      space,
      fc.constantFrom(':', '', '::'),
      space,
      fc.constantFrom('"1h"', '"1h', '1h"', '"5m"'),
      junk,
    );
    fc.assert(
      fc.property(candidate, ([pre, key, s1, colon, s2, value, post]) => {
        const body = Uint8Array.from([
          ...bytes(...pre, key),
          ...s1.flat(),
          ...bytes(colon),
          ...s2.flat(),
          ...bytes(value, ...post),
        ]);
        const latin1 = Buffer.from(body).toString('latin1');
        expect(mentionsString(body, 'ttl', '1h')).toBe(/"ttl"\s*:\s*"1h"/.test(latin1));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds a member name anywhere as Buffer#indexOf did (overlaps, cut-off names at the end)', () => {
    const piece = fc.constantFrom(
      '"file_id"',
      '"file_',
      'id"',
      '"file_id',
      '"',
      '""',
      'file_id',
      'x',
      ':',
      'é',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (pieces) => {
        const text = pieces.join('');
        expect(mentions(utf8Bytes(text), 'file_id')).toBe(Buffer.from(text).indexOf('"file_id"') !== -1);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the top-level output bound times the choices, lowered only by a documented model limit', () => {
    const bound = (text: string) => sdkBounds(text, 'openai', '/v1/chat/completions').cheap;
    const body = '{"model":"gpt-4o-mini","max_tokens" : 50,"tools":[{"max_tokens":70}],"n":3,"messages":[]}';
    expect(bound(body)).toMatchObject({ outputTokens: 150, outputBound: 'request' });
    expect(bound('{"model":"gpt-4o-mini","max_tokens":999999}').outputTokens).toBe(16_384);
    // A family row (gpt-5: 128,000) is no documented limit of this id: the request's own bound stands.
    expect(bound('{"model":"gpt-5","max_tokens":999999}').outputTokens).toBe(999_999);
    expect(bound('{"model":"gpt-4o-mini"}')).toMatchObject({
      inputTokens: 23 + 16,
      outputTokens: 16_384,
      outputBound: 'model',
    });
    // Server-side context: the model's whole window (gpt-4o-mini: 128,000) on top of the body.
    const prev = '{"model":"gpt-4o-mini","previous_response_id":"r","max_output_tokens":10}';
    expect(bound(prev).inputTokens).toBe(prev.length + 16 + 128_000);
  });
});
