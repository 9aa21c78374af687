/**
 * A fake Amazon Bedrock runtime: Converse and ConverseStream in the real wire formats (JSON; AWS event
 * stream framed with the AWS codec), over HTTP/1.1 and HTTP/2 without TLS on one port, as
 * `@aws-sdk/client-bedrock-runtime` speaks it. Routes: `POST /model/<modelId>/converse` and
 * `/model/<modelId>/converse-stream` (the model id URL-encoded, as the SDK sends ARNs); `/invoke` and
 * `/invoke-with-response-stream` answering the model family's own body: Anthropic's Messages format for
 * `anthropic.` models (usage in the body, and in its stream's `message_start` / `message_delta`), a body
 * without usage for the others; the counts also in the `x-amzn-bedrock-*-token-count` headers (invoke)
 * or the last `chunk`'s `amazon-bedrock-invocationMetrics` (stream); the OpenAI-compatible
 * `/openai/v1/chat/completions` (runtime) and `/v1/chat/completions` (mantle).
 *
 * The same port answers CloudWatch `ListMetrics` and `GetMetricData` (cloudwatch.ts) from the token
 * counts of the Converse, ConverseStream and InvokeModel calls served, as Bedrock publishes them to
 * `AWS/Bedrock`, so that Bedrock reconciliation runs locally with the real CloudWatch client.
 *
 * Usage is deterministic: input tokens are the prompt's characters / 4 (rounded up), the answer is
 * fixed. A `cachePoint` block caches the prompt before it: written (5 minutes, or 1 hour with
 * `ttl: '1h'`) the first time that prefix is seen, read afterwards. Counts follow Bedrock's per-family
 * rule: `inputTokens` excludes the cache tokens except for OpenAI models.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { dualProtocolServer } from '../runtime/h2c';
import { createMockCloudWatch, signedRegion } from './cloudwatch';

/** One request the fake Bedrock received. */
export interface BedrockMockRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly httpVersion: string;
  readonly body: string;
}

export interface MockBedrock {
  /** `http://127.0.0.1:<port>`: the runtime endpoint for every region. */
  readonly url: string;
  requests(): readonly BedrockMockRequest[];
  close(): Promise<void>;
}

const codec = new EventStreamCodec(
  (b: Uint8Array) => new TextDecoder().decode(b),
  (s: string) => new TextEncoder().encode(s),
);
const ANSWER = ['Spendguard ', 'recorded ', 'this call.'];
const OUTPUT_TOKENS = 7;
const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

/** The OpenAI-compatible Chat Completions endpoints: runtime `/openai/v1/…`, mantle `/v1/…`. */
const OPENAI_CHAT = /^(?:\/openai)?\/v1\/chat\/completions$/;

/** An OpenAI Chat Completions answer (JSON), usage counted as for Converse. */
function openaiChat(text: string, res: http.ServerResponse): void {
  let model = 'openai.gpt-oss-120b-1:0';
  try {
    const m = (JSON.parse(text) as { model?: unknown }).model;
    if (typeof m === 'string') model = m;
  } catch {
    // keep the default
  }
  const prompt = Math.max(1, Math.ceil(text.length / 4));
  const out = JSON.stringify({
    id: 'chatcmpl-bedrock-mock',
    object: 'chat.completion',
    created: 1_763_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: ANSWER.join('') }, finish_reason: 'stop' }],
    usage: { prompt_tokens: prompt, completion_tokens: OUTPUT_TOKENS, total_tokens: prompt + OUTPUT_TOKENS },
  });
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(out)),
  });
  res.end(out);
}

interface Block {
  text?: unknown;
  cachePoint?: { ttl?: unknown };
}

/** Characters before and after the last cache point, over system then messages. */
function promptChars(body: Record<string, unknown>): {
  cached: number;
  rest: number;
  ttl: string;
  prefix: string;
} {
  const blocks: Block[] = [];
  if (Array.isArray(body.system)) blocks.push(...(body.system as Block[]));
  for (const m of Array.isArray(body.messages) ? (body.messages as { content?: Block[] }[]) : []) {
    if (Array.isArray(m.content)) blocks.push(...m.content);
  }
  let chars = 0;
  let cached = 0;
  let ttl = '5m';
  let prefix = '';
  for (const b of blocks) {
    if (typeof b.text === 'string') {
      chars += b.text.length;
      prefix += b.text;
    }
    if (b.cachePoint !== undefined) {
      cached = chars;
      ttl = b.cachePoint.ttl === '1h' ? '1h' : '5m';
    }
  }
  return { cached, rest: chars - cached, ttl, prefix: prefix.slice(0, cached) };
}

