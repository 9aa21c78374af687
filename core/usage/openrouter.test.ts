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

describe('provider-reported cost of other hosts', () => {
  it("reads xAI's usage.cost_in_usd_ticks (10^10 ticks per USD) as the provider cost", () => {
    const body = {
      id: 'a3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      object: 'chat.completion',
      model: 'grok-4-0709',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.' }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 700,
        completion_tokens: 1101,
        total_tokens: 1801,
        prompt_tokens_details: { text_tokens: 700, audio_tokens: 0, image_tokens: 0, cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 1091, audio_tokens: 0 },
        num_sources_used: 0,
        cost_in_usd_ticks: 37756000,
      },
    };
    const result = parseUsageJson('xai', body);

    expect(result.ok && result.usage.providerCostUsd).toBe(0.0037756);
  });

  it('reads the cost from the final usage frame of an OpenRouter stream', () => {
    const stream = createUsageStream('openrouter', {});
    stream.push(fixtureBytes('openrouter-gemini-2.5-pro-long-stream.sse'));
    const result = stream.end();

    expect(result).toMatchObject({
      ok: true,
      usage: {
        model: 'google/gemini-2.5-pro',
        inputTokens: 250_000,
        outputTokens: 1_850,
        providerCostUsd: 0.65275,
      },
    });
  });
});
