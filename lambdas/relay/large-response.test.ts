import fc from 'fast-check';
import { getProvider } from '../../core/providers';
import { usageFromResponse } from '../../core/usage';
import { MAX_RESPONSE_PARSE_BYTES, usageEssentials } from './large-response';
import { UsageTap } from './usage-tap';

const filler = (n: number) =>
  'lorem "quoted" \\ ipsum {"usage":{"prompt_tokens":999}} '.repeat(Math.ceil(n / 60));

/** Large responses in each provider's real shape: content first, usage at the end. */
const responses = {
  openai: (text: string) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-2024-08-06',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: {
      prompt_tokens: 1200,
      completion_tokens: 800,
      total_tokens: 2000,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 10 },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_1',
  }),
  embeddings: (text: string) => ({
    object: 'list',
    data: Array.from({ length: Math.ceil(text.length / 20_000) }, (_, i) => ({
      object: 'embedding',
      index: i,
      embedding: Array.from({ length: 1536 }, (_, j) => ((i * 7 + j) % 97) / 97 - 0.5),
    })),
    model: 'text-embedding-3-small',
    usage: { prompt_tokens: 5000, total_tokens: 5000 },
  }),
  anthropic: (text: string) => ({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: 1500,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 200,
      output_tokens: 900,
    },
  }),
  gemini: (text: string) => ({
    candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 1100, candidatesTokenCount: 700, totalTokenCount: 1800 },
    modelVersion: 'gemini-2.5-pro',
    responseId: 'r1',
  }),
} as const;

const cases: Array<[string, keyof typeof responses, string, string]> = [
  ['openai chat', 'openai', 'openai', 'https://api.openai.com/v1/chat/completions'],
  ['openai embeddings', 'embeddings', 'openai', 'https://api.openai.com/v1/embeddings'],
  ['anthropic', 'anthropic', 'anthropic', 'https://api.anthropic.com/v1/messages'],
  [
    'gemini',
    'gemini',
    'gemini',
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent',
  ],
];

describe('usageEssentials (large JSON responses, issue 15.1)', () => {
  it.each(cases)('%s: the same usage as parsing the whole 3 MB response', (_name, shape, providerId, url) => {
    const body = Buffer.from(JSON.stringify(responses[shape](filler(3_000_000))));
    expect(body.byteLength).toBeGreaterThan(MAX_RESPONSE_PARSE_BYTES);
    const provider = getProvider(providerId)!;
    const whole = usageFromResponse({ provider, body, contentType: 'application/json', status: 200, url });
    expect(whole.ok).toBe(true);
    const small = usageEssentials(body);
    expect(small!.byteLength).toBeLessThan(2000);
    expect(
      usageFromResponse({ provider, body: small!, contentType: 'application/json', status: 200, url }),
    ).toEqual(whole);
  });

  it('returns null when no usage object ends the response, or the object is cut off', () => {
    expect(
      usageEssentials(Buffer.from(JSON.stringify({ model: 'm', text: 'x'.repeat(200_000) }))),
    ).toBeNull();
    expect(usageEssentials(Buffer.from('{"model":"m","usage":{"prompt_tokens":1'))).toBeNull();
  });

  it('ignores usage-looking text inside strings (escaped quotes), whatever the content (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(1_000_000), (content, tokens) => {
        const body = Buffer.from(
          JSON.stringify({
            model: 'gpt-4o',
            content: `${content}"usage":{"prompt_tokens":1}`,
            usage: { prompt_tokens: tokens },
          }),
        );
        const small = JSON.parse(usageEssentials(body)!.toString('utf8')) as {
          usage: unknown;
          model: string;
        };
        expect(small).toEqual({ model: 'gpt-4o', usage: { prompt_tokens: tokens } });
      }),
    );
  });
});

describe('UsageTap with a large JSON response', () => {
  it('reads the usage of a 3 MB response from its ends, not by parsing it whole', async () => {
    const body = Buffer.from(JSON.stringify(responses.openai(filler(3_000_000))));
    const parse = jest.spyOn(JSON, 'parse');
    const tap = new UsageTap(200, 'application/json', undefined, {
      provider: getProvider('openai')!,
      url: 'https://api.openai.com/v1/chat/completions',
      requestBody: Buffer.from('{"model":"gpt-4o","messages":[]}'),
    });
    for (let i = 0; i < body.byteLength; i += 65_536) tap.push(body.subarray(i, i + 65_536));
    const out = await tap.finish();
    const biggest = Math.max(0, ...parse.mock.calls.map(([text]) => String(text).length));
    parse.mockRestore();
    expect(out.usage).toMatchObject({
      ok: true,
      usage: { inputTokens: 1200, outputTokens: 800, model: 'gpt-4o-2024-08-06' },
    });
    expect(biggest).toBeLessThan(MAX_RESPONSE_PARSE_BYTES);
  });
});
