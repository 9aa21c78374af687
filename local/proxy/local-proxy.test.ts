/**
 * The local proxy end to end: official OpenAI and Anthropic clients → proxy (guard + relay) → fake
 * providers, with in-memory stores (the dynalite/kinesalite path is in stand-ins.test.ts).
 */
import Anthropic from '@anthropic-ai/sdk';
import { createHash } from 'node:crypto';
import http from 'node:http';
import OpenAI from 'openai';
import { proxyEventSchema } from '../../core/schemas';
import { toProxyEvent } from '../../lambdas/relay/proxy-event';
import { mockPromptTokens } from '../mock-providers';
import { anthropicViaSpendguard, openaiViaSpendguard, openrouterViaSpendguard } from './examples/clients';
import { createLocalProxy } from './local-proxy';
import { startProxyHarness, TEST_ORG, TEST_PEPPER, type ProxyHarness } from './test-support';

let h: ProxyHarness;
beforeAll(async () => {
  h = await startProxyHarness();
});
afterAll(() => h.close());
beforeEach(async () => {
  await h.proxy.idle();
  h.mock.reset();
  h.sink.clear();
  h.metrics.reset();
  h.flags.items.clear();
  h.flags.failWith = undefined;
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  firstByteMs: number;
  totalMs: number;
}

/** One HTTP request with the raw response bytes (no decompression) and timings. */
function raw(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      url,
      { method: init.method ?? 'POST', headers: init.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        let first = -1;
        res.on('data', (c: Buffer) => {
          if (first < 0) first = performance.now() - t0;
          chunks.push(c);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            firstByteMs: first,
            totalMs: performance.now() - t0,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const userMsg = (content: string) => [{ role: 'user' as const, content }];

/** The documented client set-up (examples/clients.ts), optionally with extra options. */
function openai(key = h.apiKey, opts: ConstructorParameters<typeof OpenAI>[0] = {}) {
  const documented = openaiViaSpendguard(h.proxy.url, key, 'sk-test-provider-credential');
  return Object.keys(opts).length === 0 ? documented : documented.withOptions(opts);
}
function anthropic(key = h.apiKey) {
  return anthropicViaSpendguard(h.proxy.url, key, 'sk-ant-test');
}

async function events() {
  await h.proxy.idle();
  return h.sink.events();
}

describe('official SDKs through the local proxy', () => {
  it('OpenAI chat, non-streaming: same answer as the provider, one event with its tokens', async () => {
    const messages = userMsg('What is the capital of France?'); // 30 chars → 8 tokens
    const viaProxy = await openai().chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      max_tokens: 7,
    });
    const direct = await new OpenAI({
      apiKey: 'x',
      baseURL: `${h.mock.baseUrls.openai}/v1`,
    }).chat.completions.create({ model: 'gpt-4o-mini', messages, max_tokens: 7 });
    expect(viaProxy).toEqual(direct);
    const all = await events();
    expect(all).toHaveLength(1);
    const event = all[0];
    expect(event).toMatchObject({
      source: 'proxy',
      provider: 'openai',
      model: 'gpt-4o-mini',
      inputTokens: 8,
      outputTokens: 7,
      stream: false,
      estimated: false,
      verified: true,
      statusCode: 200,
    });
    expect(event?.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(h.mock.requests()[0]?.headers.authorization).toBe('Bearer sk-test-provider-credential');
    expect(h.mock.requests()[0]?.headers['service-api-key']).toBeUndefined();
  });

  it('OpenAI chat, streaming with include_usage, Responses stream and embeddings: one event each', async () => {
    const client = openai();
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: userMsg('stream me'),
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 6,
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) usage ??= chunk.usage ?? undefined;
    const responses = await client.responses.create({
      model: 'gpt-4o-mini',
      input: 'twelve chars',
      stream: true,
      max_output_tokens: 4,
    });
    let completed = 0;
    for await (const ev of responses) if (ev.type === 'response.completed') completed++;
    const emb = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['abcd', 'abcdefgh'],
    });
    expect(usage?.completion_tokens).toBe(6);
    expect(completed).toBe(1);
    expect(emb.data).toHaveLength(2);
    const evs = await events();
    expect(evs.map((e) => [e.endpoint, e.stream, e.inputTokens, e.outputTokens, e.estimated])).toEqual([
      ['/v1/chat/completions', true, 3, 6, false],
      ['/v1/responses', true, 3, 4, false],
      ['/v1/embeddings', false, 3, 0, false],
    ]);
  });

  it('OpenAI streaming without include_usage: frames pass untouched, the event is estimated', async () => {
    const stream = await openai().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: userMsg('no usage please'),
      stream: true,
      max_tokens: 5,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('tok '.repeat(5));
    const [event] = await events();
    expect(event).toMatchObject({ stream: true, estimated: true, outputTokens: 5 });
  });

  it('Anthropic messages, non-streaming and streaming: one event each with cumulative usage', async () => {
    const client = anthropic();
    const msg = await client.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 3,
      messages: userMsg('0123456789abcdef'),
    });
    const final = await client.messages
      .stream({ model: 'claude-haiku-4-5', max_tokens: 9, messages: userMsg('0123456789abcdef') })
      .finalMessage();
    expect(msg.usage).toMatchObject({ input_tokens: 4, output_tokens: 3 });
    expect(final.usage).toMatchObject({ input_tokens: 4, output_tokens: 9 });
    const evs = await events();
    expect(evs.map((e) => [e.provider, e.stream, e.inputTokens, e.outputTokens, e.estimated])).toEqual([
      ['anthropic', false, 4, 3, false],
      ['anthropic', true, 4, 9, false],
    ]);
    // the provider credential (this SDK version sends it as a bearer token) is forwarded unchanged
    const seen = h.mock.requests()[0]?.headers;
    expect(seen?.['x-api-key'] ?? seen?.authorization).toMatch(/sk-ant-test$/);
    expect(h.mock.requests()[0]?.headers['anthropic-version']).toBeDefined();
  });

  it.each([
    ['OpenAI JSON', '/openai/v1/chat/completions', { model: 'gpt-4o-mini', messages: userMsg('bytes') }, {}],
    [
      'OpenAI SSE',
      '/openai/v1/chat/completions',
      {
        model: 'gpt-4o-mini',
        messages: userMsg('bytes'),
        stream: true,
        stream_options: { include_usage: true },
      },
      {},
    ],
    [
      'Anthropic SSE',
      '/anthropic/v1/messages',
      { model: 'claude-haiku-4-5', max_tokens: 5, messages: userMsg('bytes'), stream: true },
      {},
    ],
    [
      'OpenRouter SSE',
      '/openrouter/api/v1/chat/completions',
      { model: 'openai/gpt-4o', messages: userMsg('bytes'), stream: true },
      {},
    ],
    [
      'gzip JSON',
      '/openai/v1/chat/completions',
      { model: 'gpt-4o-mini', messages: userMsg('zip') },
      { 'accept-encoding': 'gzip', 'x-mock-encoding': 'gzip' },
    ],
    [
      'brotli SSE',
      '/anthropic/v1/messages',
      { model: 'claude-haiku-4-5', max_tokens: 4, messages: userMsg('zip'), stream: true },
      { 'accept-encoding': 'br', 'x-mock-encoding': 'br' },
    ],
  ] as const)(
    '%s: the client receives exactly the bytes the provider sent',
    async (_n, path, body, extra) => {
      const payload = JSON.stringify(body);
      const headers = { 'content-type': 'application/json', ...extra };
      const direct = await raw(h.mock.url + path, { headers, body: payload });
      const proxied = await raw(h.proxy.url + path, {
        headers: { ...headers, 'service-api-key': h.apiKey },
        body: payload,
      });
      expect(proxied.status).toBe(200);
      expect(proxied.body.equals(direct.body)).toBe(true);
      expect(proxied.headers['content-type']).toBe(direct.headers['content-type']);
      expect(proxied.headers['content-encoding']).toBe(direct.headers['content-encoding']);
      const [event] = await events();
      expect(event?.inputTokens).toBe(mockPromptTokens(body));
      expect(event?.estimated).toBe(false);
    },
  );

  it('OpenRouter through the OpenAI client: one event with OpenRouter’s own cost', async () => {
    const r = await openrouterViaSpendguard(h.proxy.url, h.apiKey, 'sk-or-test').chat.completions.create({
      model: 'openai/gpt-4o',
      messages: userMsg('abcd'),
      max_tokens: 2,
    });
    expect(r.usage?.total_tokens).toBe(3);
    const [event] = await events();
    expect(event).toMatchObject({ provider: 'openrouter', inputTokens: 1, outputTokens: 2 });
    expect(event?.providerCostUsd).toBeCloseTo(0.000005, 12);
  });
});

