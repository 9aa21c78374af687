import { fixtureBytes, fixtureJson, usageOf } from './fixtures/load';
import { createUsageStream, parseUsageJson } from './index';
import type { NormalizedUsage, UsageResult } from './types';

function streamText(text: string, requestBody?: unknown): UsageResult {
  const stream = createUsageStream('anthropic', { requestBody });
  stream.push(new TextEncoder().encode(text));
  return stream.end();
}

/** The main fixture's usage: input 10 + cache read 2000 + cache write 500 (all 5-minute) = 2510. */
const CACHED: Partial<NormalizedUsage> = {
  model: 'claude-sonnet-4-5-20250929',
  inputTokens: 2510,
  cacheReadTokens: 2000,
  cacheWrite5mTokens: 500,
  outputTokens: 42,
  serviceTier: 'standard',
};

describe('Anthropic usage, non-streamed JSON', () => {
  it.each<[string, Partial<NormalizedUsage>]>([
    ['anthropic-message.json', CACHED],
    [
      // cache_creation splits the 1800 written tokens: 300 for 5 minutes, 1500 for 1 hour
      'anthropic-message-1h.json',
      {
        model: 'claude-opus-4-1-20250805',
        inputTokens: 1803,
        cacheWrite5mTokens: 300,
        cacheWrite1hTokens: 1500,
        outputTokens: 250,
        serviceTier: 'priority',
      },
    ],
    [
      // no cache_creation split (older responses): every written token is a 5-minute write
      'anthropic-message-legacy.json',
      { model: 'claude-3-5-haiku-20241022', inputTokens: 1025, cacheWrite5mTokens: 1000, outputTokens: 120 },
    ],
  ])('%s', (file, expected) => {
    expect(parseUsageJson('anthropic', fixtureJson(file))).toEqual({ ok: true, usage: usageOf(expected) });
  });

  it('reports an error body as a failure', () => {
    expect(parseUsageJson('anthropic', fixtureJson('anthropic-error.json'))).toEqual({
      ok: false,
      reason: 'provider error: overloaded_error: Overloaded',
    });
  });

  it('takes the service tier from the request when usage has none', () => {
    const body = { model: 'claude-x', usage: { input_tokens: 1, output_tokens: 2 } };
    expect(parseUsageJson('anthropic', body, { requestBody: { service_tier: 'standard_only' } })).toEqual({
      ok: true,
      usage: usageOf({ model: 'claude-x', inputTokens: 1, outputTokens: 2, serviceTier: 'standard_only' }),
    });
  });
});

describe('Anthropic usage, streamed', () => {
  it.each<[string, Partial<NormalizedUsage>]>([
    // message_start has input and cache figures; message_delta the final cumulative counts
    ['anthropic-stream.sse', CACHED],
    [
      // message_delta with output_tokens only: input figures stay those of message_start
      'anthropic-stream-thinking-tools.sse',
      { model: 'claude-sonnet-4-20250514', inputTokens: 1205, outputTokens: 389, serviceTier: 'standard' },
    ],
  ])('%s', (file, expected) => {
    const stream = createUsageStream('anthropic');
    stream.push(fixtureBytes(file));
    expect(stream.end()).toEqual({ ok: true, usage: usageOf(expected) });
  });

  it('reports an error event as a failure', () => {
    const stream = createUsageStream('anthropic');
    stream.push(fixtureBytes('anthropic-stream-error.sse'));
    expect(stream.end()).toEqual({ ok: false, reason: 'provider error: overloaded_error: Overloaded' });
  });

  it('takes the last message_delta usage: cumulative counts are never summed', () => {
    const text =
      'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-haiku-4-5","id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":30,"output_tokens":1}}}\n\n' +
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":null},"usage":{"output_tokens":40}}\n\n' +
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":89}}\n\n' +
      'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    expect(streamText(text)).toEqual({
      ok: true,
      usage: usageOf({ model: 'claude-haiku-4-5', inputTokens: 30, outputTokens: 89 }),
    });
  });

  it('keeps message_start input figures and estimates the output of a stream cut before message_delta', () => {
    // Prepare: drop message_delta and message_stop
    const full = new TextDecoder().decode(fixtureBytes('anthropic-stream.sse'));
    const cut = full.slice(0, full.indexOf('event: message_delta'));
    const streamed =
      'Based on the contract you shared,' +
      ' the termination notice period is' +
      ' 90 days (§ 12.3 — « préavis »).';
    // Act
    const result = streamText(cut);
    // Assess: output by Claude's ratio, 3.5 characters per token
    expect(result).toEqual({
      ok: true,
      usage: usageOf({ ...CACHED, outputTokens: Math.ceil(streamed.length / 3.5), estimated: true }),
    });
  });

  it('estimates thinking, text and tool-input deltas but not signatures', () => {
    const full = new TextDecoder().decode(fixtureBytes('anthropic-stream-thinking-tools.sse'));
    const cut = full.slice(0, full.indexOf('event: message_delta'));
    const thinking =
      'The user wants the weather in Paris. I should call get_weather' + ' with celsius units.';
    const text = 'Let me check the weather in Paris.';
    const toolInput = '{"location": "Par' + 'is, France", "unit": "celsius"}';
    const chars = thinking.length + text.length + toolInput.length;
    const result = streamText(cut);
    expect(result.ok && result.usage.outputTokens).toBe(Math.ceil(chars / 3.5));
    expect(result.ok && result.usage.inputTokens).toBe(1205);
  });

  it('estimates the prompt of a stream that never got to message_start', () => {
    // Prepare: a system prompt of 28 characters and one 20-character message; no frames with usage
    const requestBody = {
      model: 'claude-sonnet-4-5',
      system: [{ type: 'text', text: 'You are a helpful assistant.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Tell me about Paris.' }] }],
    };
    const text = 'event: ping\ndata: {"type": "ping"}\n\n';
    // Act
    const result = streamText(text, requestBody);
    // Assess: ceil(48 / 3.5) + 1 × 3 + 3 = 20; the model comes from the request
    expect(result).toEqual({
      ok: true,
      usage: usageOf({ model: 'claude-sonnet-4-5', inputTokens: 20, estimated: true }),
    });
  });
});

describe('Anthropic server tools', () => {
  const WEB_SEARCH: Partial<NormalizedUsage> = {
    model: 'claude-sonnet-4-5-20250929',
    inputTokens: 6039,
    outputTokens: 931,
    serviceTier: 'standard',
    webSearchRequests: 3,
  };

  it('counts usage.server_tool_use.web_search_requests of a message', () => {
    expect(parseUsageJson('anthropic', fixtureJson('anthropic-web-search.json'))).toEqual({
      ok: true,
      usage: usageOf(WEB_SEARCH),
    });
  });

  it('takes the searches and the final input from the cumulative message_delta of a stream', () => {
    const stream = createUsageStream('anthropic', {});
    stream.push(fixtureBytes('anthropic-web-search-stream.sse'));

    expect(stream.end()).toEqual({ ok: true, usage: usageOf(WEB_SEARCH) });
  });
});
