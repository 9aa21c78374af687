import fc from 'fast-check';
import { createEventStreamDecoder, readBedrockEventStream } from './bedrock-event-stream';
import { bedrockModelFromPath } from '../providers/bedrock-paths';
import { converseInputIncludesCache } from './bedrock';
import { bedrockStreamFixture, encodeEvents } from './fixtures/bedrock/encode';
import { fixtureJson } from './fixtures/load';
import { createUsageStream, parseUsageJson, usageFromResponse } from './index';
import type { UsageResult } from './types';

const RUNTIME = 'https://bedrock-runtime.us-east-1.amazonaws.com';
const url = (model: string, op: string) => `${RUNTIME}/model/${encodeURIComponent(model)}/${op}`;

function streamOf(model: string, op: string, bytes: Uint8Array, cuts: readonly number[] = []): UsageResult {
  const s = createUsageStream('bedrock', {
    url: url(model, op),
    bedrockEventStream: readBedrockEventStream,
  });
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    s.push(bytes.subarray(at, cut));
    at = cut;
  }
  s.push(bytes.subarray(at));
  return s.end();
}

describe('Bedrock Converse usage (JSON)', () => {
  it('Anthropic on Converse: inputTokens EXCLUDES cache tokens, cacheDetails split 5m / 1h', () => {
    const r = parseUsageJson('bedrock', fixtureJson('bedrock/converse-claude-cache.json'), {
      url: url('us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'converse'),
    });
    expect(r).toEqual({
      ok: true,
      usage: expect.objectContaining({
        model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
        inputTokens: 24 + 3000 + 1500,
        cacheReadTokens: 3000,
        cacheWrite5mTokens: 1000,
        cacheWrite1hTokens: 500,
        outputTokens: 310,
      }),
    });
  });

  it('OpenAI on Bedrock: inputTokens INCLUDES cache reads (not added twice); tier from the response', () => {
    const r = parseUsageJson('bedrock', fixtureJson('bedrock/converse-openai-cache.json'), {
      url: url('openai.gpt-5.4', 'converse'),
    });
    expect(r.ok && r.usage).toMatchObject({
      model: 'openai.gpt-5.4',
      inputTokens: 4000,
      cacheReadTokens: 3072,
      outputTokens: 200,
      serviceTier: 'priority',
    });
  });

  it('an application-profile ARN (no vendor) is read by totalTokens: exclusive for the Claude figures', () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6';
    const r = parseUsageJson('bedrock', fixtureJson('bedrock/converse-claude-cache.json'), {
      url: url(arn, 'converse'),
    });
    expect(r.ok && r.usage.model).toBe(arn);
    expect(r.ok && r.usage.inputTokens).toBe(4524);
  });

  it('without cacheDetails every write is a 5-minute write; tier from the request when the response has none', () => {
    const r = parseUsageJson(
      'bedrock',
      { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 815, cacheWriteInputTokens: 800 } },
      {
        url: url('anthropic.claude-haiku-4-5-20251001-v1:0', 'converse'),
        requestBody: { messages: [], serviceTier: { type: 'flex' } },
      },
    );
    expect(r.ok && r.usage).toMatchObject({ inputTokens: 810, cacheWrite5mTokens: 800, serviceTier: 'flex' });
  });

  it('property: inclusive and exclusive reports of the same call normalize alike', () => {
    fc.assert(
      fc.property(
        fc.nat(100_000),
        fc.nat(100_000),
        fc.nat(100_000),
        fc.nat(100_000),
        (uncached, read, write, output) => {
          fc.pre(read + write > 0);
          // Anthropic-style: inputTokens = uncached only; total counts everything.
          const ex = converseInputIncludesCache(
            uncached,
            output,
            read + write,
            uncached + read + write + output,
            null,
          );
          // OpenAI-style: inputTokens already holds the cache tokens.
          const inc = converseInputIncludesCache(
            uncached + read + write,
            output,
            read + write,
            uncached + read + write + output,
            null,
          );
          expect(ex).toBe(uncached + read + write + output === uncached + output); // false unless cache = 0
          expect(inc).toBe(true);
        },
      ),
    );
  });
});

describe('Bedrock InvokeModel bodies', () => {
  it('Anthropic Messages body: priced as the path profile, 1-hour writes kept apart', () => {
    const r = parseUsageJson('bedrock', fixtureJson('bedrock/invoke-claude.json'), {
      url: url('global.anthropic.claude-haiku-4-5-20251001-v1:0', 'invoke'),
    });
    expect(r.ok && r.usage).toMatchObject({
      model: 'global.anthropic.claude-haiku-4-5-20251001-v1:0',
      inputTokens: 12 + 2048,
      cacheWrite1hTokens: 2048,
      cacheWrite5mTokens: 0,
      outputTokens: 11,
    });
  });

  it.each([
    ['invoke-llama.json', 'meta.llama3-3-70b-instruct-v1:0', 18, 9],
    ['invoke-titan.json', 'amazon.titan-text-express-v1', 7, 23],
  ])('%s', (file, model, input, output) => {
    const r = parseUsageJson('bedrock', fixtureJson(`bedrock/${file}`), { url: url(model, 'invoke') });
    expect(r.ok && r.usage).toMatchObject({ model, inputTokens: input, outputTokens: output });
  });

  it('the OpenAI-compatible endpoints use the OpenAI reader', () => {
    const r = parseUsageJson(
      'bedrock',
      { model: 'openai.gpt-oss-120b-1:0', choices: [], usage: { prompt_tokens: 30, completion_tokens: 12 } },
      { url: 'https://bedrock-mantle.us-east-1.api.aws/v1/chat/completions' },
    );
    expect(r.ok && r.usage).toMatchObject({
      model: 'openai.gpt-oss-120b-1:0',
      inputTokens: 30,
      outputTokens: 12,
    });
  });

  it('an AWS error body is a failure with its message', () => {
    const r = usageFromResponse({
      provider: 'bedrock',
      status: 400,
      contentType: 'application/json',
      body: '{"message":"The provided model identifier is invalid."}',
      url: url('x', 'converse'),
    });
    expect(r.ok).toBe(false);
  });
});

