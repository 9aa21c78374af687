/**
 * A local stand-in for the providers: a node:http server answering OpenAI Chat Completions and
 * Anthropic Messages in their real formats (JSON, and SSE with usage), plus a "network" fetch that
 * routes https://api.openai.com and https://api.anthropic.com to it — so that official clients with
 * their default base URLs go through auto-detection and a real HTTP exchange.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PROMPT_TEXT = 'PROMPT-SECRET-7f3a: the confidential question about customer Jane Doe';
export const COMPLETION_TEXT = 'COMPLETION-SECRET-91bc: the confidential answer for Jane Doe';

export interface ProviderRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface FakeProvider {
  readonly url: string;
  readonly requests: ProviderRequest[];
  /** Delay between SSE frames in milliseconds. */
  frameDelayMs: number;
  /** Fetch that sends provider hosts to this server and everything else to the real fetch. */
  readonly networkFetch: typeof fetch;
  close(): Promise<void>;
}

const OPENAI_USAGE = { prompt_tokens: 21, completion_tokens: 12, total_tokens: 33 };

export function openaiJson(model: string): unknown {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_760_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: COMPLETION_TEXT }, finish_reason: 'stop' }],
    usage: OPENAI_USAGE,
  };
}

export function openaiSse(model: string, includeUsage: boolean): string[] {
  const words = COMPLETION_TEXT.split(' ');
  const frames = words.map(
    (w, i) =>
      `data: ${JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1_760_000_000,
        model,
        choices: [{ index: 0, delta: { content: (i === 0 ? '' : ' ') + w }, finish_reason: null }],
        usage: null,
      })}\n\n`,
  );
  if (includeUsage) {
    frames.push(
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_760_000_000, model, choices: [], usage: OPENAI_USAGE })}\n\n`,
    );
  }
  frames.push('data: [DONE]\n\n');
  return frames;
}

export function anthropicJson(model: string): unknown {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: COMPLETION_TEXT }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: 25,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 0,
      output_tokens: 15,
    },
  };
}

export function anthropicSse(model: string): string[] {
  const ev = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  const frames = [
    ev('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 25,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 0,
          output_tokens: 1,
        },
      },
    }),
    ev('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
  ];
  for (const word of COMPLETION_TEXT.split(' ')) {
    frames.push(
      ev('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: word + ' ' },
      }),
    );
  }
  frames.push(
    ev('content_block_stop', { type: 'content_block_stop', index: 0 }),
    ev('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 15 },
    }),
    ev('message_stop', { type: 'message_stop' }),
  );
  return frames;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeProvider(): Promise<FakeProvider> {
  const requests: ProviderRequest[] = [];
  const state = { frameDelayMs: 0 };
  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push({ path, headers: req.headers, body });
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(body) as Record<string, unknown>;
    } catch {
      // not JSON
    }
    const model = typeof parsed.model === 'string' ? parsed.model : 'unknown-model';
    const stream = parsed.stream === true;
    const send = async (frames: string[]): Promise<void> => {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'x-fake': 'sse',
      });
      for (const frame of frames) {
        res.write(frame);
        if (state.frameDelayMs > 0) await new Promise((r) => setTimeout(r, state.frameDelayMs));
      }
      res.end();
    };
    if (path.endsWith('/chat/completions')) {
      if (stream) {
        const include =
          (parsed.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
        await send(openaiSse(model, include));
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_fake' });
        res.end(JSON.stringify(openaiJson(model)));
      }
      return;
    }
    if (path.endsWith('/messages')) {
      if (stream) await send(anthropicSse(model));
      else {
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake' });
        res.end(JSON.stringify(anthropicJson(model)));
      }
      return;
    }
    if (path.endsWith('/error')) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'boom', type: 'server_error' } }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no route ${path}` } }));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const realFetch = globalThis.fetch;
  const route = (raw: string): string =>
    raw
      .replace(/^https:\/\/api\.openai\.com/, `${url}/openai`)
      .replace(/^https:\/\/api\.anthropic\.com/, `${url}/anthropic`)
      .replace(/^https:\/\/bedrock-runtime\.[a-z0-9-]+\.amazonaws\.com/, `${url}/bedrock`);
  const networkFetch = ((input: string | URL | Request, init?: RequestInit) => {
    if (typeof input === 'string') return realFetch(route(input), init);
    if (input instanceof URL) return realFetch(route(input.href), init);
    const routed = route(input.url);
    return realFetch(routed === input.url ? input : new Request(routed, input), init);
  }) as typeof fetch;
  return {
    url,
    requests,
    get frameDelayMs() {
      return state.frameDelayMs;
    },
    set frameDelayMs(v: number) {
      state.frameDelayMs = v;
    },
    networkFetch,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
