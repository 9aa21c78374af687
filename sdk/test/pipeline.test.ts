/**
 * The event pipeline: ring buffer, idempotent installation, flushing at the batch size and on the
 * interval, drop reporting, and delivery with retries, backoff and Retry-After.
 */
import { flush, getServiceClient, initServiceAuto, shutdown, wrapFetch } from '../src';
import type { Client } from '../src/client';
import { MAX_CALL_TOKENS } from '../../core/schemas/common';
import { MAX_TOKENS } from '../src/event';
import { RingBuffer } from '../src/ring-buffer';
import { sdkState } from '../src/tracked-fetch';
import { parseRetryAfter } from '../src/transport';
import { startFakeIngest, TEST_API_KEY, type FakeIngest } from './helpers/fake-ingest';
import { openaiJson } from './helpers/fake-provider';
import { chatInit, inProcessProvider, OPENAI_URL } from './helpers/in-process';
import { expectValidClientEvents } from './helpers/schema';

let ingest: FakeIngest;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  ingest = await startFakeIngest();
});
afterAll(() => ingest.close());
beforeEach(() => {
  ingest.batches.length = 0;
  ingest.attempts.length = 0;
  ingest.script.length = 0;
});
afterEach(async () => {
  await shutdown({ timeoutMs: 500 });
  globalThis.fetch = realFetch;
});

const base = { apiKey: TEST_API_KEY, flushIntervalMs: 60_000, serverFlags: false } as const;

/** The only client of the process (tests create one). */
function onlyClient(): Client {
  const clients = [...sdkState().clients.values()];
  expect(clients).toHaveLength(1);
  return clients[0] as Client;
}

async function calls(
  fetchFn: (input: string, init: RequestInit) => Promise<Response>,
  n: number,
): Promise<void> {
  for (let i = 0; i < n; i++) await (await fetchFn(OPENAI_URL, chatInit())).json();
}

describe('RingBuffer', () => {
  it('drops the oldest items when full and counts the drops', () => {
    const buffer = new RingBuffer<number>(3);
    for (let i = 1; i <= 5; i++) buffer.push(i);
    expect(buffer.size).toBe(3);
    expect(buffer.droppedUnreported).toBe(2);
    expect(buffer.take(10)).toEqual([3, 4, 5]);
    expect(buffer.takeDropped()).toBe(2);
    expect(buffer.droppedUnreported).toBe(0);
    expect(buffer.droppedTotal).toBe(2);
  });

  it('puts a failed batch back in front, dropping the oldest of it when there is no room', () => {
    const buffer = new RingBuffer<number>(4);
    [1, 2, 3].forEach((i) => buffer.push(i));
    const batch = buffer.take(3);
    [4, 5].forEach((i) => buffer.push(i));
    buffer.requeue(batch);
    expect(buffer.droppedTotal).toBe(1);
    expect(buffer.take(10)).toEqual([2, 3, 4, 5]);
  });

  it('keeps memory bounded whatever the traffic', () => {
    const buffer = new RingBuffer<object>(10);
    for (let i = 0; i < 100_000; i++) buffer.push({ i });
    expect(buffer.size).toBe(10);
    expect(buffer.droppedTotal).toBe(99_990);
  });
});

describe('initServiceAuto', () => {
  it('wraps the global fetch once; a second call updates the options and returns the same client', async () => {
    const provider = inProcessProvider();
    globalThis.fetch = provider.fetch as typeof fetch;
    const first = initServiceAuto({ ...base, endpoint: ingest.url, projectId: 'one' });
    const wrapped = globalThis.fetch;
    const second = initServiceAuto({ ...base, endpoint: ingest.url, projectId: 'two' });
    expect(second).toBe(first);
    expect(globalThis.fetch).toBe(wrapped);
    expect(getServiceClient()).toBe(first);
    await calls(globalThis.fetch, 1);
    await flush();
    const events = await ingest.waitForEvents(1);
    expect(events).toHaveLength(1);
    expect(events[0]?.projectId).toBe('two');
    expect(provider.calls).toHaveLength(1);
  });

  it('a later call changes only the options it names (a bare initServiceAuto() keeps the key and endpoint)', async () => {
    const provider = inProcessProvider();
    globalThis.fetch = provider.fetch as typeof fetch;
    initServiceAuto({ ...base, endpoint: ingest.url, projectId: 'one', featureId: 'search' });
    initServiceAuto(); // a library initializing "just in case", without the application's settings
    initServiceAuto({ featureId: 'checkout' });
    await calls(globalThis.fetch, 1);
    await flush();
    const [event] = await ingest.waitForEvents(1);
    expect(event).toMatchObject({ projectId: 'one', featureId: 'checkout' });
    // One given as undefined goes back to its default.
    initServiceAuto({ featureId: undefined });
    await calls(globalThis.fetch, 1);
    await flush();
    const events = await ingest.waitForEvents(2);
    expect(events[1]).toMatchObject({ projectId: 'one' });
    expect(events[1]).not.toHaveProperty('featureId');
  });

  it('restores the original fetch on shutdown; calls before init are not recorded', async () => {
    const provider = inProcessProvider();
    globalThis.fetch = provider.fetch as typeof fetch;
    await calls(globalThis.fetch, 1); // before init: invisible (troubleshooting: initialize first)
    initServiceAuto({ ...base, endpoint: ingest.url });
    await calls(globalThis.fetch, 1);
    await shutdown();
    expect(globalThis.fetch).toBe(provider.fetch);
    await calls(globalThis.fetch, 1);
    expect(ingest.events()).toHaveLength(1);
  });

  it('ignores other hosts and non-POST provider requests', async () => {
    const provider = inProcessProvider();
    globalThis.fetch = provider.fetch as typeof fetch;
    const client = initServiceAuto({ ...base, endpoint: ingest.url });
    await globalThis.fetch('https://example.com/v1/chat/completions', chatInit());
    await globalThis.fetch('https://api.openai.com/v1/models');
    await globalThis.fetch('https://api.openai.com/dashboard', chatInit());
    expect(client.stats().calls).toBe(0);
  });
});