function usageFor(model: string, body: Record<string, unknown>, seen: Set<string>): Record<string, unknown> {
  const p = promptChars(body);
  const cachedTokens = Math.ceil(p.cached / 4);
  const uncached = Math.max(1, Math.ceil(p.rest / 4));
  const key = `${model}\u0000${createHash('sha256').update(p.prefix).digest('hex')}`;
  const read = cachedTokens > 0 && seen.has(key) ? cachedTokens : 0;
  const write = cachedTokens > 0 && read === 0 ? cachedTokens : 0;
  if (cachedTokens > 0) seen.add(key);
  const inclusive = /(?:^|\.)openai\./.test(model);
  const usage: Record<string, unknown> = {
    inputTokens: inclusive ? uncached + read + write : uncached,
    outputTokens: OUTPUT_TOKENS,
    totalTokens: uncached + read + write + OUTPUT_TOKENS,
  };
  if (cachedTokens > 0) {
    usage.cacheReadInputTokens = read;
    usage.cacheWriteInputTokens = write;
    if (write > 0) usage.cacheDetails = [{ ttl: p.ttl, inputTokens: write }];
  }
  return usage;
}

function event(type: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: new TextEncoder().encode(JSON.stringify(payload)),
  });
}

/** A `chunk` event of InvokeModelWithResponseStream: the model-native body, base64, as Bedrock frames it. */
function chunk(body: unknown): Uint8Array {
  return event('chunk', { bytes: Buffer.from(JSON.stringify(body)).toString('base64'), p: 'abcd' });
}

