/**
 * Safety rules 1 and 2 (spec 1.1): the SDK never throws to the host, and never changes a request or a
 * response. The host must see exactly what the raw fetch does — same result or same error — for any
 * input, including invalid ones; streamed bodies reach it byte for byte, chunk for chunk.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { flush, initServiceAuto, shutdown, verifyService, wrapFetch } from '../src';
import { sdkState } from '../src/tracked-fetch';
import { startFakeIngest, TEST_API_KEY, type FakeIngest } from './helpers/fake-ingest';
import { startFakeProvider } from './helpers/fake-provider';
import { chatInit, inProcessProvider, OPENAI_URL } from './helpers/in-process';

let ingest: FakeIngest;
const realFetch = globalThis.fetch;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

beforeAll(async () => {
  ingest = await startFakeIngest();
  process.on('unhandledRejection', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await ingest.close();
});
afterEach(async () => {
  await shutdown({ timeoutMs: 300 });
  globalThis.fetch = realFetch;
  expect(unhandled).toEqual([]);
});

/**
 * A fetch that validates its arguments as the real one does (`new Request(input, init)` throws the
 * same TypeErrors) and answers without a network: SSE for paths containing `stream`, JSON otherwise.
 */
async function validatingFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  if (request.signal.aborted) throw request.signal.reason;
  const body = request.body === null ? '' : await request.text();
  if (request.url.includes('stream')) {
    return new Response(
      `data: {"usage":{"prompt_tokens":1,"completion_tokens":2}}\n\ndata: ${body.length}\n\n`,
      {
        status: 200,
        headers: { 'content-type': 'text/event-stream', 'x-echo-method': request.method },
      },
    );
  }
  return new Response(
    JSON.stringify({ usage: { prompt_tokens: 3, completion_tokens: 4 }, echo: body.length }),
    {
      status: body.length % 2 === 0 ? 200 : 400,
      statusText: 'Custom',
      headers: { 'content-type': 'application/json', 'x-echo-method': request.method },
    },
  );
}

type Outcome =
  | { kind: 'ok'; status: number; statusText: string; headers: Array<[string, string]>; body: string }
  | { kind: 'error'; name: string; message: string }
  | { kind: 'sync'; name: string; message: string };

async function outcomeOf(run: () => Promise<Response>): Promise<Outcome> {
  let promise: Promise<Response>;
  try {
    promise = run();
  } catch (err) {
    return { kind: 'sync', name: (err as Error).name, message: (err as Error).message };
  }
  try {
    const response = await promise;
    return {
      kind: 'ok',
      status: response.status,
      statusText: response.statusText,
      headers: [...response.headers],
      body: await response.text(),
    };
  } catch (err) {
    return { kind: 'error', name: (err as Error).name, message: (err as Error).message };
  }
}

/** A recipe for fetch arguments; built twice (raw and wrapped) because bodies can be one-shot. */
type ArgsRecipe = () => unknown[];

const urlArb = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      OPENAI_URL,
      'https://api.openai.com/v1/stream',
      'https://api.anthropic.com/v1/messages',
    ),
    weight: 6,
  },
  fc.constantFrom(
    OPENAI_URL,
    'https://api.openai.com/v1/stream',
    'https://api.anthropic.com/v1/messages',
    'https://openrouter.ai/api/v1/chat/completions',
    'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse&key=SECRET',
    'https://example.com/v1/chat/completions',
    'http://',
    ':::not a url',
    '',
    '/relative/path',
    'https://api.openai.com:99999/v1/x',
    'ftp://api.openai.com/v1/x',
  ),
  fc.string(),
  fc.webUrl().map((u) => u.replace(/^https?:\/\/[^/]+/, 'https://api.openai.com')),
);

const bodyArb: fc.Arbitrary<() => unknown> = fc.oneof(
  fc.constant(() => undefined),
  fc.constant(() => null),
  fc.string().map((s) => () => s),
  fc.json().map((s) => () => s),
  fc.uint8Array({ maxLength: 64 }).map((a) => () => a),
  fc.uint8Array({ maxLength: 64 }).map((a) => () => a.buffer.slice(0)),
  fc.string().map((s) => () => new URLSearchParams({ q: s })),
  fc.string().map((s) => () => new Blob([s])),
  fc
    .string()
    .map(
      (s) => () => new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(s)), c.close()) }),
    ),
  fc.integer().map((n) => () => n),
  fc.constant(() => ({ toString: () => '{"model":"x"}' })),
);