describe('guard in front of the relay', () => {
  it('a SUSPENDED key gets 429 Budget Exceeded, the provider sees nothing, and neither SDK retries', async () => {
    // Prepare
    const other = await h.newKey();
    await h.flag(other.prefix, 'SUSPENDED', 7200, 'hard_cap_daily');
    const before = h.proxy.requestCount();
    // Act
    const oa = await openai(other.apiKey)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: userMsg('hi') })
      .catch((e: unknown) => e);
    const an = await anthropic(other.apiKey)
      .messages.create({ model: 'claude-haiku-4-5', max_tokens: 5, messages: userMsg('hi') })
      .catch((e: unknown) => e);
    // Assess
    expect(oa).toBeInstanceOf(OpenAI.RateLimitError);
    expect(an).toBeInstanceOf(Anthropic.RateLimitError);
    const err = oa as InstanceType<typeof OpenAI.RateLimitError>;
    expect(err.status).toBe(429);
    expect(err.error).toMatchObject({ type: 'budget_exceeded', code: 'hard_cap_daily' });
    expect(err.headers.get('x-should-retry')).toBe('false');
    expect(Number(err.headers.get('retry-after'))).toBeGreaterThan(7100);
    expect(h.proxy.requestCount() - before).toBe(2); // one per SDK call: no retries
    expect(h.mock.requests()).toHaveLength(0);
    expect(await events()).toHaveLength(0);
    // the organization's other key is not affected
    await openai().chat.completions.create({ model: 'gpt-4o-mini', messages: userMsg('hi') });
    expect(h.mock.requests()).toHaveLength(1);
  });

  it('a THROTTLED key gets one request per 6 s; the excess 429 rate_limited with Retry-After', async () => {
    const other = await h.newKey();
    await h.flag(other.prefix, 'THROTTLED', 1800, 'rps_burst');
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: userMsg('t') });
    const first = await raw(h.proxy.url + '/openai/v1/chat/completions', {
      headers: { 'service-api-key': other.apiKey },
      body,
    });
    const second = await raw(h.proxy.url + '/openai/v1/chat/completions', {
      headers: { 'service-api-key': other.apiKey },
      body,
    });
    expect(first.status).toBe(200);
    expect(second.status).toBe(429);
    expect(second.headers['retry-after']).toBe('6');
    expect(JSON.parse(second.body.toString())).toMatchObject({
      error: { type: 'rate_limited', code: 'rps_burst' },
    });
    expect(h.mock.requests()).toHaveLength(1);
  });

  it('an expired flag that is still stored lets requests through', async () => {
    const other = await h.newKey();
    const f = await h.flag(other.prefix, 'SUSPENDED', 10);
    h.flags.items.set(f.flagKey, { ...f, expiresAt: Math.floor(Date.now() / 1000) - 1 });
    const r = await raw(h.proxy.url + '/openai/v1/chat/completions', {
      headers: { 'service-api-key': other.apiKey },
      body: '{"messages":[]}',
    });
    expect(r.status).toBe(200);
  });

  it('answers 401 without a Service-API-Key, and for an unknown key', async () => {
    const none = await raw(h.proxy.url + '/openai/v1/chat/completions', { body: '{}' });
    const unknown = await raw(h.proxy.url + '/openai/v1/chat/completions', {
      headers: { 'service-api-key': 'abn_aaaaaaaaaaaa_' + 'A'.repeat(43) },
      body: '{}',
    });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body.toString())).toMatchObject({ error: { code: 'invalid_service_api_key' } });
    expect(unknown.status).toBe(401);
    expect(h.mock.requests()).toHaveLength(0);
  });

  it('fails open: with the flag store down, calls still pass and the fail-open is counted', async () => {
    const other = await h.newKey();
    await h.flag(other.prefix, 'SUSPENDED', 7200);
    h.flags.failWith = new Error('dynamodb unreachable');
    const r = await openai(other.apiKey).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: userMsg('hi'),
    });
    expect(r.object).toBe('chat.completion');
    expect(h.metrics.get('GuardFailOpen', { Reason: 'store_error' })).toBeGreaterThanOrEqual(1);
    expect(await events()).toHaveLength(1);
  });

  it('refuses a body over the size limit with 413 and never contacts the provider', async () => {
    const small = await createLocalProxy({
      port: 0,
      flags: h.flags,
      apiKeys: h.keys,
      sink: h.sink,
      pepper: TEST_PEPPER,
      upstreams: h.mock.baseUrls,
      maxRequestBytes: 1024,
    });
    const r = await raw(small.url + '/openai/v1/chat/completions', {
      headers: { 'service-api-key': h.apiKey },
      body: 'x'.repeat(4096),
    });
    await small.close();
    expect(r.status).toBe(413);
    expect(h.mock.requests()).toHaveLength(0);
  });

  it('serves /healthz', async () => {
    const r = await raw(h.proxy.url + '/healthz', { method: 'GET' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.toString())).toEqual({ status: 'ok' });
  });
});