/** The model-native bodies of an InvokeModel answer, whole and streamed, for a model id. */
function invokeBodies(model: string, prompt: number): { whole: unknown; stream: unknown[] } {
  const metrics = {
    inputTokenCount: prompt,
    outputTokenCount: OUTPUT_TOKENS,
    invocationLatency: 42,
    firstByteLatency: 20,
  };
  if (!/(?:^|[.:/])anthropic\./.test(model)) {
    // A body without usage (as several families answer).
    return {
      whole: { outputs: [{ text: ANSWER.join(''), stop_reason: 'stop' }] },
      stream: ANSWER.map((text, i) => ({
        outputs: [{ text, stop_reason: i === ANSWER.length - 1 ? 'stop' : null }],
        ...(i === ANSWER.length - 1 ? { 'amazon-bedrock-invocationMetrics': metrics } : {}),
      })),
    };
  }
  const usage = { input_tokens: prompt, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: 'msg_bdrk_mock', type: 'message', role: 'assistant', model: 'claude-mock' };
  return {
    whole: {
      ...message,
      content: [{ type: 'text', text: ANSWER.join('') }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { ...usage, output_tokens: OUTPUT_TOKENS },
    },
    stream: [
      {
        type: 'message_start',
        message: {
          ...message,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ...ANSWER.map((text) => ({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      })),
      { type: 'content_block_stop', index: 0 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: OUTPUT_TOKENS },
      },
      { type: 'message_stop', 'amazon-bedrock-invocationMetrics': metrics },
    ],
  };
}

/**
 * Starts the fake Bedrock runtime.
 *
 * @example
 * const bedrock = await startMockBedrock();
 * new BedrockRuntimeClient({ region: 'us-east-1', endpoint: bedrock.url, token: { token: 'k' } });
 */
export async function startMockBedrock(
  options: {
    port?: number;
    /** The region of calls a Bedrock API key made (SigV4-signed calls name theirs). @default us-east-1 */
    region?: string;
    /** @default Date.now */
    now?: () => number;
    /** Results per CloudWatch page (small values force NextToken paging; tests). @default 500 */
    cloudWatchPageSize?: number;
  } = {},
): Promise<MockBedrock> {
  const recorded: BedrockMockRequest[] = [];
  const seen = new Set<string>();
  const now = options.now ?? Date.now;
  const cloudWatch = createMockCloudWatch({ pageSize: options.cloudWatchPageSize });
  const countTokens = (
    req: http.IncomingMessage,
    modelId: string,
    input: number,
    output: number,
    cacheRead: number,
    cacheWrite: number,
  ) =>
    cloudWatch.record({
      at: now(),
      region: signedRegion(req.headers) ?? options.region ?? 'us-east-1',
      modelId,
      InputTokenCount: input,
      OutputTokenCount: output,
      CacheReadInputTokenCount: cacheRead,
      CacheWriteInputTokenCount: cacheWrite,
    });
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const url = req.url ?? '/';
      recorded.push({
        method: req.method ?? 'GET',
        url,
        headers: req.headers,
        httpVersion: req.httpVersion,
        body: text,
      });
      if (cloudWatch.handle(req, text, res)) return;
      const path = url.split('?', 1)[0] ?? '';
      if (OPENAI_CHAT.test(path) && req.method === 'POST') {
        openaiChat(text, res);
        return;
      }
      const m = ROUTE.exec(path);
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      if (m === null || req.method !== 'POST' || body === undefined) {
        const err = JSON.stringify({ message: m === null ? 'Unknown operation' : 'Malformed input request' });
        res.writeHead(m === null ? 404 : 400, {
          'content-type': 'application/json',
          'x-amzn-errortype': m === null ? 'UnknownOperationException' : 'ValidationException',
          'content-length': String(Buffer.byteLength(err)),
        });
        res.end(err);
        return;
      }
      let model: string;
      try {
        model = decodeURIComponent(m[1] ?? '');
      } catch {
        // A path no client sends (a broken %-escape): Bedrock's own answer, not a crash of the stack.
        const err = JSON.stringify({ message: 'The model identifier is not validly encoded' });
        res.writeHead(400, {
          'content-type': 'application/json',
          'x-amzn-errortype': 'ValidationException',
          'content-length': String(Buffer.byteLength(err)),
        });
        res.end(err);
        return;
      }
      const usage = usageFor(model, body, seen);
      const tier = (body.serviceTier as { type?: unknown } | undefined)?.type;
      const serviceTier = typeof tier === 'string' ? { serviceTier: { type: tier } } : {};
      if (m[2] === 'invoke' || m[2] === 'invoke-with-response-stream') {
        const prompt = Math.max(1, Math.ceil(text.length / 4));
        const bodies = invokeBodies(model, prompt);
        const tierHeader = req.headers['x-amzn-bedrock-service-tier'];
        const tierHeaders =
          typeof tierHeader === 'string' ? { 'x-amzn-bedrock-service-tier': tierHeader } : {};
        countTokens(req, model, prompt, OUTPUT_TOKENS, 0, 0);
        if (m[2] === 'invoke-with-response-stream') {
          res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', ...tierHeaders });
          const frames = bodies.stream.map(chunk);
          frames.slice(0, -1).forEach((f) => res.write(f));
          res.end(frames.at(-1));
          return;
        }
        const out = JSON.stringify(bodies.whole);
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(out)),
          'x-amzn-bedrock-input-token-count': String(prompt),
          'x-amzn-bedrock-output-token-count': String(OUTPUT_TOKENS),
          ...tierHeaders,
        });
        res.end(out);
        return;
      }
      const n = (v: unknown) => (typeof v === 'number' ? v : 0);
      countTokens(
        req,
        model,
        n(usage.inputTokens),
        n(usage.outputTokens),
        n(usage.cacheReadInputTokens),
        n(usage.cacheWriteInputTokens),
      );
      if (m[2] === 'converse') {
        const out = JSON.stringify({
          output: { message: { role: 'assistant', content: [{ text: ANSWER.join('') }] } },
          stopReason: 'end_turn',
          usage,
          metrics: { latencyMs: 42 },
          ...serviceTier,
        });
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(out)),
        });
        res.end(out);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      res.write(event('messageStart', { role: 'assistant', p: 'abcdefgh' }));
      for (const piece of ANSWER)
        res.write(event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: piece }, p: 'abcd' }));
      res.write(event('contentBlockStop', { contentBlockIndex: 0, p: 'abcdefghij' }));
      res.write(event('messageStop', { stopReason: 'end_turn', p: 'ab' }));
      res.end(event('metadata', { usage, metrics: { latencyMs: 42 }, ...serviceTier, p: 'abcdefghijkl' }));
    });
  };
  const { front, http2 } = dualProtocolServer(http.createServer(handler), handler);
  await new Promise<void>((resolve) => front.listen(options.port ?? 0, '127.0.0.1', resolve));
  const sockets = new Set<import('node:net').Socket>();
  front.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  const port = (front.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => recorded,
    close: () =>
      new Promise<void>((resolve) => {
        http2.close();
        front.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