describe('Bedrock event streams (decoded with the AWS codec)', () => {
  it('ConverseStream on Nova Pro: usage from the metadata event', () => {
    const r = streamOf(
      'us.amazon.nova-pro-v1:0',
      'converse-stream',
      bedrockStreamFixture('converse-stream-nova.json'),
    );
    expect(r).toEqual({
      ok: true,
      usage: expect.objectContaining({
        model: 'us.amazon.nova-pro-v1:0',
        inputTokens: 1200,
        outputTokens: 85,
        estimated: false,
      }),
    });
  });

  it('InvokeModelWithResponseStream, Anthropic body: the model events, cache reads added to input', () => {
    const r = streamOf(
      'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'invoke-with-response-stream',
      bedrockStreamFixture('invoke-stream-claude.json'),
    );
    expect(r.ok && r.usage).toMatchObject({ inputTokens: 5009, cacheReadTokens: 5000, outputTokens: 57 });
  });

  it('InvokeModelWithResponseStream, Llama body: amazon-bedrock-invocationMetrics', () => {
    const r = streamOf(
      'meta.llama3-3-70b-instruct-v1:0',
      'invoke-with-response-stream',
      bedrockStreamFixture('invoke-stream-llama.json'),
    );
    expect(r.ok && r.usage).toMatchObject({ inputTokens: 18, outputTokens: 5, estimated: false });
  });

  it('usageFromResponse recognises application/vnd.amazon.eventstream', () => {
    const r = usageFromResponse({
      provider: 'bedrock',
      status: 200,
      contentType: 'application/vnd.amazon.eventstream',
      body: bedrockStreamFixture('converse-stream-nova.json'),
      url: url('amazon.nova-pro-v1:0', 'converse-stream'),
      bedrockEventStream: readBedrockEventStream,
    });
    expect(r.ok && r.usage.inputTokens).toBe(1200);
  });

  it('a stream cut before metadata is estimated from its text', () => {
    const events = fixtureJson('bedrock/converse-stream-nova.json') as { event: string }[];
    const r = streamOf(
      'us.amazon.nova-pro-v1:0',
      'converse-stream',
      encodeEvents(events.slice(0, 3) as never),
    );
    expect(r.ok && r.usage.estimated).toBe(true);
    expect(r.ok && r.usage.outputTokens).toBeGreaterThan(0);
  });

  it('a modeled exception mid-stream is a failure, not a crash', () => {
    const bytes = encodeEvents([
      { event: 'messageStart', payload: { role: 'assistant' } },
      { event: 'throttlingException', payload: { message: 'Too many tokens' }, messageType: 'exception' },
    ]);
    const r = streamOf('us.amazon.nova-pro-v1:0', 'converse-stream', bytes);
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('throttlingException') });
  });

  it('a corrupted byte (CRC mismatch) stops decoding with a reason, never throws', () => {
    const bytes = bedrockStreamFixture('converse-stream-nova.json').slice();
    bytes[20] = (bytes[20] as number) ^ 0xff;
    const r = streamOf('us.amazon.nova-pro-v1:0', 'converse-stream', bytes);
    expect(r.ok).toBe(false);
  });

  it('property: any chunking of the stream gives the same usage', () => {
    const bytes = bedrockStreamFixture('invoke-stream-claude.json');
    const whole = streamOf(
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'invoke-with-response-stream',
      bytes,
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.byteLength - 1 }), { maxLength: 40 }),
        (cuts) => {
          expect(
            streamOf(
              'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
              'invoke-with-response-stream',
              bytes,
              cuts,
            ),
          ).toEqual(whole);
        },
      ),
    );
  });

  it('property: a message length outside the bound stops the decoder', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: 15 }),
          fc.integer({ min: 16 * 1024 * 1024 + 1, max: 2 ** 32 - 1 }),
        ),
        (len) => {
          const d = createEventStreamDecoder();
          const prelude = new Uint8Array(12);
          new DataView(prelude.buffer).setUint32(0, len, false);
          expect(d.push(prelude)).toEqual([]);
          expect(d.error).toMatch(/bounds/);
        },
      ),
    );
  });

  it('without a decoder (the SDK bundle) a byte stream reports why', () => {
    const s = createUsageStream('bedrock', { url: url('amazon.nova-pro-v1:0', 'converse-stream') });
    s.push(bedrockStreamFixture('converse-stream-nova.json'));
    expect(s.end()).toEqual({ ok: false, reason: expect.stringMatching(/decoder/) });
  });

  it('bedrockModelFromPath decodes ARNs', () => {
    expect(
      bedrockModelFromPath(
        '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fabc/converse',
      ),
    ).toBe('arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc');
    expect(bedrockModelFromPath('/openai/v1/chat/completions')).toBeNull();
  });
});
