import { fixtureBytes, fixtureJson, usageOf } from './fixtures/load';
import { createUsageStream, parseUsageJson } from './index';
import type { NormalizedUsage, UsageContext, UsageResult } from './types';

function streamUsage(
  provider: 'openai' | 'xai' | 'deepseek' | 'mistral',
  file: string,
  ctx: UsageContext = {},
): UsageResult {
  const stream = createUsageStream(provider, ctx);
  stream.push(fixtureBytes(file));
  return stream.end();
}

describe('OpenAI usage, non-streamed JSON', () => {
  it.each<[string, Partial<NormalizedUsage>]>([
    [
      // Chat Completions with prompt caching and a reasoning model: reasoning is inside completion_tokens
      'openai-chat.json',
      {
        model: 'o4-mini-2025-04-16',
        inputTokens: 2006,
        cacheReadTokens: 1920,
        outputTokens: 300,
        reasoningTokens: 256,
        serviceTier: 'default',
      },
    ],
    [
      // Responses API: input_tokens / output_tokens and their *_details
      'openai-responses.json',
      {
        model: 'o3-2025-04-16',
        inputTokens: 36,
        outputTokens: 1124,
        reasoningTokens: 1024,
        serviceTier: 'flex',
      },
    ],
    [
      // Embeddings: prompt_tokens only, no completion
      'openai-embeddings.json',
      { model: 'text-embedding-3-small', inputTokens: 8 },
    ],
  ])('%s', (file, expected) => {
    // Act
    const result = parseUsageJson('openai', fixtureJson(file));
    // Assess
    expect(result).toEqual({ ok: true, usage: usageOf(expected) });
  });

  it('reports a provider error body as a failure with its type and message', () => {
    const result = parseUsageJson('openai', fixtureJson('openai-error.json'));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/^provider error: tokens: Rate limit reached for gpt-4\.1/);
  });

  it('takes the model and service tier from the request when the response has none', () => {
    const body = { object: 'list', data: [], usage: { prompt_tokens: 5, total_tokens: 5 } };
    const ctx = { requestBody: '{"model":"text-embedding-3-large","input":"hi","service_tier":"flex"}' };
    expect(parseUsageJson('openai', body, ctx)).toEqual({
      ok: true,
      usage: usageOf({ model: 'text-embedding-3-large', inputTokens: 5, serviceTier: 'flex' }),
    });
  });

  it.each([
    ['a body without usage', { id: 'x', object: 'list', data: [] }, 'no usage in response'],
    ['usage without token counts', { usage: { total_time: 1 } }, 'no usage in response'],
    ['an array', [1, 2], 'response body is not a JSON object'],
    ['null', null, 'response body is not a JSON object'],
    ['malformed JSON text', '{"usage": {"prompt_tokens": 3', 'malformed JSON response body'],
  ])('fails on %s', (_label, body, reason) => {
    expect(parseUsageJson('openai', body)).toEqual({ ok: false, reason });
  });
});

