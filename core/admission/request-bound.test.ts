/**
 * The platform-neutral token bound gives the relay's token counts (worst-case.ts) for the same body, so
 * the SDK reserves what the relay would.
 */
import fc from 'fast-check';
import {
  cheapWorstCase,
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
  'gpt-5',
  'claude-sonnet-4-5',
  'gemini-2.5-pro',
  'llama-3.1-70b',
  'unknown-x',
  null,
];

const part = fc.oneof(
  fc.string({ maxLength: 200 }).map((text) => ({ type: 'text', text })),
  fc.constant({ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }),
  fc.constant({ type: 'input_image', image_url: 'https://example.com/a.png' }),
);
const request = fc.record(
  {
    model: fc.constantFrom(...MODELS),
    max_tokens: fc.integer({ min: 0, max: 200_000 }),
    max_completion_tokens: fc.integer({ min: 0, max: 200_000 }),
    n: fc.integer({ min: 0, max: 300 }),
    messages: fc.array(
      fc.record({
        role: fc.constantFrom('user', 'system', 'assistant'),
        content: fc.oneof(fc.string({ maxLength: 300 }), fc.array(part, { maxLength: 4 })),
      }),
      { maxLength: 6 },
    ),
  },
  { requiredKeys: ['messages'] },
);

describe('request-bound', () => {
  it('uses the relay estimator constants', () => {
    expect(IMAGE_TOKEN_BOUND).toBe(RELAY_IMAGE_BOUND);
    expect(INPUT_MARGIN_TOKENS).toBe(RELAY_MARGIN);
  });

  it("gives the relay's cheap and precise token bounds for any chat body", () => {
    fc.assert(
      fc.property(request, fc.constantFrom<'openai' | 'anthropic'>('openai', 'anthropic'), (req, flavor) => {
        const text = JSON.stringify(req);
        const model = typeof req.model === 'string' ? req.model : null;
        const call = {
          provider: 'openai',
          flavor,
          model,
          body: Buffer.from(text),
          atMs: Date.UTC(2026, 10, 1),
        };
        const relayCheap = cheapWorstCase(call);
        const cheap = cheapTokenBound(utf8Bytes(text), model);
        expect([cheap.inputTokens, cheap.outputTokens, cheap.outputBound]).toEqual([
          relayCheap.inputTokens,
          relayCheap.outputTokens,
          relayCheap.outputBound,
        ]);
        const relayPrecise = preciseWorstCase(call, undefined);
        const precise = preciseTokenBound(utf8Bytes(text), JSON.parse(text), flavor, model);
        expect([precise?.inputTokens, precise?.outputTokens]).toEqual([
          relayPrecise.inputTokens,
          relayPrecise.outputTokens,
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
      '"image"',
      '"images"',
      '"image_url"',
      '"inlineData"',
      '"max_tokens"',
      '"max_tokens',
      '"num_predict"',
      'é',
    );
    // A small alphabet, so that overlapping matches (`"n"n":7`) come up often.
    const tight = fc.constantFrom('"n', '"n"', ':', '7', '"max_tokens"', '"image"');
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, tight), { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        const call = {
          provider: 'openai',
          flavor: 'openai' as const,
          model: 'gpt-4o',
          body: Buffer.from(text),
          atMs: 0,
        };
        const relay = cheapWorstCase(call);
        const ours = cheapTokenBound(utf8Bytes(text), 'gpt-4o');
        expect([ours.inputTokens, ours.outputTokens]).toEqual([relay.inputTokens, relay.outputTokens]);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the largest output bound anywhere and multiplies by n, capped at the model maximum', () => {
    const body = utf8Bytes(
      '{"model":"gpt-4o-mini","max_tokens" : 50,"tools":[{"max_tokens":70}],"n":3,"messages":[]}',
    );
    expect(cheapTokenBound(body, 'gpt-4o-mini')).toMatchObject({ outputTokens: 210, outputBound: 'request' });
    const huge = utf8Bytes('{"max_tokens":999999}');
    expect(cheapTokenBound(huge, 'gpt-4o-mini').outputTokens).toBe(16_384);
    expect(cheapTokenBound(utf8Bytes('{}'), 'gpt-4o-mini')).toMatchObject({
      inputTokens: 2 + 16,
      outputTokens: 16_384,
      outputBound: 'model',
    });
  });
});
