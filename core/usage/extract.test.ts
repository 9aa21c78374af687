import { getProvider } from '../providers';
import { fixtureBytes, usageOf } from './fixtures/load';
import { createUsageStream, DEFAULT_MAX_FRAME_CHARS, parseUsageJson, usageFromResponse } from './index';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('usageFromResponse', () => {
  const openaiStreamUsage = usageOf({
    model: 'gpt-4.1-2025-04-14',
    inputTokens: 1134,
    cacheReadTokens: 1024,
    outputTokens: 9,
    serviceTier: 'default',
  });

  it.each([
    ['text/event-stream; charset=utf-8', 'openai', 'openai-chat-stream.sse', openaiStreamUsage],
    [undefined, 'openai', 'openai-chat-stream.sse', openaiStreamUsage],
    [
      'application/json',
      'anthropic',
      'anthropic-message.json',
      expect.objectContaining({ inputTokens: 2510 }),
    ],
    [null, 'anthropic', 'anthropic-message.json', expect.objectContaining({ inputTokens: 2510 })],
    [
      'application/x-ndjson',
      'llama',
      'ollama-chat-stream.ndjson',
      expect.objectContaining({ inputTokens: 26 }),
    ],
    [undefined, 'llama', 'ollama-chat-stream.ndjson', expect.objectContaining({ outputTokens: 12 })],
  ] as const)('content type %s, %s %s', (contentType, provider, file, usage) => {
    const result = usageFromResponse({ provider, contentType, status: 200, body: fixtureBytes(file) });
    expect(result).toEqual({ ok: true, usage });
  });

  it('accepts a text body and a provider entry', () => {
    const body = new TextDecoder().decode(fixtureBytes('anthropic-message.json'));
    const anthropic = getProvider('anthropic');
    expect(anthropic).toBeDefined();
    const result = usageFromResponse({
      provider: anthropic ?? 'anthropic',
      contentType: 'application/json',
      body,
    });
    expect(result.ok && result.usage.inputTokens).toBe(2510);
  });

  it('reports an HTTP error status with the provider error', () => {
    const result = usageFromResponse({
      provider: 'openai',
      status: 429,
      contentType: 'application/json',
      body: fixtureBytes('openai-error.json'),
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/^HTTP 429: provider error: tokens: Rate limit reached/);
  });

  it('reports an HTTP error status whose body is not JSON', () => {
    expect(usageFromResponse({ provider: 'openai', status: 502, body: '<html>Bad gateway</html>' })).toEqual({
      ok: false,
      reason: 'HTTP 502',
    });
  });

  it('reports an unknown provider', () => {
    expect(usageFromResponse({ provider: 'nope' as 'openai', body: '{}' })).toEqual({
      ok: false,
      reason: 'unknown provider: nope',
    });
  });
});

describe('createUsageStream', () => {
  it('returns the same result from end() twice and ignores pushes after end', () => {
    const stream = createUsageStream('openai');
    stream.push(fixtureBytes('openai-chat-stream.sse'));
    const first = stream.end();
    stream.push(encode('data: {"choices":[],"usage":{"prompt_tokens":1}}\n\n'));
    expect(stream.end()).toBe(first);
  });

  it('reports an empty stream and a stream of comments only', () => {
    expect(createUsageStream('openai').end()).toEqual({ ok: false, reason: 'empty stream' });
    const stream = createUsageStream('openrouter');
    stream.push(encode(': OPENROUTER PROCESSING\n\ndata: [DONE]\n\n'));
    expect(stream.end()).toEqual({ ok: false, reason: 'no usage in stream: no data frames' });
  });

  it('reports a stream with malformed JSON frames and no usage', () => {
    const stream = createUsageStream('openai');
    stream.push(encode('data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: not json\n\n'));
    expect(stream.end()).toEqual({ ok: false, reason: 'malformed JSON in 1 stream frame(s)' });
  });

  it('reports a malformed usage frame', () => {
    const stream = createUsageStream('openai');
    stream.push(encode('data: {"choices":[],"usage":{"prompt_tokens":1,}}\n\n'));
    expect(stream.end()).toEqual({ ok: false, reason: 'malformed JSON in 1 stream frame(s)' });
  });

  it('reports "frame too large" when an oversized frame was skipped and no usage followed', () => {
    const stream = createUsageStream('openai', { maxFrameChars: 100 });
    stream.push(encode(`data: {"choices":[{"delta":{"content":"${'x'.repeat(200)}"}}]}\n\n`));
    expect(stream.end()).toEqual({
      ok: false,
      reason: 'frame too large (over 100 characters); usage unknown',
    });
  });

  it('still reports the usage that follows a skipped oversized frame', () => {
    const stream = createUsageStream('openai', { maxFrameChars: 200 });
    stream.push(encode(`data: {"choices":[{"delta":{"content":"${'x'.repeat(300)}"}}]}\n\n`));
    stream.push(
      encode('data: {"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}\n\n'),
    );
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({ model: 'm', inputTokens: 3, outputTokens: 4 }),
    });
  });

  it('keeps memory bounded: a stream that never ends a line holds at most one frame', () => {
    const stream = createUsageStream('openai', { maxFrameChars: 1_000 });
    const noNewline = encode('x'.repeat(10_000));
    for (let i = 0; i < 100; i++) stream.push(noNewline);
    expect(stream.end()).toEqual({
      ok: false,
      reason: 'frame too large (over 1000 characters); usage unknown',
    });
  });

  it('defaults the frame limit to 1 MiB', () => {
    expect(DEFAULT_MAX_FRAME_CHARS).toBe(1_048_576);
  });

  it('reports an unknown provider from end()', () => {
    const stream = createUsageStream('nope' as 'openai');
    stream.push(encode('data: {}\n\n'));
    expect(stream.end()).toEqual({ ok: false, reason: 'unknown provider: nope' });
  });
});

describe('parseUsageJson', () => {
  it('accepts bytes', () => {
    const result = parseUsageJson('anthropic', fixtureBytes('anthropic-message.json'));
    expect(result.ok && result.usage.outputTokens).toBe(42);
  });
});