describe('OpenAI usage, streamed', () => {
  it.each<[string, Partial<NormalizedUsage>]>([
    [
      // stream_options.include_usage: last chunk has choices [] and usage; the others "usage": null
      'openai-chat-stream.sse',
      {
        model: 'gpt-4.1-2025-04-14',
        inputTokens: 1134,
        cacheReadTokens: 1024,
        outputTokens: 9,
        serviceTier: 'default',
      },
    ],
    [
      'openai-chat-stream-tools.sse',
      { model: 'gpt-4o-mini-2024-07-18', inputTokens: 81, outputTokens: 15, serviceTier: 'flex' },
    ],
    [
      // Responses API: usage in response.completed → response.usage
      'openai-responses-stream.sse',
      {
        model: 'gpt-4.1-2025-04-14',
        inputTokens: 2211,
        cacheReadTokens: 2048,
        outputTokens: 9,
        serviceTier: 'default',
      },
    ],
  ])('%s', (file, expected) => {
    expect(streamUsage('openai', file)).toEqual({ ok: true, usage: usageOf(expected) });
  });

  it('estimates a stream without a usage chunk from the request and the streamed text (chars / 4)', () => {
    // Prepare: 14 + 32 prompt characters in 2 messages; streamed "Bonjour", " à", " tous", " !", " 👋"
    // are 7 + 2 + 5 + 2 + 3 = 19 UTF-16 characters (the emoji is a surrogate pair).
    const requestBody = {
      model: 'gpt-4.1',
      stream: true,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello to everyone in French.' },
      ],
    };
    // Act
    const result = streamUsage('openai', 'openai-chat-stream-no-usage.sse', { requestBody });
    // Assess: input ceil(46 / 4) + 2 × 3 + 3 = 21; output ceil(19 / 4) = 5
    expect(result).toEqual({
      ok: true,
      usage: usageOf({
        model: 'gpt-4.1-2025-04-14',
        inputTokens: 21,
        outputTokens: 5,
        serviceTier: 'default',
        estimated: true,
      }),
    });
  });

  it('estimates with the given token counter instead of the ratio', () => {
    const requestBody = {
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Say hello to everyone in French.' }],
    };
    const oneTokenPerChar = (text: string): number => text.length;
    const result = streamUsage('openai', 'openai-chat-stream-no-usage.sse', {
      requestBody,
      tokenCounter: oneTokenPerChar,
    });
    // input 32 + 1 × 3 + 3 = 38; output 19
    expect(result.ok && result.usage).toMatchObject({ inputTokens: 38, outputTokens: 19, estimated: true });
  });

  it('counts streamed tool-call arguments when estimating', () => {
    // Prepare: the tools stream without its usage chunk; arguments {"location":"Zürich"} are 21 characters
    const text = new TextDecoder().decode(fixtureBytes('openai-chat-stream-tools.sse'));
    const cut = text.replace(/data: [^\n]*"usage":\{[^\n]*\n\n/, '');
    const stream = createUsageStream('openai');
    // Act
    stream.push(new TextEncoder().encode(cut));
    // Assess: ceil(21 / 4) = 6; no request body, so no prompt estimate
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({
        model: 'gpt-4o-mini-2024-07-18',
        outputTokens: 6,
        serviceTier: 'flex',
        estimated: true,
      }),
    });
  });

  it('estimates a Responses stream cut before response.completed from its text deltas only', () => {
    // Prepare: "Hi" + " there" + "!" + " How can I help?" = 25 characters; the *.done events repeat the
    // text and must not be counted twice
    const text = new TextDecoder().decode(fixtureBytes('openai-responses-stream.sse'));
    const cut = text.slice(0, text.indexOf('event: response.completed'));
    const requestBody = { model: 'gpt-4.1', instructions: 'You are a helpful assistant.', input: 'Say hi.' };
    const stream = createUsageStream('openai', { requestBody });
    // Act
    stream.push(new TextEncoder().encode(cut));
    // Assess: input ceil((28 + 7) / 4) = 9 (a string input has no per-message overhead); output ceil(25 / 4) = 7
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({
        model: 'gpt-4.1-2025-04-14',
        inputTokens: 9,
        outputTokens: 7,
        serviceTier: 'auto',
        estimated: true,
      }),
    });
  });

  it('reports a mid-stream error chunk as a failure', () => {
    const sse =
      'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n' +
      'data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}\n\n';
    const stream = createUsageStream('openai');
    stream.push(new TextEncoder().encode(sse));
    expect(stream.end()).toEqual({
      ok: false,
      reason: 'provider error: server_error: The server had an error while processing your request.',
    });
  });

  it('reports a Responses error event as a failure', () => {
    const sse =
      'event: error\ndata: {"type":"error","code":"ERR_SOMETHING","message":"Something went wrong","param":null,"sequence_number":1}\n\n';
    const stream = createUsageStream('openai');
    stream.push(new TextEncoder().encode(sse));
    expect(stream.end()).toEqual({
      ok: false,
      reason: 'provider error: ERR_SOMETHING: Something went wrong',
    });
  });

  it('keeps the last of several usage chunks (cumulative, never summed)', () => {
    // vLLM's continuous_usage_stats sends cumulative usage on every chunk
    const chunk = (completion: number): string =>
      `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":${completion},"total_tokens":${7 + completion}}}\n\n`;
    const stream = createUsageStream('openai');
    stream.push(new TextEncoder().encode(chunk(1) + chunk(2) + chunk(3) + 'data: [DONE]\n\n'));
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({ model: 'm', inputTokens: 7, outputTokens: 3 }),
    });
  });
});

describe('OpenAI-compatible hosts', () => {
  it.each<['xai' | 'deepseek' | 'mistral', string, Partial<NormalizedUsage>]>([
    [
      // xAI reports reasoning beside completion_tokens: total 837 = 663 + 50 + 124
      'xai',
      'xai-chat.json',
      {
        model: 'grok-4-fast-reasoning',
        inputTokens: 663,
        cacheReadTokens: 654,
        outputTokens: 174,
        reasoningTokens: 124,
      },
    ],
    [
      // DeepSeek: prompt_tokens = hit + miss; reasoning inside completion_tokens (total 1590 = 1180 + 410)
      'deepseek',
      'deepseek-chat.json',
      {
        model: 'deepseek-reasoner',
        inputTokens: 1180,
        cacheReadTokens: 1152,
        outputTokens: 410,
        reasoningTokens: 320,
      },
    ],
    ['mistral', 'mistral-chat.json', { model: 'mistral-large-latest', inputTokens: 16, outputTokens: 34 }],
  ])('%s: %s', (provider, file, expected) => {
    expect(parseUsageJson(provider, fixtureJson(file))).toEqual({ ok: true, usage: usageOf(expected) });
  });
});
