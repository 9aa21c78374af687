/**
 * `instrumentAwsClient` with the official AWS SDK v3 Bedrock Runtime client as it comes (HTTP/2, SigV4
 * credentials) against the mock Bedrock runtime: outputs unchanged, the request and its signature
 * untouched, every call recorded at the published price, refusals not retried.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startMockBedrock, type MockBedrock } from '../../local/mock-providers/bedrock';
import { flush, instrumentAwsClient, shutdown } from '../src';
import { startFakeIngest, TEST_API_KEY, type FakeIngest } from './helpers/fake-ingest';
import { expectValidClientEvents } from './helpers/schema';

let bedrock: MockBedrock;
let ingest: FakeIngest;
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const M = 1_000_000;

beforeAll(async () => {
  [bedrock, ingest] = await Promise.all([startMockBedrock(), startFakeIngest()]);
});
afterAll(async () => {
  await Promise.all([bedrock.close(), ingest.close()]);
});
afterEach(async () => {
  await shutdown();
  ingest.batches.length = 0;
});

const rawClient = () => new BedrockRuntimeClient({ region: 'us-east-1', endpoint: bedrock.url, credentials });
const options = { apiKey: TEST_API_KEY, endpoint: '', flushIntervalMs: 60_000, sessionId: 'agent-run-7' };

async function flushedEvents(n: number): Promise<Array<Record<string, unknown>>> {
  await flush();
  const events = await ingest.waitForEvents(n);
  expectValidClientEvents(ingest.batches.map((b) => b.body));
  return events;
}

const SYSTEM = 'You are a careful analyst of supplier contracts. '.repeat(120);
const converse = (modelId: string) =>
  new ConverseCommand({
    modelId,
    system: [{ text: SYSTEM }, { cachePoint: { type: 'default' } }],
    messages: [{ role: 'user', content: [{ text: 'Which clause covers termination?' }] }],
    inferenceConfig: { maxTokens: 300 },
  });

it('Converse with prompt-cache tokens on a regional profile: unchanged, SigV4 untouched, published price', async () => {
  const plain = rawClient();
  const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
  const reference = await plain.send(converse(model)); // writes the cache
  const referenceHeaders = bedrock.requests().at(-1)!.headers;

  const client = instrumentAwsClient(rawClient(), { ...options, endpoint: ingest.url });
  const out = await client.send(converse(model)); // reads it
  const sent = bedrock.requests().at(-1)!;
  expect(out.output).toEqual(reference.output);
  expect(out.usage?.cacheReadInputTokens).toBe(reference.usage?.cacheWriteInputTokens);
  // Same headers, same signed-header list: the middleware added and changed nothing.
  expect(Object.keys(sent.headers).sort()).toEqual(Object.keys(referenceHeaders).sort());
  const signed = (h: typeof sent.headers) => /SignedHeaders=([^,]+)/.exec(String(h.authorization))?.[1];
  expect(String(sent.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//);
  expect(signed(sent.headers)).toBe(signed(referenceHeaders));
  expect(sent.httpVersion).toBe('2.0');

  const [e] = await flushedEvents(1);
  expect(e).toMatchObject({ provider: 'bedrock', model, sessionId: 'agent-run-7' });
  // Claude Sonnet 4.5, regional: $3.30 in, $0.33 cache read, $16.50 out per MTok
  const u = out.usage!;
  const expected = (u.inputTokens! * 3.3 + u.cacheReadInputTokens! * 0.33 + u.outputTokens! * 16.5) / M;
  expect(Math.abs((e!.estimatedCostUsd as number) - expected) / expected).toBeLessThan(0.005);
  expect(e).toMatchObject({
    promptTokens: u.inputTokens! + u.cacheReadInputTokens!,
    cacheReadTokens: u.cacheReadInputTokens,
    costSource: 'PROVIDER_REGISTRY',
  });
});

it('ConverseStream on Nova Pro: every event reaches the application, usage from the metadata event', async () => {
  const client = instrumentAwsClient(rawClient(), { ...options, endpoint: ingest.url });
  const out = await client.send(
    new ConverseStreamCommand({
      modelId: 'us.amazon.nova-pro-v1:0',
      messages: [{ role: 'user', content: [{ text: 'One sentence on budgets.' }] }],
    }),
  );
  const events: ConverseStreamOutput[] = [];
  for await (const ev of out.stream!) events.push(ev);
  expect(events.map((ev) => Object.keys(ev).find((k) => k !== '$unknown'))).toEqual([
    'messageStart',
    'contentBlockDelta',
    'contentBlockDelta',
    'contentBlockDelta',
    'contentBlockStop',
    'messageStop',
    'metadata',
  ]);
  const usage = events.at(-1)!.metadata!.usage!;
  const [e] = await flushedEvents(1);
  expect(e).toMatchObject({
    model: 'us.amazon.nova-pro-v1:0',
    stream: true,
    completionTokens: usage.outputTokens,
  });
  const expected = (usage.inputTokens! * 0.8 + usage.outputTokens! * 3.2) / M;
  expect(Math.abs((e!.estimatedCostUsd as number) - expected) / expected).toBeLessThan(0.005);
});

it('a budget refusal rejects with an error the AWS SDK does not retry, before the provider', async () => {
  const client = instrumentAwsClient(rawClient(), {
    ...options,
    endpoint: ingest.url,
    budget: { dailyLimitUsd: 0.000001, action: 'block' },
  });
  await client.send(converse('us.amazon.nova-pro-v1:0'));
  const before = bedrock.requests().length;
  const err = await client.send(converse('us.amazon.nova-pro-v1:0')).then(
    () => undefined,
    (e: unknown) =>
      e as { name: string; $metadata: { httpStatusCode: number }; spendguard: { code: string } },
  );
  expect(err?.name).toBe('ServiceQuotaExceededException');
  expect(err?.$metadata.httpStatusCode).toBe(400);
  expect(err?.spendguard.code).toBe('client_budget');
  expect(bedrock.requests().length).toBe(before);
});

it('any other client passes through untouched; instrumenting twice adds one middleware', () => {
  const dynamo = new DynamoDBClient({ region: 'us-east-1' });
  const names = dynamo.middlewareStack.identify();
  expect(instrumentAwsClient(dynamo)).toBe(dynamo);
  expect(dynamo.middlewareStack.identify()).toEqual(names);
  const notAClient = { config: {} };
  expect(instrumentAwsClient(notAClient)).toBe(notAClient);
  const c = rawClient();
  instrumentAwsClient(instrumentAwsClient(c, { ...options, endpoint: ingest.url }));
  expect(c.middlewareStack.identify().filter((n) => n.startsWith('spendguardBedrock'))).toHaveLength(1);
});

it('a looping Bedrock agent is refused within 5 s of the server trip, before the provider, without retries', async () => {
  ingest.enforcement = true;
  ingest.loopAfter = 4;
  try {
    const agent = instrumentAwsClient(rawClient(), {
      ...options,
      endpoint: ingest.url,
      flushIntervalMs: 1000,
      sessionId: 'bedrock-loop',
    });
    const loop = new ConverseCommand({
      modelId: 'us.amazon.nova-pro-v1:0',
      messages: [{ role: 'user', content: [{ text: 'the deploy fails; retry the same fix' }] }],
    });
    let refused: { at: number; err: { name: string; spendguard: { code: string } } } | undefined;
    const deadline = Date.now() + 15_000;
    while (refused === undefined && Date.now() < deadline) {
      try {
        await agent.send(loop);
        await new Promise((r) => setTimeout(r, 100));
      } catch (err) {
        refused = { at: Date.now(), err: err as never };
      }
    }
    expect(refused?.err.name).toBe('ServiceQuotaExceededException');
    expect(refused?.err.spendguard.code).toBe('session_suspended');
    const tripped = ingest.trippedAt.get('bedrock-loop');
    expect(tripped).toBeDefined();
    expect(refused!.at - tripped!).toBeLessThanOrEqual(5000);
    const before = bedrock.requests().length;
    await expect(agent.send(loop)).rejects.toMatchObject({ name: 'ServiceQuotaExceededException' });
    expect(bedrock.requests().length).toBe(before);
  } finally {
    ingest.enforcement = false;
    ingest.loopAfter = 0;
    ingest.flags = [];
  }
}, 30_000);

it('a stream the application abandons is still recorded (estimated), and its events were never held back', async () => {
  const client = instrumentAwsClient(rawClient(), { ...options, endpoint: ingest.url });
  const out = await client.send(
    new ConverseStreamCommand({
      modelId: 'us.amazon.nova-pro-v1:0',
      messages: [{ role: 'user', content: [{ text: 'Stop reading after the first words.' }] }],
    }),
  );
  const seen: string[] = [];
  for await (const ev of out.stream!) {
    seen.push(Object.keys(ev)[0]!);
    if (ev.contentBlockDelta !== undefined) break;
  }
  expect(seen).toEqual(['messageStart', 'contentBlockDelta']);
  const [e] = await flushedEvents(1);
  expect(e).toMatchObject({ model: 'us.amazon.nova-pro-v1:0', stream: true, estimated: true });
});

it('InvokeModel with a body that carries no usage: the x-amzn-bedrock-*-token-count headers, and the Flex tier', async () => {
  const client = instrumentAwsClient(rawClient(), { ...options, endpoint: ingest.url });
  const body = JSON.stringify({ prompt: 'Classify this ticket: refund request', max_tokens: 20 });
  const out = await client.send(
    new InvokeModelCommand({ modelId: 'us.amazon.nova-pro-v1:0', body, serviceTier: 'flex' }),
  );
  expect(JSON.parse(new TextDecoder().decode(out.body))).toEqual({
    outputs: [{ text: 'Spendguard recorded this call.', stop_reason: 'stop' }],
  });
  const [e] = await flushedEvents(1);
  const prompt = Math.ceil(body.length / 4);
  expect(e).toMatchObject({ promptTokens: prompt, completionTokens: 7, estimated: false });
  // Nova Pro Flex: half of $0.80 / $3.20 per MTok
  const expected = (prompt * 0.4 + 7 * 1.6) / M;
  expect(Math.abs((e!.estimatedCostUsd as number) - expected) / expected).toBeLessThan(0.005);
});