describe('flushing', () => {
  it('flushes as soon as maxBatchSize events are buffered', async () => {
    const f = wrapFetch(inProcessProvider().fetch, { ...base, endpoint: ingest.url, maxBatchSize: 3 });
    await calls(f, 3);
    const events = await ingest.waitForEvents(3, 3000);
    expect(ingest.batches).toHaveLength(1);
    expect(events).toHaveLength(3);
  });

  it('clamps token counts to the server bound, so one implausible usage cannot get its whole batch refused', async () => {
    // A provider (or a proxy in front of one) reporting 15M + 10M tokens: ingest refuses any field above
    // MAX_CALL_TOKENS and prompt + completion above it (issue 15.2), which would 400 the whole batch.
    const huge = async () =>
      new Response(
        JSON.stringify({
          id: 'chatcmpl-huge',
          object: 'chat.completion',
          created: 1_763_900_000,
          model: 'gpt-4o-mini-2024-07-18',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 15_000_000, completion_tokens: 10_000_000, total_tokens: 25_000_000 },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    const f = wrapFetch(huge, { ...base, endpoint: ingest.url });
    await (await f(OPENAI_URL, chatInit())).json();
    await flush();
    const [event] = await ingest.waitForEvents(1, 3000);
    expectValidClientEvents(ingest.batches.map((b) => b.body));
    expect(MAX_TOKENS).toBe(MAX_CALL_TOKENS);
    expect(event).toMatchObject({ promptTokens: 15_000_000, completionTokens: MAX_CALL_TOKENS - 15_000_000 });
  });

  it('flushes on the interval', async () => {
    const f = wrapFetch(inProcessProvider().fetch, { ...base, endpoint: ingest.url, flushIntervalMs: 150 });
    const start = Date.now();
    await calls(f, 1);
    await ingest.waitForEvents(1, 3000);
    expect(Date.now() - start).toBeGreaterThanOrEqual(100);
  });

  it('reports events dropped from a full buffer with the next flush', async () => {
    const f = wrapFetch(inProcessProvider().fetch, { ...base, endpoint: ingest.url, bufferCapacity: 2 });
    await calls(f, 5);
    await onlyClient().settle();
    expect(onlyClient().stats()).toMatchObject({ buffered: 2, droppedUnreported: 3, droppedTotal: 3 });
    await flush();
    expect(ingest.batches).toHaveLength(1);
    expect(ingest.batches[0]?.body.droppedEvents).toBe(3);
    expect(ingest.events()).toHaveLength(2);
    expectValidClientEvents(ingest.batches.map((b) => b.body));
    expect(onlyClient().stats().droppedUnreported).toBe(0);
  });

  it('retries 503 after its Retry-After, then 500 with backoff, and delivers', async () => {
    const f = wrapFetch(inProcessProvider().fetch, { ...base, endpoint: ingest.url });
    onlyClient().retryPolicy = {
      maxAttempts: 4,
      baseDelayMs: 20,
      maxDelayMs: 50,
      maxRetryAfterMs: 5000,
      attemptTimeoutMs: 2000,
    };
    ingest.script.push({ status: 503, headers: { 'retry-after': '1' } }, { status: 500 });
    await calls(f, 2);
    const result = await flush();
    expect(result).toEqual({ sent: 2, pending: 0, discarded: 0 });
    const [a, b, c] = ingest.attempts;
    expect(ingest.attempts.map((x) => x.status)).toEqual([503, 500, 202]);
    expect((b?.at ?? 0) - (a?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect((c?.at ?? 0) - (b?.at ?? 0)).toBeLessThan(500);
  });

  it('honours a 429 Retry-After given as an HTTP date', async () => {
    const f = wrapFetch(inProcessProvider().fetch, { ...base, endpoint: ingest.url });
    onlyClient().retryPolicy = {
      maxAttempts: 3,
      baseDelayMs: 1,
      maxDelayMs: 1,
      maxRetryAfterMs: 5000,
      attemptTimeoutMs: 2000,
    };
    ingest.script.push({
      status: 429,
      headers: { 'retry-after': new Date(Date.now() + 2000).toUTCString() },
    });
    await calls(f, 1);
    await flush();
    const [a, b] = ingest.attempts;
    expect((b?.at ?? 0) - (a?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(ingest.events()).toHaveLength(1);
  });

  it('keeps the events (and the drop count) when the backend stays down, and delivers them later', async () => {
    const f = wrapFetch(inProcessProvider().fetch, { ...base, endpoint: ingest.url, bufferCapacity: 3 });
    onlyClient().retryPolicy = {
      maxAttempts: 2,
      baseDelayMs: 5,
      maxDelayMs: 5,
      maxRetryAfterMs: 1000,
      attemptTimeoutMs: 1000,
    };
    ingest.script.push({ status: 500 }, { status: 502 });
    await calls(f, 4);
    expect(await flush()).toEqual({ sent: 0, pending: 3, discarded: 0 });
    expect(await flush()).toEqual({ sent: 3, pending: 0, discarded: 0 });
    expect(ingest.batches[0]?.body.droppedEvents).toBe(1);
  });

  it('gives up on a batch the backend rejects (400) without retrying', async () => {
    const f = wrapFetch(inProcessProvider().fetch, { ...base, endpoint: ingest.url });
    ingest.script.push({ status: 400 });
    await calls(f, 2);
    expect(await flush()).toEqual({ sent: 0, pending: 0, discarded: 2 });
    expect(ingest.attempts).toHaveLength(1);
  });

  it('survives a hung ingest and a reset connection', async () => {
    const f = wrapFetch(inProcessProvider().fetch, { ...base, endpoint: ingest.url });
    onlyClient().retryPolicy = {
      maxAttempts: 3,
      baseDelayMs: 5,
      maxDelayMs: 5,
      maxRetryAfterMs: 1000,
      attemptTimeoutMs: 200,
    };
    ingest.script.push('hang', 'reset');
    await calls(f, 1);
    expect(await flush()).toEqual({ sent: 1, pending: 0, discarded: 0 });
    expect(ingest.attempts.map((a) => a.status)).toEqual(['hang', 'reset', 202]);
  });

  it('discards events when no endpoint is configured, without throwing', async () => {
    const f = wrapFetch(inProcessProvider().fetch, { apiKey: TEST_API_KEY, serverFlags: false });
    await calls(f, 2);
    expect(await flush()).toEqual({ sent: 0, pending: 0, discarded: 2 });
  });

  it('stops at the flush deadline and keeps the events', async () => {
    const f = wrapFetch(inProcessProvider().fetch, { ...base, endpoint: ingest.url });
    onlyClient().retryPolicy = {
      maxAttempts: 3,
      baseDelayMs: 5,
      maxDelayMs: 5,
      maxRetryAfterMs: 1000,
      attemptTimeoutMs: 5000,
    };
    ingest.script.push('hang');
    await calls(f, 1);
    const start = Date.now();
    expect(await flush({ timeoutMs: 300 })).toEqual({ sent: 0, pending: 1, discarded: 0 });
    expect(Date.now() - start).toBeLessThan(1500);
  });
});

describe('the event of a call', () => {
  it('keeps the model the request named beside the one that answered (a dated snapshot)', async () => {
    const answering = async (): Promise<Response> =>
      new Response(JSON.stringify(openaiJson('gpt-4o-mini-2024-07-18')), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    const tracked = wrapFetch(answering, { ...base, endpoint: ingest.url });
    await (await tracked(OPENAI_URL, chatInit('gpt-4o-mini'))).json();
    await flush({ timeoutMs: 2000 });
    const [event] = await ingest.waitForEvents(1);
    expect(event).toMatchObject({ model: 'gpt-4o-mini-2024-07-18', requestedModel: 'gpt-4o-mini' });
    expectValidClientEvents(ingest.batches.map((b) => b.body));
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['2', 2000],
    ['0.5', 500],
    ['soon', undefined],
  ])('%s → %s ms', (value, expected) => {
    expect(parseRetryAfter(value, 0)).toBe(expected);
  });

  it('reads an HTTP date', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(parseRetryAfter(new Date(now + 3000).toUTCString(), now)).toBe(3000);
  });
});