describe('relay behaviour through the proxy', () => {
  it('passes a 5 MB request body intact', async () => {
    const big = JSON.stringify({ model: 'gpt-4o-mini', messages: userMsg('x'.repeat(5 * 1024 * 1024)) });
    const r = await raw(h.proxy.url + '/openai/v1/chat/completions', {
      headers: { 'service-api-key': h.apiKey, 'content-type': 'application/json' },
      body: big,
    });
    expect(r.status).toBe(200);
    const seen = h.mock.requests()[0];
    expect(seen?.bodyLength).toBe(Buffer.byteLength(big));
    expect(
      createHash('sha256')
        .update(seen?.body ?? Buffer.alloc(0))
        .digest('hex'),
    ).toBe(createHash('sha256').update(big).digest('hex'));
    expect(seen?.headers['content-length']).toBe(String(Buffer.byteLength(big)));
    const [event] = await events();
    expect(event?.inputTokens).toBe(Math.ceil((5 * 1024 * 1024) / 4));
  });

  it('flushes SSE frames as they arrive: time to first byte ≪ total time', async () => {
    const r = await raw(h.proxy.url + '/openai/v1/chat/completions', {
      headers: { 'service-api-key': h.apiKey, 'x-mock-chunks': '40', 'x-mock-chunk-delay-ms': '15' },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages: userMsg('slow'),
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    expect(r.totalMs).toBeGreaterThan(500);
    expect(r.firstByteMs).toBeLessThan(r.totalMs / 5);
    const [event] = await events();
    expect(event).toMatchObject({ outputTokens: 40, estimated: false });
  });

  it('keeps 64 concurrent mixed calls apart', async () => {
    const calls = Array.from({ length: 64 }, (_, i) => {
      const kind = i % 4;
      const content = `request number ${i} ${'z'.repeat(i)}`;
      if (kind === 0)
        return {
          path: '/openai/v1/chat/completions',
          body: { model: 'gpt-4o-mini', messages: userMsg(content), max_tokens: (i % 7) + 1 },
        };
      if (kind === 1)
        return {
          path: '/openai/v1/chat/completions',
          body: {
            model: 'gpt-4o-mini',
            messages: userMsg(content),
            max_tokens: (i % 7) + 1,
            stream: true,
            stream_options: { include_usage: true },
          },
        };
      if (kind === 2)
        return {
          path: '/anthropic/v1/messages',
          body: { model: 'claude-haiku-4-5', messages: userMsg(content), max_tokens: (i % 7) + 1 },
        };
      return {
        path: '/anthropic/v1/messages',
        body: {
          model: 'claude-haiku-4-5',
          messages: userMsg(content),
          max_tokens: (i % 7) + 1,
          stream: true,
        },
      };
    });
    const expected = await Promise.all(
      calls.map((c) =>
        raw(h.mock.url + c.path, { body: JSON.stringify(c.body), headers: { 'x-mock-chunk-delay-ms': '1' } }),
      ),
    );
    h.mock.reset();
    const got = await Promise.all(
      calls.map((c) =>
        raw(h.proxy.url + c.path, {
          body: JSON.stringify(c.body),
          headers: { 'service-api-key': h.apiKey, 'x-mock-chunk-delay-ms': '1' },
        }),
      ),
    );
    got.forEach((g, i) => expect(g.body.equals(expected[i]?.body ?? Buffer.alloc(0))).toBe(true));
    const evs = await events();
    expect(evs).toHaveLength(64);
    const byTokens = evs.map((e) => `${e.provider}:${e.inputTokens}:${e.outputTokens}`).sort();
    const want = calls
      .map(
        (c) =>
          `${c.path.startsWith('/openai') ? 'openai' : 'anthropic'}:${mockPromptTokens(c.body)}:${c.body.max_tokens}`,
      )
      .sort();
    expect(byTokens).toEqual(want);
  });

  it('a client that disconnects mid-stream aborts the upstream call; one estimated event is recorded', async () => {
    const controller = new AbortController();
    const res = await fetch(h.proxy.url + '/anthropic/v1/messages', {
      method: 'POST',
      headers: { 'service-api-key': h.apiKey, 'x-mock-chunks': '200', 'x-mock-chunk-delay-ms': '10' },
      body: JSON.stringify({
        model: 'claude-haiku-4-5',
        max_tokens: 1000,
        stream: true,
        messages: userMsg('0123456789abcdef'),
      }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let received = 0;
    while (received < 1500) received += (await reader.read()).value?.byteLength ?? 0;
    controller.abort();
    await reader.cancel().catch(() => undefined);
    const evs = await events();
    await new Promise((r) => setTimeout(r, 50));
    expect(h.mock.requests()[0]?.aborted).toBe(true);
    expect(h.mock.requests()[0]?.completed).toBe(false);
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ provider: 'anthropic', inputTokens: 4, estimated: true, stream: true });
    expect(evs[0]?.outputTokens).toBeGreaterThan(0);
    expect(evs[0]?.outputTokens).toBeLessThan(200);
  });

  it.each([
    [400, 'openai'],
    [500, 'openai'],
    [429, 'anthropic'],
    [529, 'anthropic'],
  ] as const)('passes a provider %i through and records it', async (status, provider) => {
    const path = provider === 'openai' ? '/openai/v1/chat/completions' : '/anthropic/v1/messages';
    const body = JSON.stringify({ model: 'm-1', messages: userMsg('e') });
    const direct = await raw(h.mock.url + path, { headers: { 'x-mock-status': String(status) }, body });
    const proxied = await raw(h.proxy.url + path, {
      headers: { 'x-mock-status': String(status), 'service-api-key': h.apiKey },
      body,
    });
    expect(proxied.status).toBe(status);
    expect(proxied.body.equals(direct.body)).toBe(true);
    const [event] = await events();
    expect(event).toMatchObject({
      provider,
      statusCode: status,
      inputTokens: 0,
      outputTokens: 0,
      model: 'm-1',
    });
  });

  it('the SDK sees a provider 500 as an APIError (no retries with maxRetries 0); the event is valid spec 2.2', async () => {
    const err = await openai(h.apiKey, {
      maxRetries: 0,
      defaultHeaders: { 'Service-API-Key': h.apiKey, 'x-mock-status': '500' },
    })
      .chat.completions.create({ model: 'gpt-4o-mini', messages: userMsg('x') })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    await h.proxy.idle();
    const envelope = h.sink.envelopes[0]!;
    expect(envelope.orgId).toBe(TEST_ORG);
    expect(proxyEventSchema.safeParse(toProxyEvent(envelope)).success).toBe(true);
  });

  it('records the session header and does not forward it', async () => {
    await raw(h.proxy.url + '/openai/v1/chat/completions', {
      headers: { 'service-api-key': h.apiKey, 'x-spendguard-session': 'agent-run-7' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: userMsg('s') }),
    });
    const [event] = await events();
    expect(event?.sessionId).toBe('agent-run-7');
    expect(h.mock.requests()[0]?.headers['x-spendguard-session']).toBeUndefined();
  });
});
