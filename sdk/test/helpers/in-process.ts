/**
 * An in-process provider: a fetch function answering provider URLs with real-format Responses built
 * in memory (no network), for tests that exercise the pipeline rather than HTTP.
 */
import { anthropicJson, anthropicSse, openaiJson, openaiSse } from './fake-provider';

export const OPENAI_URL = 'https://api.openai.com/v1/chat/completions';
export const ANTHROPIC_URL = 'https://api.anthropic.com/v1/messages';

export interface InProcessProvider {
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Calls received. */
  readonly calls: Array<{ url: string; init: RequestInit | undefined }>;
}

function sseResponse(frames: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const f of frames) controller.enqueue(encoder.encode(f));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

/**
 * Answers like the providers do (other hosts go to the real fetch: the fake ingest);
 * `status` forces an error status for every call.
 */
export function inProcessProvider(status = 200): InProcessProvider {
  const calls: InProcessProvider['calls'] = [];
  const realFetch = globalThis.fetch;
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!/^https:\/\/(api\.openai\.com|api\.anthropic\.com|example\.com)\//.test(url))
      return realFetch(input, init);
    calls.push({ url, init });
    if (status !== 200) {
      return new Response(JSON.stringify({ error: { message: 'nope', type: 'server_error' } }), {
        status,
        headers: { 'content-type': 'application/json' },
      });
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;
    } catch {
      // not JSON
    }
    const model = typeof body.model === 'string' ? body.model : 'gpt-4o-mini';
    const anthropic = url.includes('anthropic');
    if (body.stream === true) return sseResponse(anthropic ? anthropicSse(model) : openaiSse(model, true));
    return new Response(JSON.stringify(anthropic ? anthropicJson(model) : openaiJson(model)), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { fetch: fetchFn, calls };
}

/** A chat request body. */
export function chatInit(model = 'gpt-4o-mini', extra: Record<string, unknown> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello there' }], ...extra }),
  };
}
