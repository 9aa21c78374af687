/**
 * The official `openai` and `@anthropic-ai/sdk` clients against a local fake provider, instrumented
 * both ways: `initServiceAuto` (the global fetch) and `wrapFetch` (their `fetch` option), streamed and
 * not. Events must reach the fake ingest with the right fields and validate against the client event
 * schema, and no payload may carry prompt or completion text.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { fingerprintRequest } from '../../core/fingerprint';
import { flush, initServiceAuto, shutdown, wrapFetch } from '../src';
import { startFakeIngest, TEST_API_KEY, type FakeIngest } from './helpers/fake-ingest';
import { COMPLETION_TEXT, PROMPT_TEXT, startFakeProvider, type FakeProvider } from './helpers/fake-provider';
import { expectValidClientEvents } from './helpers/schema';

const PROVIDER_KEY = 'sk-provider-secret-do-not-send-1234567890';
let provider: FakeProvider;
let ingest: FakeIngest;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  [provider, ingest] = await Promise.all([startFakeProvider(), startFakeIngest()]);
});

afterAll(async () => {
  await Promise.all([provider.close(), ingest.close()]);
});

beforeEach(() => {
  ingest.batches.length = 0;
  provider.requests.length = 0;
});

afterEach(async () => {
  await shutdown();
  globalThis.fetch = realFetch;
});

const sdkOptions = {
  apiKey: TEST_API_KEY,
  flushIntervalMs: 60_000,
  projectId: 'proj-test',
  environment: 'staging',
} as const;

function autoInit(): void {
  globalThis.fetch = provider.networkFetch; // the "network": provider hosts go to the fake provider
  initServiceAuto({ ...sdkOptions, endpoint: ingest.url });
}

async function flushedEvents(n: number): Promise<Array<Record<string, unknown>>> {
  await flush();
  const events = await ingest.waitForEvents(n);
  expect(events).toHaveLength(n);
  expectValidClientEvents(ingest.batches.map((b) => b.body));
  return events;
}

const messages = [{ role: 'user' as const, content: PROMPT_TEXT }];

async function readOpenAIStream(
  stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

async function readAnthropicStream(stream: AsyncIterable<Anthropic.MessageStreamEvent>): Promise<string> {
  let text = '';
  for await (const event of stream) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  }
  return text.trim();
}

describe('initServiceAuto with the official clients', () => {
  it('records an OpenAI chat completion (JSON)', async () => {
    autoInit();
    const openai = new OpenAI({ apiKey: PROVIDER_KEY, maxRetries: 0 });
    const reply = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(reply.choices[0]?.message.content).toBe(COMPLETION_TEXT);

    const [event] = await flushedEvents(1);
    expect(event).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini',
      promptTokens: 21,
      completionTokens: 12,
      totalTokens: 33,
      costSource: 'PROVIDER_REGISTRY',
      statusCode: 200,
      projectId: 'proj-test',
      environment: 'staging',
      stream: false,
      estimated: false,
      endpoint: '/v1/chat/completions',
    });
    // gpt-4o-mini: $0.15 / $0.60 per MTok → 21 × 150,000 + 12 × 600,000 pico-USD = 10,350 nanos
    expect(event?.estimatedCostUsd).toBeCloseTo(0.00001035, 12);
    expect(event?.fingerprint).toBe(fingerprintRequest('openai', provider.requests[0]?.body ?? ''));
    expect(ingest.batches[0]?.headers['service-api-key']).toBe(TEST_API_KEY);
  });

  it('records OpenAI’s client pointed at Bedrock’s OpenAI-compatible endpoint, with no provider option', async () => {
    autoInit();
    const openai = new OpenAI({
      apiKey: 'bedrock-api-key',
      baseURL: 'https://bedrock-runtime.us-west-2.amazonaws.com/openai/v1',
      maxRetries: 0,
    });
    await openai.chat.completions.create({ model: 'openai.gpt-oss-120b-1:0', messages });
    const [event] = await flushedEvents(1);
    expect(event).toMatchObject({
      provider: 'bedrock',
      model: 'openai.gpt-oss-120b-1:0',
      promptTokens: 21,
      completionTokens: 12,
    });
  });

  it('records an OpenAI stream with include_usage, passing every chunk through', async () => {
    autoInit();
    const openai = new OpenAI({ apiKey: PROVIDER_KEY, maxRetries: 0 });
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(await readOpenAIStream(stream)).toBe(COMPLETION_TEXT);
    const [event] = await flushedEvents(1);
    expect(event).toMatchObject({ promptTokens: 21, completionTokens: 12, stream: true, estimated: false });
  });

  it('estimates an OpenAI stream without a usage frame and marks it estimated', async () => {
    autoInit();
    const openai = new OpenAI({ apiKey: PROVIDER_KEY, maxRetries: 0 });
    const stream = await openai.chat.completions.create({ model: 'gpt-4o', messages, stream: true });
    expect(await readOpenAIStream(stream)).toBe(COMPLETION_TEXT);
    const [event] = await flushedEvents(1);
    expect(event).toMatchObject({ model: 'gpt-4o', stream: true, estimated: true });
    expect(event?.promptTokens).toBeGreaterThan(10);
    expect(event?.completionTokens).toBeGreaterThan(5);
  });

  it('records an Anthropic message (JSON) with cache reads', async () => {
    autoInit();
    const anthropic = new Anthropic({ apiKey: PROVIDER_KEY, maxRetries: 0 });
    const reply = await anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 100, messages });
    expect(reply.content[0]?.type === 'text' && reply.content[0].text).toBe(COMPLETION_TEXT);
    const [event] = await flushedEvents(1);
    expect(event).toMatchObject({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      promptTokens: 125,
      cacheReadTokens: 100,
      completionTokens: 15,
      totalTokens: 140,
      endpoint: '/v1/messages',
      stream: false,
    });
    // claude-haiku-4-5: 25 × $1 + 100 × $0.10 + 15 × $5 per MTok = 25,000 + 10,000 + 75,000 nanos
    expect(event?.estimatedCostUsd).toBeCloseTo(0.00011, 12);
  });

  it('records an Anthropic stream', async () => {
    autoInit();
    const anthropic = new Anthropic({ apiKey: PROVIDER_KEY, maxRetries: 0 });
    const stream = await anthropic.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 100,
      messages,
      stream: true,
    });
    expect(await readAnthropicStream(stream)).toBe(COMPLETION_TEXT);
    const [event] = await flushedEvents(1);
    expect(event).toMatchObject({
      provider: 'anthropic',
      promptTokens: 125,
      completionTokens: 15,
      stream: true,
    });
  });
});

describe('wrapFetch with the official clients', () => {
  it('tracks an OpenAI client on a custom base URL with a forced provider', async () => {
    const openai = new OpenAI({
      apiKey: PROVIDER_KEY,
      maxRetries: 0,
      baseURL: `${provider.url}/openai/v1`,
      fetch: wrapFetch(fetch, {
        ...sdkOptions,
        endpoint: ingest.url,
        provider: 'openai',
        featureId: 'search',
      }),
    });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(await readOpenAIStream(stream)).toBe(COMPLETION_TEXT);
    const events = await flushedEvents(2);
    expect(events.map((e) => e.stream)).toEqual([false, true]);
    for (const e of events)
      expect(e).toMatchObject({ provider: 'openai', featureId: 'search', promptTokens: 21 });
  });

  it('tracks an Anthropic client through its fetch option (detected from the URL)', async () => {
    const anthropic = new Anthropic({
      apiKey: PROVIDER_KEY,
      maxRetries: 0,
      fetch: wrapFetch(provider.networkFetch, { ...sdkOptions, endpoint: ingest.url, sessionId: 'sess-1' }),
    });
    await anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 10, messages });
    const stream = await anthropic.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages,
      stream: true,
    });
    expect(await readAnthropicStream(stream)).toBe(COMPLETION_TEXT);
    const events = await flushedEvents(2);
    for (const e of events)
      expect(e).toMatchObject({ provider: 'anthropic', sessionId: 'sess-1', completionTokens: 15 });
  });

  it('tracks llama on a custom endpoint (OpenAI-compatible server) with provider: llama', async () => {
    const llama = new OpenAI({
      apiKey: 'unused',
      maxRetries: 0,
      baseURL: `${provider.url}/llama/v1`,
      fetch: wrapFetch(fetch, { ...sdkOptions, endpoint: ingest.url, provider: 'llama' }),
    });
    await llama.chat.completions.create({ model: 'llama-3.1-8b-instruct', messages });
    const [event] = await flushedEvents(1);
    expect(event).toMatchObject({
      provider: 'llama',
      model: 'llama-3.1-8b-instruct',
      costSource: 'FALLBACK_ECONOMICS',
    });
    expect(event?.estimatedCostUsd).toBeGreaterThan(0);
  });

  it('does not count a call twice when a wrapped fetch sits on top of the auto-instrumented one', async () => {
    autoInit();
    const openai = new OpenAI({
      apiKey: PROVIDER_KEY,
      maxRetries: 0,
      fetch: wrapFetch((input, init) => globalThis.fetch(input, init), {
        ...sdkOptions,
        endpoint: ingest.url,
      }),
    });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    const async = new OpenAI({
      apiKey: PROVIDER_KEY,
      maxRetries: 0,
      fetch: wrapFetch(
        async (input, init) => {
          await new Promise((r) => setTimeout(r, 1));
          return globalThis.fetch(input, init);
        },
        { ...sdkOptions, endpoint: ingest.url },
      ),
    });
    await async.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await flushedEvents(2);
  });
});

describe('no prompts, completions or credentials leave the process', () => {
  it('inspects every flushed payload', async () => {
    autoInit();
    const openai = new OpenAI({ apiKey: PROVIDER_KEY, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: PROVIDER_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await readOpenAIStream(
      await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        stream: true,
        user: 'jane.doe@example.com',
      }),
    );
    await anthropic.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages,
      system: 'SYSTEM-SECRET',
    });
    await readAnthropicStream(
      await anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 10, messages, stream: true }),
    );
    await flushedEvents(4);
    const payload = ingest.batches.map((b) => b.raw + JSON.stringify(b.headers)).join('\n');
    const secrets = [
      ...PROMPT_TEXT.split(' ').filter((w) => w.length > 4),
      ...COMPLETION_TEXT.split(' ').filter((w) => w.length > 4),
      'Jane',
      'jane.doe',
      'SYSTEM-SECRET',
      PROVIDER_KEY,
      'sk-provider',
    ];
    for (const secret of secrets) expect(payload).not.toContain(secret);
  });
});