const methodArb = fc.oneof(
  { arbitrary: fc.constant('POST'), weight: 6 },
  fc.constantFrom('POST', 'post', 'GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'CONNECT', 'bad method', ''),
  fc.string({ maxLength: 8 }),
);

const initArb: fc.Arbitrary<() => unknown> = fc.oneof(
  { arbitrary: fc.constant(() => chatInit()), weight: 4 },
  fc.constant(() => undefined),
  fc.constant(() => null),
  fc.constant(() => 42),
  fc.constant(() => 'init as string'),
  fc.constant(() => {
    const init = { method: 'POST' };
    Object.defineProperty(init, 'body', {
      enumerable: true,
      get() {
        throw new Error('hostile getter');
      },
    });
    return init;
  }),
  {
    weight: 6,
    arbitrary: fc
      .record({
        method: methodArb,
        body: bodyArb,
        aborted: fc.constantFrom(false, false, false, true),
        duplex: fc.boolean(),
        headers: fc.oneof(
          fc.constant(undefined),
          fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
        ),
      })
      .map(({ method, body, aborted, duplex, headers }) => () => {
        const init: Record<string, unknown> = { method, body: body() };
        if (aborted) init.signal = AbortSignal.abort();
        if (duplex) init.duplex = 'half';
        if (headers !== undefined) init.headers = headers;
        return init;
      }),
  },
);

const inputArb: fc.Arbitrary<(url: string) => unknown> = fc.oneof(
  { arbitrary: fc.constant((url: string) => url), weight: 4 },
  fc.constant((url: string) => {
    try {
      return new URL(url);
    } catch {
      return url;
    }
  }),
  fc.constant((url: string) => {
    try {
      return new Request(url, { method: 'POST', body: '{"model":"gpt-4o","messages":[]}' });
    } catch {
      return url;
    }
  }),
  fc.constant(() => undefined),
  fc.constant(() => 12345),
  fc.constant(() => ({ href: OPENAI_URL })),
);

const argsArb: fc.Arbitrary<ArgsRecipe> = fc
  .tuple(urlArb, inputArb, initArb, fc.constantFrom(0, 1, 2, 2, 2, 2))
  .map(
    ([url, input, init, arity]) =>
      () =>
        [input(url), init()].slice(0, arity),
  );

describe('never throws, never changes what the host sees', () => {
  const scenarios = [
    ['auto-instrumented global fetch', 'auto'],
    ['wrapFetch with a forced provider and a blocking budget', 'wrapped'],
  ] as const;

  it.each(scenarios)('%s: same outcome as the raw fetch for any arguments', async (_name, mode) => {
    let tracked: (...args: unknown[]) => Promise<Response>;
    if (mode === 'auto') {
      globalThis.fetch = validatingFetch as typeof fetch;
      initServiceAuto({
        apiKey: TEST_API_KEY,
        endpoint: 'http://127.0.0.1:9',
        flushIntervalMs: 100,
        maxBatchSize: 1,
      });
      tracked = globalThis.fetch as (...args: unknown[]) => Promise<Response>;
    } else {
      tracked = wrapFetch(validatingFetch, {
        apiKey: TEST_API_KEY,
        endpoint: ingest.url,
        provider: 'llama',
        budget: { dailyLimitUsd: 1000, action: 'block' },
      }) as (...args: unknown[]) => Promise<Response>;
    }
    await fc.assert(
      fc.asyncProperty(argsArb, async (recipe) => {
        const raw = await outcomeOf(() =>
          (validatingFetch as (...a: unknown[]) => Promise<Response>)(...recipe()),
        );
        const wrapped = await outcomeOf(() => tracked(...recipe()));
        expect(wrapped).toEqual(raw);
      }),
      { numRuns: 250 },
    );
    const stats = [...sdkState().clients.values()].map((c) => c.stats());
    expect(stats.reduce((n, s) => n + s.calls, 0)).toBeGreaterThan(30); // the property exercised tracked calls
    await flush({ timeoutMs: 300 });
  });

  it('passes the exact argument objects and `this` to the inner fetch', async () => {
    const seen: unknown[][] = [];
    const seenThis: unknown[] = [];
    const inner = function (this: unknown, ...args: unknown[]): Promise<Response> {
      seen.push(args);
      seenThis.push(this);
      return Promise.resolve(new Response('{}', { headers: { 'content-type': 'application/json' } }));
    };
    const f = wrapFetch(inner as typeof fetch, { apiKey: TEST_API_KEY });
    const init = chatInit();
    const receiver = { marker: true };
    await f.call(receiver, OPENAI_URL, init);
    expect(seen[0]?.[0]).toBe(OPENAI_URL);
    expect(seen[0]?.[1]).toBe(init);
    expect(seenThis[0]).toBe(receiver);
  });

  it('rethrows the inner fetch’s synchronous throw and rejection unchanged', async () => {
    const boom = new TypeError('sync boom');
    const syncThrow = wrapFetch(
      (() => {
        throw boom;
      }) as typeof fetch,
      { apiKey: TEST_API_KEY },
    );
    expect(() => syncThrow(OPENAI_URL, chatInit())).toThrow(boom);
    const rejection = new Error('network down');
    const rejects = wrapFetch((() => Promise.reject(rejection)) as typeof fetch, { apiKey: TEST_API_KEY });
    await expect(rejects(OPENAI_URL, chatInit())).rejects.toBe(rejection);
  });

  it('an already aborted signal still rejects with AbortError from the real fetch', async () => {
    initServiceAuto({ apiKey: TEST_API_KEY, endpoint: ingest.url });
    const error = await globalThis.fetch(OPENAI_URL, { ...chatInit(), signal: AbortSignal.abort() }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((error as Error).name).toBe('AbortError');
  });

  it('an abort during a stream reaches the host as the same error', async () => {
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    const inner = (): Promise<Response> => {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode('data: {"choices":[]}\n\n'));
          controller.signal.addEventListener('abort', () => c.error(reason));
        },
      });
      return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
    };
    const f = wrapFetch(inner as typeof fetch, { apiKey: TEST_API_KEY });
    const response = await f(OPENAI_URL, chatInit('gpt-4o', { stream: true }));
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toBe(reason);
  });
});

