import { fixtureBytes, fixtureJson, usageOf } from './fixtures/load';
import { createUsageStream, parseUsageJson } from './index';
import type { NormalizedUsage } from './types';

describe('Llama-family usage (Ollama native and OpenAI-compatible servers)', () => {
  it('reads prompt_eval_count and eval_count from an Ollama chat response', () => {
    expect(parseUsageJson('llama', fixtureJson('ollama-chat.json'))).toEqual({
      ok: true,
      usage: usageOf({ model: 'llama3.2', inputTokens: 26, outputTokens: 298 }),
    });
  });

  it('reads an OpenAI-style body from a vLLM or llama.cpp server', () => {
    const body = {
      object: 'chat.completion',
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      choices: [],
      usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
    };
    expect(parseUsageJson('llama', body)).toEqual({
      ok: true,
      usage: usageOf({ model: 'meta-llama/Llama-3.1-8B-Instruct', inputTokens: 20, outputTokens: 5 }),
    });
  });

  it.each<[string, Partial<NormalizedUsage>]>([
    // NDJSON: only the final "done": true object carries the counts
    ['ollama-chat-stream.ndjson', { model: 'llama3.2', inputTokens: 26, outputTokens: 12 }],
    ['ollama-generate-stream.ndjson', { model: 'qwen3:8b', inputTokens: 17, outputTokens: 31 }],
    // SSE from an OpenAI-compatible server with include_usage
    [
      'llama-vllm-stream.sse',
      { model: 'meta-llama/Llama-3.1-8B-Instruct', inputTokens: 42, outputTokens: 10 },
    ],
  ])('%s', (file, expected) => {
    const stream = createUsageStream('llama');
    stream.push(fixtureBytes(file));
    expect(stream.end()).toEqual({ ok: true, usage: usageOf(expected) });
  });

  it('reports an Ollama error body as a failure', () => {
    expect(parseUsageJson('llama', fixtureJson('ollama-error.json'))).toEqual({
      ok: false,
      reason: 'provider error: model "llama9" not found, try pulling it first',
    });
  });

  it('estimates an NDJSON stream cut before its final object with the Llama ratio (3.8)', () => {
    // Prepare: drop the "done": true line; streamed text is 3 + 4 + 3 + 5 + 32 = 47 characters
    const lines = new TextDecoder().decode(fixtureBytes('ollama-chat-stream.ndjson')).split('\n');
    const cut = lines.filter((l) => !l.includes('"done":true')).join('\n');
    const requestBody = { model: 'llama3.2', messages: [{ role: 'user', content: 'Why is the sky blue?' }] };
    const stream = createUsageStream('llama', { requestBody, url: 'http://localhost:11434/api/chat' });
    // Act
    stream.push(new TextEncoder().encode(cut));
    // Assess: input ceil(20 / 3.8) + 3 + 3 = 12; output ceil(47 / 3.8) = 13
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({ model: 'llama3.2', inputTokens: 12, outputTokens: 13, estimated: true }),
    });
  });

  it('reports an error line in an NDJSON stream as a failure', () => {
    const stream = createUsageStream('llama');
    stream.push(
      new TextEncoder().encode(
        '{"model":"llama3.2","message":{"role":"assistant","content":"Hi"},"done":false}\n{"error":"an error was encountered while running the model"}\n',
      ),
    );
    expect(stream.end()).toEqual({
      ok: false,
      reason: 'provider error: an error was encountered while running the model',
    });
  });
});
