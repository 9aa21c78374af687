/**
 * Amazon Bedrock (issue 20):
 * - event-stream tap cost (process CPU, best of 5): a large ConverseStream and an InvokeModelWithResponseStream (Anthropic body)
 *   pushed through the relay's usage stream (AWS codec framing + CRC, event tally) in 16 KB chunks:
 *   milliseconds of CPU per MB and MB/s;
 * - SDK middleware added time: `send` through `instrumentAwsClient`'s middleware vs the bare handler,
 *   over an in-process handler that returns a Converse output at once (only SDK work is measured),
 *   beside `wrapFetch`'s added time measured the same way over an in-process fetch.
 *
 * Run: `npx tsx bench/index.ts bedrock`.
 */
import { performance } from 'node:perf_hooks';
import { encodeEvents, type FixtureEvent } from '../core/usage/fixtures/bedrock/encode';
import { readBedrockEventStream } from '../core/usage/bedrock-event-stream';
import { createUsageStream } from '../core/usage';
import { instrumentAwsClient, shutdown, wrapFetch } from '../sdk/src';

const MB = 1_000_000;
const CHUNK = 16 * 1024;
const URL_CONVERSE =
  'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-pro-v1%3A0/converse-stream';
const URL_INVOKE =
  'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream';
const TEXT = ' the model streams its answer as events, 東京 café 🚀 and code {x => 42}';

function converseStream(bytes: number): Uint8Array {
  const events: FixtureEvent[] = [{ event: 'messageStart', payload: { role: 'assistant', p: 'abcdefgh' } }];
  let size = 0;
  while (size < bytes) {
    events.push({
      event: 'contentBlockDelta',
      payload: { contentBlockIndex: 0, delta: { text: TEXT }, p: 'abcdefghij' },
    });
    size += 150;
  }
  events.push({ event: 'messageStop', payload: { stopReason: 'end_turn' } });
  events.push({
    event: 'metadata',
    payload: {
      usage: { inputTokens: 1000, outputTokens: 50_000, totalTokens: 51_000 },
      metrics: { latencyMs: 1 },
    },
  });
  return encodeEvents(events);
}

function invokeStream(bytes: number): Uint8Array {
  const events: FixtureEvent[] = [
    {
      event: 'chunk',
      payload: {
        type: 'message_start',
        message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 9, output_tokens: 1 } },
      },
    },
  ];
  let size = 0;
  while (size < bytes) {
    events.push({
      event: 'chunk',
      payload: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: TEXT } },
    });
    size += 220;
  }
  events.push({ event: 'chunk', payload: { type: 'message_delta', usage: { output_tokens: 50_000 } } });
  return encodeEvents(events);
}

function tapMsPerMb(body: Uint8Array, url: string, rounds: number): { msPerMb: number; mbPerS: number } {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    // Process CPU, not wall time: the shared machine's load would otherwise dominate.
    const t0 = process.cpuUsage();
    const s = createUsageStream('bedrock', { url, bedrockEventStream: readBedrockEventStream });
    for (let i = 0; i < body.byteLength; i += CHUNK) s.push(body.subarray(i, i + CHUNK));
    const result = s.end();
    const used = process.cpuUsage(t0);
    const ms = (used.user + used.system) / 1000;
    if (!result.ok) throw new Error(result.reason);
    best = Math.min(best, ms);
  }
  const mb = body.byteLength / MB;
  return { msPerMb: best / mb, mbPerS: mb / (best / 1000) };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
const us = (ms: number): string => `${(ms * 1000).toFixed(1)} µs`;

/** p50 / p99 of (wrapped − raw) per iteration, interleaved so that drift hits both sides alike. */
async function addedTime(
  raw: () => Promise<unknown>,
  wrapped: () => Promise<unknown>,
  n: number,
): Promise<string> {
  for (let i = 0; i < 500; i++) {
    await raw();
    await wrapped();
  }
  const diffs: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = performance.now();
    await raw();
    const b = performance.now();
    await wrapped();
    const c = performance.now();
    diffs.push(c - b - (b - a));
  }
  diffs.sort((x, y) => x - y);
  return `${us(percentile(diffs, 50))} / ${us(percentile(diffs, 99))}`;
}

export default async function run(): Promise<void> {
  const converse = converseStream(8 * MB);
  const invoke = invokeStream(8 * MB);
  const c = tapMsPerMb(converse, URL_CONVERSE, 5);
  const i = tapMsPerMb(invoke, URL_INVOKE, 5);

  // In-process ingest: the SDK's own requests go to a fetch that accepts everything.
  const real = globalThis.fetch;
  globalThis.fetch = (() => Promise.resolve(new Response('{}', { status: 202 }))) as typeof fetch;
  const opts = {
    apiKey: 'abn_bench',
    endpoint: 'http://ingest.invalid',
    serverFlags: false,
    bufferCapacity: 100_000,
  };
  const output = {
    output: { message: { role: 'assistant', content: [{ text: 'ok' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
    metrics: { latencyMs: 1 },
    $metadata: { httpStatusCode: 200 },
  };
  const next = (): Promise<{ output: typeof output }> => Promise.resolve({ output: { ...output } });
  let middleware:
    ((n: typeof next, ctx: { commandName: string }) => (args: unknown) => Promise<unknown>) | undefined;
  const fakeClient = {
    config: { serviceId: 'Bedrock Runtime', region: () => Promise.resolve('us-east-1') },
    middlewareStack: {
      add: (mw: typeof middleware) => {
        middleware = mw;
      },
    },
  };
  instrumentAwsClient(fakeClient, opts);
  const handler = middleware!(next, { commandName: 'ConverseCommand' });
  const args = {
    input: {
      modelId: 'us.amazon.nova-pro-v1:0',
      messages: [{ role: 'user', content: [{ text: 'Summarize the budget.' }] }],
    },
  };
  const sdkAdded = await addedTime(
    () => next(),
    () => handler(args),
    20_000,
  );

  const json = JSON.stringify({ model: 'gpt-4o-mini', usage: { prompt_tokens: 12, completion_tokens: 3 } });
  const inner = (): Promise<Response> =>
    Promise.resolve(new Response(json, { headers: { 'content-type': 'application/json' } }));
  const tracked = wrapFetch(inner as typeof fetch, opts);
  const body = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Summarize the budget."}]}';
  const init = { method: 'POST', body };
  const fetchAdded = await addedTime(
    () => inner(),
    () => tracked('https://api.openai.com/v1/chat/completions', init),
    20_000,
  );
  await shutdown();
  globalThis.fetch = real;

  console.table([
    {
      measure: 'ConverseStream tap (codec + tally), CPU per MB / throughput',
      value: `${c.msPerMb.toFixed(2)} ms / ${c.mbPerS.toFixed(0)} MB/s`,
    },
    {
      measure: 'InvokeModelWithResponseStream tap (Anthropic body), per MB',
      value: `${i.msPerMb.toFixed(2)} ms / ${i.mbPerS.toFixed(0)} MB/s`,
    },
    { measure: 'SDK instrumentAwsClient added time, p50 / p99 (Converse)', value: sdkAdded },
    { measure: 'SDK wrapFetch added time, p50 / p99 (chat JSON), same harness', value: fetchAdded },
  ]);
}
