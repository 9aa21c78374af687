/**
 * A looping Amazon Bedrock agent on the whole local stack: the AWS SDK's Bedrock Runtime client as it
 * comes (HTTP/2, Bedrock API key) calls through the local proxy; the pipeline trips layer 2 (identical
 * Converse requests) and the guard refuses the session within 6 calls, before the provider, in a shape
 * the AWS SDK does not retry.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  type TokenUsage,
} from '@aws-sdk/client-bedrock-runtime';
import { startMockBedrock, type MockBedrock } from './mock-providers';
import type { LocalStack } from './stack';
import { startTestStack } from './test-stack';

let stack: LocalStack;
let bedrock: MockBedrock;
beforeAll(async () => {
  bedrock = await startMockBedrock();
  stack = await startTestStack({
    upstreams: { bedrock: bedrock.url },
  });
});
afterAll(async () => {
  await stack.stop();
  await bedrock.close();
});

async function newKey(orgId: string, token?: string): Promise<string> {
  token ??= await stack.issueIdToken(orgId);
  const res = await fetch(`${stack.apiUrl}/v1/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: 'bedrock-agent' }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { apiKey: string }).apiKey;
}

function agent(apiKey: string, session: string): BedrockRuntimeClient {
  const client = new BedrockRuntimeClient({
    region: 'us-west-2',
    endpoint: `${stack.proxyUrl}/bedrock/us-west-2`,
    token: { token: 'bedrock-api-key-example' },
    authSchemePreference: ['httpBearerAuth'],
  });
  client.middlewareStack.add(
    (next) => (args) => {
      const headers = (args.request as { headers: Record<string, string> }).headers;
      headers['service-api-key'] = apiKey;
      headers['x-spendguard-session'] = session;
      return next(args);
    },
    { step: 'build', name: 'spendguardHeaders' },
  );
  return client;
}

it('a looping Bedrock agent is refused within 6 calls, before the provider, without client retries', async () => {
  const looping = agent(await newKey('org_bedrock_loop'), 'bedrock-loop');
  const loop = new ConverseCommand({
    modelId: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
    messages: [{ role: 'user', content: [{ text: 'the deploy failed; apply the same patch again' }] }],
    inferenceConfig: { maxTokens: 256 },
  });
  let calls = 0;
  let refused: { name: string; $metadata: { httpStatusCode?: number; attempts?: number } } | undefined;
  while (refused === undefined && calls < 6) {
    calls++;
    const before = bedrock.requests().length;
    try {
      await looping.send(loop);
    } catch (err) {
      refused = err as typeof refused;
      expect(bedrock.requests().length).toBe(before); // refused at the guard: the provider saw nothing
      break;
    }
    await stack.drain();
    if (calls >= 4) await new Promise((r) => setTimeout(r, 1200)); // the guard's cache: the documented bound
  }
  expect(refused?.name).toBe('ServiceQuotaExceededException');
  expect(refused?.$metadata.httpStatusCode).toBe(400);
  expect(refused?.$metadata.attempts).toBe(1);
  expect(calls).toBeLessThanOrEqual(6);
}, 60_000);

it('Converse with prompt-cache tokens (regional profile) and ConverseStream on Nova Pro land in the ledger at the published price', async () => {
  const token = await stack.issueIdToken('org_bedrock_ledger');
  const client = agent(await newKey('org_bedrock_ledger', token), 'ledger-run');
  const sonnet = 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0';
  const cached = new ConverseCommand({
    modelId: sonnet,
    system: [
      { text: 'You review supplier contracts for risk. '.repeat(150) },
      { cachePoint: { type: 'default' } },
    ],
    messages: [{ role: 'user', content: [{ text: 'List the termination clauses.' }] }],
    inferenceConfig: { maxTokens: 400 },
  });
  const write = (await client.send(cached)).usage!;
  const read = (await client.send(cached)).usage!;
  const stream = await client.send(
    new ConverseStreamCommand({
      modelId: 'us.amazon.nova-pro-v1:0',
      messages: [{ role: 'user', content: [{ text: 'Summarize the quarter in one line.' }] }],
    }),
  );
  let nova: TokenUsage | undefined;
  for await (const e of stream.stream!) if (e.metadata?.usage) nova = e.metadata.usage;
  expect(read.cacheReadInputTokens).toBe(write.cacheWriteInputTokens);

  await stack.drain();
  const res = await fetch(`${stack.apiUrl}/v1/ledger?limit=10`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const entries = (
    (await res.json()) as {
      entries: { provider: string; model: string; costNanos: number; cacheReadTokens: number }[];
    }
  ).entries.filter((e) => e.provider === 'bedrock');
  expect(entries).toHaveLength(3);
  // Published per MTok (aws.amazon.com/bedrock/pricing): Claude Sonnet 4.5 in an `eu.` profile $3.30 in,
  // $4.125 5-minute write, $0.33 cache read, $16.50 out; Nova Pro $0.80 in, $3.20 out.
  const nanos = (usd: number) => usd * 1000; // USD per MTok → nanos per token
  const expected = [
    write.inputTokens! * nanos(3.3) +
      write.cacheWriteInputTokens! * nanos(4.125) +
      write.outputTokens! * nanos(16.5),
    read.inputTokens! * nanos(3.3) +
      read.cacheReadInputTokens! * nanos(0.33) +
      read.outputTokens! * nanos(16.5),
    nova!.inputTokens! * nanos(0.8) + nova!.outputTokens! * nanos(3.2),
  ].sort((a, b) => a - b);
  const actual = entries.map((e) => e.costNanos).sort((a, b) => a - b);
  actual.forEach((cost, i) => expect(Math.abs(cost - expected[i]!) / expected[i]!).toBeLessThan(0.005));
}, 60_000);
