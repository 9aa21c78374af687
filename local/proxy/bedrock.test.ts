/**
 * Amazon Bedrock through the local proxy with the AWS SDK v3 client as it comes (HTTP/2, Bedrock API
 * key as a bearer token): answered unchanged, recorded at the published price, refused in the AWS shape.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import OpenAI from 'openai';
import { costOfEvent } from '../../core/ledger/event-cost';
import { getDefaultPriceRegistry } from '../../core/pricing';
import { startMockBedrock, type MockBedrock } from '../mock-providers';
import { startProxyHarness, type ProxyHarness } from './test-support';

const BEDROCK_KEY = 'ABSKQmVkcm9ja0FQSUtleS1leGFtcGxl'; // a Bedrock API key is an opaque bearer token
let h: ProxyHarness;
let bedrock: MockBedrock;

beforeAll(async () => {
  bedrock = await startMockBedrock();
  h = await startProxyHarness({ proxy: { upstreams: { bedrock: bedrock.url } } });
});
afterAll(async () => {
  await h.close();
  await bedrock.close();
});

function client(apiKey = h.apiKey): BedrockRuntimeClient {
  const c = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: `${h.proxy.url}/bedrock/us-east-1`,
    token: { token: BEDROCK_KEY },
    authSchemePreference: ['httpBearerAuth'],
  });
  // The Spendguard key travels in its own header; the Bedrock API key stays in Authorization.
  c.middlewareStack.add(
    (next) => (args) => {
      (args.request as { headers: Record<string, string> }).headers['service-api-key'] = apiKey;
      return next(args);
    },
    { step: 'build', name: 'spendguardKey' },
  );
  return c;
}

const SYSTEM = 'You are a contract analyst. '.repeat(200);
const M = 1_000_000;

it('Converse with prompt-cache tokens on a regional profile: answered unchanged, priced as published', async () => {
  const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
  const input = {
    modelId: model,
    system: [{ text: SYSTEM }, { cachePoint: { type: 'default' as const } }],
    messages: [{ role: 'user' as const, content: [{ text: 'Summarize clause 4.' }] }],
    inferenceConfig: { maxTokens: 512 },
  };
  const first = await client().send(new ConverseCommand(input));
  const second = await client().send(new ConverseCommand(input));
  expect(first.usage?.cacheWriteInputTokens).toBeGreaterThan(1000);
  expect(second.usage?.cacheReadInputTokens).toBe(first.usage?.cacheWriteInputTokens);
  expect(second.output?.message?.content?.[0]?.text).toBe('Spendguard recorded this call.');

  const sent = bedrock.requests().slice(-2);
  expect(sent.map((r) => r.headers.authorization)).toEqual([
    `Bearer ${BEDROCK_KEY}`,
    `Bearer ${BEDROCK_KEY}`,
  ]);
  expect(sent[0]?.headers['service-api-key']).toBeUndefined();
  expect(sent[0]?.url).toBe(`/model/${encodeURIComponent(model)}/converse`);

  await h.proxy.idle();
  const events = h.sink.events().filter((e) => e.provider === 'bedrock' && e.model === model);
  expect(events).toHaveLength(2);
  const [w, r] = events;
  // Published (aws.amazon.com/bedrock/pricing), Claude Sonnet 4.5 regional: $3.30 in, $4.125 5-minute
  // write, $0.33 cache read, $16.50 out per MTok.
  const u1 = first.usage!;
  const u2 = second.usage!;
  const expected1 =
    ((u1.inputTokens! * 3.3 + u1.cacheWriteInputTokens! * 4.125 + u1.outputTokens! * 16.5) / M) * 1e9;
  const expected2 =
    ((u2.inputTokens! * 3.3 + u2.cacheReadInputTokens! * 0.33 + u2.outputTokens! * 16.5) / M) * 1e9;
  const cost1 = costOfEvent(w!, getDefaultPriceRegistry()).costNanos;
  const cost2 = costOfEvent(r!, getDefaultPriceRegistry()).costNanos;
  expect(Math.abs(cost1 - expected1) / expected1).toBeLessThan(0.005);
  expect(Math.abs(cost2 - expected2) / expected2).toBeLessThan(0.005);
});

it('ConverseStream on Nova Pro over HTTP/2: every event delivered, usage from the metadata event', async () => {
  const model = 'us.amazon.nova-pro-v1:0';
  const out = await client().send(
    new ConverseStreamCommand({
      modelId: model,
      messages: [{ role: 'user', content: [{ text: 'Write one sentence about budgets.' }] }],
      inferenceConfig: { maxTokens: 200 },
    }),
  );
  const events: ConverseStreamOutput[] = [];
  for await (const e of out.stream!) events.push(e);
  const text = events.map((e) => e.contentBlockDelta?.delta?.text ?? '').join('');
  expect(text).toBe('Spendguard recorded this call.');
  const meta = events.find((e) => e.metadata !== undefined)?.metadata;
  expect(meta?.usage?.outputTokens).toBe(7);
  expect(bedrock.requests().at(-1)?.httpVersion).toBe('1.1'); // the relay speaks HTTP/1.1 upstream

  await h.proxy.idle();
  const e = h.sink
    .events()
    .filter((x) => x.model === model)
    .at(-1)!;
  expect(e.stream).toBe(true);
  // Nova Pro: $0.80 in, $3.20 out per MTok
  const expected = ((meta!.usage!.inputTokens! * 0.8 + meta!.usage!.outputTokens! * 3.2) / M) * 1e9;
  const cost = costOfEvent(e, getDefaultPriceRegistry()).costNanos;
  expect(Math.abs(cost - expected) / expected).toBeLessThan(0.005);
});

it('a killed key is refused in the AWS shape, not retried, before the provider', async () => {
  const other = await h.newKey();
  await h.flag(other.prefix, 'SUSPENDED', 600);
  const before = bedrock.requests().length;
  const proxied = h.proxy.requestCount();
  const err = await client(other.apiKey)
    .send(
      new ConverseCommand({
        modelId: 'us.amazon.nova-pro-v1:0',
        messages: [{ role: 'user', content: [{ text: 'loop' }] }],
      }),
    )
    .then(
      () => undefined,
      (e: unknown) => e as { name: string; $metadata: { httpStatusCode?: number; attempts?: number } },
    );
  expect(err?.name).toBe('ServiceQuotaExceededException');
  expect(err?.$metadata.httpStatusCode).toBe(400);
  expect(err?.$metadata.attempts).toBe(1);
  expect(h.proxy.requestCount() - proxied).toBe(1);
  expect(bedrock.requests().length).toBe(before);
});

it('a client signing with IAM credentials (SigV4) is told, before Bedrock, to use a Bedrock API key or the SDK path', async () => {
  const signed = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: `${h.proxy.url}/bedrock/us-east-1`,
    credentials: {
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    },
  });
  signed.middlewareStack.add(
    (next) => (args) => {
      (args.request as { headers: Record<string, string> }).headers['service-api-key'] = h.apiKey;
      return next(args);
    },
    { step: 'build', name: 'spendguardKey' },
  );
  const before = bedrock.requests().length;
  const err = await signed
    .send(
      new ConverseCommand({
        modelId: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
        messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      }),
    )
    .then(
      () => undefined,
      (e: unknown) =>
        e as { name: string; message: string; $metadata: { httpStatusCode: number; attempts: number } },
    );
  expect(err).toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400, attempts: 1 } });
  expect(err!.message).toMatch(/SigV4.*instrumentAwsClient/);
  expect(bedrock.requests().length).toBe(before);
  signed.destroy();
});

it('a presigned SigV4 request (signature in the query) is refused the same way', async () => {
  const res = await fetch(
    `${h.proxy.url}/bedrock/us-east-1/model/x/converse?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abc`,
    {
      method: 'POST',
      headers: { 'service-api-key': h.apiKey, 'content-type': 'application/json' },
      body: '{"messages":[]}',
    },
  );
  expect(res.status).toBe(400);
  expect(res.headers.get('x-spendguard-error-code')).toBe('sigv4_not_proxyable');
});

it('a region that is not an AWS region is refused (no SSRF), in the AWS shape', async () => {
  const res = await fetch(`${h.proxy.url}/bedrock/evil.com%2F/model/x/converse`, {
    method: 'POST',
    headers: { 'service-api-key': h.apiKey, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(400);
  expect(res.headers.get('x-amzn-errortype')).toBe('ValidationException');
});

it('InvokeModel whose body carries no usage: the token-count and service-tier headers price it (Flex)', async () => {
  const model = 'us.amazon.nova-pro-v1:0';
  const body = JSON.stringify({ prompt: 'Classify: refund request', max_tokens: 20 });
  const out = await client().send(new InvokeModelCommand({ modelId: model, body, serviceTier: 'flex' }));
  expect(out.serviceTier).toBe('flex');
  expect(bedrock.requests().at(-1)?.headers['x-amzn-bedrock-service-tier']).toBe('flex'); // forwarded
  await h.proxy.idle();
  const e = h.sink
    .events()
    .filter((x) => x.model === model && (x.endpoint ?? '').endsWith('/invoke'))
    .at(-1)!;
  const prompt = Math.ceil(body.length / 4);
  expect(e).toMatchObject({ inputTokens: prompt, outputTokens: 7, serviceTier: 'flex' });
  const expected = ((prompt * 0.4 + 7 * 1.6) / M) * 1e9; // Nova Pro Flex: $0.40 / $1.60 per MTok
  const cost = costOfEvent(e, getDefaultPriceRegistry()).costNanos;
  expect(Math.abs(cost - expected) / expected).toBeLessThan(0.005);
});

it('a 1-hour cache write on a global profile is priced at the 1-hour rate, not the 5-minute one', async () => {
  const model = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';
  const out = await client().send(
    new ConverseCommand({
      modelId: model,
      system: [
        { text: 'You are an auditor of cloud invoices. '.repeat(150) },
        { cachePoint: { type: 'default', ttl: '1h' } },
      ],
      messages: [{ role: 'user', content: [{ text: 'Which line items grew?' }] }],
    }),
  );
  const u = out.usage!;
  expect(u.cacheDetails).toEqual([{ ttl: '1h', inputTokens: u.cacheWriteInputTokens }]);
  await h.proxy.idle();
  const e = h.sink
    .events()
    .filter((x) => x.model === model)
    .at(-1)!;
  expect(e).toMatchObject({ cacheWrite1hTokens: u.cacheWriteInputTokens, cacheWrite5mTokens: 0 });
  // Claude Sonnet 4.5 global: $3.00 in, $6.00 1-hour write, $15.00 out per MTok
  const expected = ((u.inputTokens! * 3 + u.cacheWriteInputTokens! * 6 + u.outputTokens! * 15) / M) * 1e9;
  const cost = costOfEvent(e, getDefaultPriceRegistry()).costNanos;
  expect(Math.abs(cost - expected) / expected).toBeLessThan(0.005);
});

it('the OpenAI-compatible mantle endpoint with the official openai client: /bedrock-mantle/<region>/v1', async () => {
  const openai = new OpenAI({
    apiKey: BEDROCK_KEY, // the Bedrock API key is the bearer token there too
    baseURL: `${h.proxy.url}/bedrock-mantle/us-west-2/v1`,
    defaultHeaders: { 'Service-API-Key': h.apiKey },
    maxRetries: 0,
  });
  const res = await openai.chat.completions.create({
    model: 'openai.gpt-oss-120b-1:0',
    messages: [{ role: 'user', content: 'Name one budget risk.' }],
  });
  expect(res.choices[0]?.message.content).toBe('Spendguard recorded this call.');
  expect(bedrock.requests().at(-1)).toMatchObject({ url: '/v1/chat/completions' });
  expect(bedrock.requests().at(-1)?.headers.authorization).toBe(`Bearer ${BEDROCK_KEY}`);
  await h.proxy.idle();
  const e = h.sink
    .events()
    .filter((x) => x.model === 'openai.gpt-oss-120b-1:0')
    .at(-1)!;
  expect(e).toMatchObject({ provider: 'bedrock', inputTokens: res.usage!.prompt_tokens, outputTokens: 7 });
  // gpt-oss-120b on Bedrock: $0.15 in, $0.60 out per MTok
  const expected = ((res.usage!.prompt_tokens * 0.15 + 7 * 0.6) / M) * 1e9;
  const cost = costOfEvent(e, getDefaultPriceRegistry()).costNanos;
  expect(Math.abs(cost - expected) / expected).toBeLessThan(0.005);
});

it('every byte of an event stream comes back unchanged (proxy vs the provider directly)', async () => {
  const path = `/model/${encodeURIComponent('us.amazon.nova-pro-v1:0')}/converse-stream`;
  const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'bytes' }] }] });
  const init = (extra: Record<string, string>) => ({
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BEDROCK_KEY}`, ...extra },
  });
  const direct = await fetch(`${bedrock.url}${path}`, init({}));
  const proxied = await fetch(
    `${h.proxy.url}/bedrock/us-east-1${path}`,
    init({ 'service-api-key': h.apiKey }),
  );
  expect(proxied.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
  const [a, b] = await Promise.all([direct.arrayBuffer(), proxied.arrayBuffer()]);
  expect(b.byteLength).toBeGreaterThan(200);
  expect(Buffer.from(b).equals(Buffer.from(a))).toBe(true);
});

it('InvokeModel on Claude: Anthropic’s Messages body, its usage priced (the Claude family on Bedrock)', async () => {
  const model = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';
  const request = {
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Which vendor raised prices?' }],
  };
  const out = await client().send(new InvokeModelCommand({ modelId: model, body: JSON.stringify(request) }));
  const answer = JSON.parse(new TextDecoder().decode(out.body)) as {
    type: string;
    content: { text: string }[];
    usage: { input_tokens: number; output_tokens: number };
  };
  expect(answer).toMatchObject({ type: 'message', content: [{ text: 'Spendguard recorded this call.' }] });
  await h.proxy.idle();
  const e = h.sink
    .events()
    .filter((x) => x.model === model && (x.endpoint ?? '').endsWith('/invoke'))
    .at(-1)!;
  expect(e).toMatchObject({
    inputTokens: answer.usage.input_tokens,
    outputTokens: answer.usage.output_tokens,
  });
});

it.each([
  // Published (aws.amazon.com/bedrock/pricing): Claude Haiku 4.5 regional $1.10 / $5.50, Nova Pro $0.80 /
  // $3.20 per MTok.
  ['Claude (Anthropic stream events)', 'us.anthropic.claude-haiku-4-5-20251001-v1:0', 1.1, 5.5],
  ['Nova (a body without usage: the invocation metrics)', 'us.amazon.nova-pro-v1:0', 0.8, 3.2],
])(
  'InvokeModelWithResponseStream on %s: every chunk delivered, usage read, priced as published',
  async (_name, model, inUsdPerM, outUsdPerM) => {
    const body = JSON.stringify({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Stream the three largest line items.' }],
    });
    const out = await client().send(new InvokeModelWithResponseStreamCommand({ modelId: model, body }));
    const chunks: unknown[] = [];
    for await (const part of out.body!) {
      if (part.chunk?.bytes) chunks.push(JSON.parse(new TextDecoder().decode(part.chunk.bytes)));
    }
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const metrics = (chunks.at(-1) as Record<string, { inputTokenCount: number; outputTokenCount: number }>)[
      'amazon-bedrock-invocationMetrics'
    ]!;
    const prompt = Math.ceil(body.length / 4);
    expect(metrics).toMatchObject({ inputTokenCount: prompt, outputTokenCount: 7 });
    await h.proxy.idle();
    const e = h.sink
      .events()
      .filter((x) => x.model === model && (x.endpoint ?? '').endsWith('/invoke-with-response-stream'))
      .at(-1)!;
    expect(e).toMatchObject({ inputTokens: prompt, outputTokens: 7 });
    expect(e.estimated ?? false).toBe(false);
    const expected = ((prompt * inUsdPerM + 7 * outUsdPerM) / M) * 1e9;
    const cost = costOfEvent(e, getDefaultPriceRegistry()).costNanos;
    expect(Math.abs(cost - expected) / expected).toBeLessThan(0.005);
  },
);

it('a model id with a broken %-escape is Bedrock’s 400, and the provider keeps serving', async () => {
  const path = '/model/%E0%A4%A/converse';
  const init = {
    method: 'POST',
    body: '{"messages":[]}',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BEDROCK_KEY}` },
  };
  const direct = await fetch(`${bedrock.url}${path}`, init);
  expect(direct.status).toBe(400);
  expect(direct.headers.get('x-amzn-errortype')).toBe('ValidationException');
  const proxied = await fetch(`${h.proxy.url}/bedrock/us-east-1${path}`, {
    ...init,
    headers: { ...init.headers, 'service-api-key': h.apiKey },
  });
  expect(proxied.status).toBe(400);
  const after = await client().send(
    new ConverseCommand({
      modelId: 'us.amazon.nova-pro-v1:0',
      messages: [{ role: 'user', content: [{ text: 'still there?' }] }],
    }),
  );
  expect(after.output?.message?.content?.[0]?.text).toBe('Spendguard recorded this call.');
});
