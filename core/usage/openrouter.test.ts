import { fixtureBytes, fixtureJson, usageOf } from './fixtures/load';
import { createUsageStream, parseUsageJson } from './index';

describe('OpenRouter usage', () => {
  it('reads usage.cost as the provider cost and cache writes as 5-minute writes', () => {
    expect(parseUsageJson('openrouter', fixtureJson('openrouter-chat.json'))).toEqual({
      ok: true,
      usage: usageOf({
        model: 'anthropic/claude-sonnet-4.5',
        inputTokens: 1450,
        cacheReadTokens: 1024,
        cacheWrite5mTokens: 400,
        outputTokens: 87,
        providerCostUsd: 0.0056355,
      }),
    });
  });

  it('skips ": OPENROUTER PROCESSING" comments and reads the usage of the last chunk', () => {
    const stream = createUsageStream('openrouter');
    stream.push(fixtureBytes('openrouter-stream.sse'));
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({ model: 'openai/gpt-4o', inputTokens: 14, outputTokens: 9, providerCostUsd: 0.000125 }),
    });
  });

  it('reports a mid-stream error chunk (finish_reason "error") as a failure', () => {
    const stream = createUsageStream('openrouter');
    stream.push(fixtureBytes('openrouter-stream-error.sse'));
    expect(stream.end()).toEqual({
      ok: false,
      reason: 'provider error: server_error: Provider disconnected unexpectedly',
    });
  });

  it("estimates with the routed model's family (Claude: 3.5 characters per token)", () => {
    // Prepare: only comments and one content chunk of 21 characters
    const sse =
      ': OPENROUTER PROCESSING\n\n' +
      'data: {"id":"gen-1","provider":"Anthropic","model":"anthropic/claude-sonnet-4.5","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Bonjour, comment vas?"}}]}\n\n';
    const stream = createUsageStream('openrouter');
    // Act
    stream.push(new TextEncoder().encode(sse));
    // Assess: ceil(21 / 3.5) = 6
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({ model: 'anthropic/claude-sonnet-4.5', outputTokens: 6, estimated: true }),
    });
  });
});