describe('failing ingest and invalid options never surface', () => {
  it('a refused, a failing and a hanging backend leave the calls and flush() unharmed', async () => {
    const provider = inProcessProvider();
    ingest.script.push({ status: 500 }, 'hang', { status: 503, headers: { 'retry-after': '3600' } });
    for (const endpoint of ['http://127.0.0.1:9', ingest.url, 'not a url']) {
      const f = wrapFetch(provider.fetch, {
        apiKey: TEST_API_KEY,
        endpoint,
        maxBatchSize: 1,
        flushIntervalMs: 100,
      });
      for (let i = 0; i < 3; i++) expect((await f(OPENAI_URL, chatInit())).status).toBe(200);
    }
    for (const client of sdkState().clients.values()) {
      client.retryPolicy = {
        maxAttempts: 2,
        baseDelayMs: 5,
        maxDelayMs: 5,
        maxRetryAfterMs: 100,
        attemptTimeoutMs: 200,
      };
    }
    await expect(flush({ timeoutMs: 1000 })).resolves.toBeDefined();
  });

  it('an explicit flush answers by its deadline even while an earlier flush hangs on the backend', async () => {
    // A backend of its own that takes every request and never answers.
    const requests: number[] = [];
    const hanging = createServer(() => requests.push(Date.now()));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    try {
      const provider = inProcessProvider();
      const f = wrapFetch(provider.fetch, {
        apiKey: TEST_API_KEY,
        endpoint: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`,
        serverFlags: false,
        serverBudget: false,
        flushIntervalMs: 20,
      });
      await (await f(OPENAI_URL, chatInit())).text();
      // The timer's flush is sent and hangs (its attempt times out after 10 s).
      for (let i = 0; i < 200 && requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(requests).toHaveLength(1);
      const started = Date.now();
      const result = await flush({ timeoutMs: 300 });
      // Queued behind it, the explicit flush used to wait for it: 10 s, past a Lambda's remaining time.
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(result).toEqual({ sent: 0, pending: 1, discarded: 0 });
    } finally {
      hanging.closeAllConnections();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });

  it('accepts anything as options without throwing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.anything({ withBoxedValues: true, withMap: true, withSet: true }),
        async (options) => {
          const client = initServiceAuto(options as never);
          expect(typeof client.flush).toBe('function');
          const f = wrapFetch(inProcessProvider().fetch, options as never);
          expect((await f(OPENAI_URL, chatInit())).status).toBe(200);
          const verify = await verifyService({ ...(options as object), timeoutMs: 50 } as never);
          expect(typeof verify.ok).toBe('boolean');
          await shutdown({ timeoutMs: 10 });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('accepts invalid values of every option', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const client = initServiceAuto({
      apiKey: 42 as never,
      debug: true,
      flushIntervalMs: -5,
      maxBatchSize: 1e9,
      bufferCapacity: Number.NaN,
      budget: { dailyLimitUsd: 'ten' as never, action: 'explode' as never },
      environment: 'prod' as never,
      projectId: 'a\u0000b',
      endpoint: 'ftp://nope',
    });
    expect(client.stats().calls).toBe(0);
    expect(warn.mock.calls.length).toBeGreaterThan(4);
    warn.mockRestore();
  });
});

describe('rule 2: payloads unchanged', () => {
  /** Random chunks, invalid UTF-8 included, served as an SSE stream. */
  const chunksArb = fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), {
    minLength: 1,
    maxLength: 20,
  });

  it('streams reach the host byte for byte and chunk for chunk, with status and headers', async () => {
    await fc.assert(
      fc.asyncProperty(chunksArb, async (chunks) => {
        const inner = (): Promise<Response> =>
          Promise.resolve(
            new Response(
              new ReadableStream<Uint8Array>({
                start(c) {
                  for (const chunk of chunks) c.enqueue(chunk);
                  c.close();
                },
              }),
              {
                status: 201,
                statusText: 'Made',
                headers: { 'content-type': 'text/event-stream', 'x-a': '1' },
              },
            ),
          );
        const f = wrapFetch(inner as typeof fetch, { apiKey: TEST_API_KEY });
        const response = await f(OPENAI_URL, chatInit('gpt-4o', { stream: true }));
        expect(response.status).toBe(201);
        expect(response.statusText).toBe('Made');
        expect([...response.headers]).toEqual([
          ['content-type', 'text/event-stream'],
          ['x-a', '1'],
        ]);
        const received: Uint8Array[] = [];
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) received.push(chunk);
        expect(received).toEqual(chunks);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps url, redirected and type of a rebuilt streaming response', async () => {
    const provider = await startFakeProvider();
    try {
      const f = wrapFetch(fetch, { apiKey: TEST_API_KEY, provider: 'openai' });
      const url = `${provider.url}/openai/v1/chat/completions`;
      const raw = await fetch(url, chatInit('gpt-4o', { stream: true }));
      const tracked = await f(url, chatInit('gpt-4o', { stream: true }));
      expect(tracked.url).toBe(raw.url);
      expect(tracked.redirected).toBe(raw.redirected);
      expect(tracked.type).toBe(raw.type);
      expect(tracked.headers.get('x-fake')).toBe('sse');
      expect(await tracked.text()).toBe(await raw.text());
    } finally {
      await provider.close();
    }
  });

  it('returns the very same Response object for JSON, body intact, read any way', async () => {
    const text = '{"usage":{"prompt_tokens":1,"completion_tokens":1},"x":"é"}';
    const make = (): Response => new Response(text, { headers: { 'content-type': 'application/json' } });
    let last: Response | undefined;
    const f = wrapFetch((() => Promise.resolve((last = make()))) as typeof fetch, { apiKey: TEST_API_KEY });
    const readers: Array<(r: Response) => Promise<unknown>> = [
      (r) => r.json(),
      (r) => r.text(),
      async (r) => new TextDecoder().decode(await r.arrayBuffer()),
      async (r) => (await r.blob()).text(),
      (r) => new Response(r.body).text(),
      (r) => r.clone().text(),
    ];
    for (const read of readers) {
      const response = await f(OPENAI_URL, chatInit());
      expect(response).toBe(last);
      expect(Object.keys(response)).toEqual([]);
      expect(await read(response)).toEqual(await read(make()));
    }
  });

  it('passes a JSON body read error to the application as the same error', async () => {
    const failure = new Error('connection reset mid-body');
    const inner = (): Promise<Response> =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            start(c) {
              c.enqueue(new TextEncoder().encode('{"usage":'));
              c.error(failure);
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
      );
    const f = wrapFetch(inner as typeof fetch, { apiKey: TEST_API_KEY });
    const response = await f(OPENAI_URL, chatInit());
    expect(response.status).toBe(200);
    await expect(response.json()).rejects.toBe(failure);
  });

  it('passes chunks on as they arrive (no buffering) and cancels the provider when the host cancels', async () => {
    let cancelled: unknown;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const inner = (): Promise<Response> =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            async pull(c) {
              c.enqueue(new TextEncoder().encode('data: {"choices":[]}\n\n'));
              await gate; // the second chunk never comes until released
            },
            cancel(reason) {
              cancelled = reason;
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        ),
      );
    const f = wrapFetch(inner as typeof fetch, { apiKey: TEST_API_KEY });
    const response = await f(OPENAI_URL, chatInit('gpt-4o', { stream: true }));
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('data:');
    await reader.cancel('stop');
    expect(cancelled).toBe('stop');
    release();
  });
});
