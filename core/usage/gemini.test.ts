import { fixtureBytes, fixtureJson, usageOf } from './fixtures/load';
import { createUsageStream, parseUsageJson } from './index';
import type { NormalizedUsage, UsageContext } from './types';

const STREAM_URL =
  'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';

describe('Gemini usage', () => {
  it.each<[string, Partial<NormalizedUsage>]>([
    [
      // thoughts are billed as output on top of candidates: 512 + 1222; cached tokens are part of the prompt
      'gemini-generate.json',
      {
        model: 'gemini-2.5-pro',
        inputTokens: 4096,
        cacheReadTokens: 3072,
        outputTokens: 1734,
        reasoningTokens: 1222,
      },
    ],
    [
      // streamGenerateContent without alt=sse: one JSON array of chunks, cumulative usage, last wins
      'gemini-stream-array.json',
      { model: 'gemini-2.0-flash', inputTokens: 5, outputTokens: 10 },
    ],
  ])('%s (JSON)', (file, expected) => {
    expect(parseUsageJson('gemini', fixtureJson(file))).toEqual({ ok: true, usage: usageOf(expected) });
  });

  it('reads the SSE stream (CRLF framed): cumulative usageMetadata, the last one wins', () => {
    const stream = createUsageStream('gemini', { url: STREAM_URL });
    stream.push(fixtureBytes('gemini-stream.sse'));
    // last chunk: prompt 11, candidates 61, thoughts 389 → output 450
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({ model: 'gemini-2.5-flash', inputTokens: 11, outputTokens: 450, reasoningTokens: 389 }),
    });
  });

  it('counts tool-use prompt tokens as input and reads serviceTier', () => {
    const body = {
      candidates: [],
      usageMetadata: {
        promptTokenCount: 100,
        toolUsePromptTokenCount: 40,
        candidatesTokenCount: 7,
        totalTokenCount: 147,
        serviceTier: 'flex',
      },
      modelVersion: 'gemini-2.5-flash',
    };
    expect(parseUsageJson('gemini', body)).toEqual({
      ok: true,
      usage: usageOf({ model: 'gemini-2.5-flash', inputTokens: 140, outputTokens: 7, serviceTier: 'flex' }),
    });
  });

  it('takes the model from the URL path when the response has no modelVersion', () => {
    const ctx: UsageContext = {
      url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent',
    };
    const body = { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 } };
    expect(parseUsageJson('gemini', body, ctx)).toEqual({
      ok: true,
      usage: usageOf({ model: 'gemini-2.5-pro', inputTokens: 3, outputTokens: 4 }),
    });
  });

  it('reads the OpenAI-compatible endpoint as OpenAI', () => {
    const ctx = { url: 'https://generativelanguage.googleapis.com/v1beta/openai/chat/completions' };
    const body = {
      object: 'chat.completion',
      model: 'gemini-2.5-flash',
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 },
    };
    expect(parseUsageJson('gemini', body, ctx)).toEqual({
      ok: true,
      usage: usageOf({ model: 'gemini-2.5-flash', inputTokens: 12, outputTokens: 30 }),
    });
  });

  it('reports an error body as a failure', () => {
    expect(parseUsageJson('gemini', fixtureJson('gemini-error.json'))).toEqual({
      ok: false,
      reason: 'provider error: RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).',
    });
  });

  it('ignores usageMetadata without token counts (Vertex trafficType only)', () => {
    const frame = (meta: string): string =>
      `data: {"candidates": [{"content": {"role": "model","parts": [{"text": "Hi"}]}}],"usageMetadata": ${meta},"modelVersion": "gemini-3-flash"}\r\n\r\n`;
    const stream = createUsageStream('gemini');
    stream.push(
      new TextEncoder().encode(
        frame('{"promptTokenCount": 4,"candidatesTokenCount": 2,"totalTokenCount": 6}') +
          frame('{"trafficType": "ON_DEMAND"}'),
      ),
    );
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({ model: 'gemini-3-flash', inputTokens: 4, outputTokens: 2 }),
    });
  });

  it('estimates from contents and streamed text when no chunk has usage', () => {
    // Prepare: 27 characters of prompt in one turn; 5 + 6 streamed characters
    const requestBody = { contents: [{ role: 'user', parts: [{ text: 'What is the capital of Peru' }] }] };
    const sse =
      'data: {"candidates": [{"content": {"parts": [{"text": "Lima."}],"role": "model"}}]}\r\n\r\n' +
      'data: {"candidates": [{"content": {"parts": [{"text": " Done."}],"role": "model"}}]}\r\n\r\n';
    const stream = createUsageStream('gemini', { url: STREAM_URL, requestBody });
    // Act
    stream.push(new TextEncoder().encode(sse));
    // Assess: ceil(27 / 4) + 1 × 3 + 3 = 13; ceil(11 / 4) = 3; model from the URL
    expect(stream.end()).toEqual({
      ok: true,
      usage: usageOf({ model: 'gemini-2.5-flash', inputTokens: 13, outputTokens: 3, estimated: true }),
    });
  });
});
