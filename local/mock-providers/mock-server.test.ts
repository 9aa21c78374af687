import { usageFromResponse } from '../../core/usage';
import {
  mockCompletionTokens,
  mockPromptTokens,
  OPENROUTER_MOCK_PRICES,
  startMockProviders,
  type MockProviders,
} from '.';

let mock: MockProviders;
beforeAll(async () => {
  mock = await startMockProviders({ port: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const messages = [{ role: 'user', content: 'Count to three, please.' }]; // 23 chars → 6 tokens

async function call(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { res, text: await res.text() };
}

describe('fake providers', () => {
  it.each([
    [
      'openai chat JSON',
      'openai',
      '/openai/v1/chat/completions',
      { model: 'gpt-4o-mini', messages, max_tokens: 5 },
      6,
      5,
      false,
    ],
    [
      'openai chat SSE + include_usage',
      'openai',
      '/openai/v1/chat/completions',
      { model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } },
      6,
      8,
      false,
    ],
    [
      'openai responses JSON',
      'openai',
      '/openai/v1/responses',
      { model: 'gpt-4o-mini', input: 'Count to three, please.' },
      6,
      8,
      false,
    ],
    [
      'openai responses SSE',
      'openai',
      '/openai/v1/responses',
      { model: 'gpt-4o-mini', input: 'Count to three, please.', stream: true, max_output_tokens: 3 },
      6,
      3,
      false,
    ],
    [
      'openai embeddings',
      'openai',
      '/openai/v1/embeddings',
      { model: 'text-embedding-3-small', input: ['abcd', 'abcdefgh'] },
      3,
      0,
      false,
    ],
    [
      'anthropic JSON',
      'anthropic',
      '/anthropic/v1/messages',
      { model: 'claude-haiku-4-5', max_tokens: 4, messages },
      6,
      4,
      false,
    ],
    [
      'anthropic SSE',
      'anthropic',
      '/anthropic/v1/messages',
      { model: 'claude-haiku-4-5', max_tokens: 4, messages, stream: true },
      6,
      4,
      false,
    ],
    [
      'openrouter SSE',
      'openrouter',
      '/openrouter/api/v1/chat/completions',
      { model: 'anthropic/claude-haiku-4.5', messages, stream: true },
      6,
      8,
      false,
    ],
  ] as const)(
    '%s: real format, predictable usage, read by core/usage',
    async (_n, provider, path, body, inTok, outTok, estimated) => {
      // Act
      const { res, text } = await call(mock.url + path, body);
      const usage = usageFromResponse({
        provider,
        body: text,
        contentType: res.headers.get('content-type'),
        status: res.status,
        requestBody: body,
      });
      // Assess
      expect(res.status).toBe(200);
      expect(usage).toMatchObject({
        ok: true,
        usage: { inputTokens: inTok, outputTokens: outTok, estimated },
      });
      expect(mockPromptTokens(body) === inTok || path.endsWith('embeddings')).toBe(true);
    },
  );

  it('streams chat without a usage frame when include_usage is not asked', async () => {
    const body = { model: 'gpt-4o-mini', messages, stream: true };
    const { text } = await call(mock.url + '/openai/v1/chat/completions', body);
    expect(text).not.toContain('"usage"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const usage = usageFromResponse({
      provider: 'openai',
      body: text,
      contentType: 'text/event-stream',
      requestBody: body,
    });
    expect(usage).toMatchObject({ ok: true, usage: { estimated: true } });
  });

  it('sends OpenRouter processing comments and usage.cost', async () => {
    const { text } = await call(mock.url + '/openrouter/api/v1/chat/completions', {
      model: 'openai/gpt-4o',
      messages,
      stream: true,
      max_tokens: 2,
    });
    expect(text.startsWith(': OPENROUTER PROCESSING\n\n')).toBe(true);
    const cost = 6 * OPENROUTER_MOCK_PRICES.prompt + 2 * OPENROUTER_MOCK_PRICES.completion;
    const usage = usageFromResponse({ provider: 'openrouter', body: text, contentType: 'text/event-stream' });
    expect(usage.ok && usage.usage.providerCostUsd).toBeCloseTo(cost, 12);
  });

  it('answers the same request with the same bytes', async () => {
    const body = { model: 'gpt-4o-mini', messages, stream: true };
    const a = await call(mock.url + '/openai/v1/chat/completions', body);
    const b = await call(mock.url + '/openai/v1/chat/completions', body);
    expect(a.text).toBe(b.text);
  });

  it('records requests and answers forced errors in each provider format', async () => {
    const o = await call(mock.url + '/openai/v1/chat/completions', { messages }, { 'x-mock-status': '503' });
    const a = await call(mock.url + '/anthropic/v1/messages', { messages }, { 'x-mock-status': '429' });
    expect(o.res.status).toBe(503);
    expect(JSON.parse(o.text)).toMatchObject({ error: { type: 'server_error' } });
    expect(a.res.status).toBe(429);
    expect(JSON.parse(a.text)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(mock.requests().map((r) => [r.provider, r.method, r.url])).toEqual([
      ['openai', 'POST', '/openai/v1/chat/completions'],
      ['anthropic', 'POST', '/anthropic/v1/messages'],
    ]);
  });

  it('compresses when asked and accepted', async () => {
    const res = await fetch(mock.url + '/openai/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-mock-encoding': 'gzip', 'accept-encoding': 'gzip' },
      body: JSON.stringify({ messages }),
    });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const raw = Buffer.from(await res.arrayBuffer());
    // fetch decompresses transparently; the raw bytes on the wire were gzip
    expect(JSON.parse(raw.toString('utf8'))).toMatchObject({ object: 'chat.completion' });
  });

  it('derives completion tokens from the request or the x-mock-chunks header', () => {
    expect(mockCompletionTokens({ max_tokens: 3 })).toBe(3);
    expect(mockCompletionTokens({ max_tokens: 100000 })).toBe(64);
    expect(mockCompletionTokens({}, '500')).toBe(500);
    expect(mockCompletionTokens({})).toBe(8);
  });
});
