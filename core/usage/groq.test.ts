import { fixtureBytes, fixtureJson, usageOf } from './fixtures/load';
import { createUsageStream, parseUsageJson } from './index';

describe('Groq usage', () => {
  it('reads the standard usage object of a chat completion', () => {
    expect(parseUsageJson('groq', fixtureJson('groq-chat.json'))).toEqual({
      ok: true,
      usage: usageOf({
        model: 'llama-3.3-70b-versatile',
        inputTokens: 18,
        outputTokens: 556,
        serviceTier: 'on_demand',
      }),
    });
  });

  it('reads x_groq.usage from the last chunk of a stream', () => {
    const stream = createUsageStream('groq');
    stream.push(fixtureBytes('groq-stream.sse'));
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({ model: 'llama-3.3-70b-versatile', inputTokens: 38, outputTokens: 4 }),
    });
  });

  it('prefers the top-level usage when include_usage adds one beside x_groq.usage', () => {
    const sse =
      'data: {"id":"c","object":"chat.completion.chunk","model":"openai/gpt-oss-120b","choices":[],' +
      '"x_groq":{"id":"req_1","usage":{"prompt_tokens":38,"completion_tokens":4,"total_tokens":42}},' +
      '"usage":{"prompt_tokens":38,"completion_tokens":4,"total_tokens":42,"prompt_tokens_details":{"cached_tokens":32}}}\n\n';
    const stream = createUsageStream('groq');
    stream.push(new TextEncoder().encode(sse));
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({ model: 'openai/gpt-oss-120b', inputTokens: 38, cacheReadTokens: 32, outputTokens: 4 }),
    });
  });
});
