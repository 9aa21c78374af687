/**
 * Flushing before a Lambda invocation ends: the plain wrapper and the middy middleware (with the real
 * @middy/core, which the SDK does not depend on: the middleware is only structurally compatible).
 */
import middy from '@middy/core';
import { shutdown, spendguardMiddleware, withSpendguard, wrapFetch } from '../src';
import { startFakeIngest, TEST_API_KEY, type FakeIngest } from './helpers/fake-ingest';
import { chatInit, inProcessProvider, OPENAI_URL } from './helpers/in-process';

let ingest: FakeIngest;
beforeAll(async () => {
  ingest = await startFakeIngest();
});
afterAll(() => ingest.close());
beforeEach(() => {
  ingest.batches.length = 0;
  ingest.script.length = 0;
});
afterEach(() => shutdown({ timeoutMs: 200 }));

const context = { getRemainingTimeInMillis: () => 3000 };

function trackedFetch(): typeof fetch {
  // a long interval: only the end-of-invocation flush can deliver the event in time
  return wrapFetch(inProcessProvider().fetch, {
    apiKey: TEST_API_KEY,
    endpoint: ingest.url,
    flushIntervalMs: 3_600_000,
    serverFlags: false,
  }) as typeof fetch;
}

describe('withSpendguard', () => {
  it('flushes before the invocation returns, and passes the result through', async () => {
    const f = trackedFetch();
    const handler = withSpendguard(async (event: { n: number }) => {
      await (await f(OPENAI_URL, chatInit())).json();
      return { statusCode: 200, body: String(event.n) };
    });
    await expect(handler({ n: 7 }, context)).resolves.toEqual({ statusCode: 200, body: '7' });
    expect(ingest.events()).toHaveLength(1);
  });

  it('flushes and rethrows when the handler fails', async () => {
    const f = trackedFetch();
    const failure = new Error('handler failed');
    const handler = withSpendguard(async () => {
      await (await f(OPENAI_URL, chatInit())).json();
      throw failure;
    });
    await expect(handler({}, context)).rejects.toBe(failure);
    expect(ingest.events()).toHaveLength(1);
  });

  it('bounds the flush by the remaining time and never fails the invocation', async () => {
    const f = trackedFetch();
    ingest.script.push('hang');
    const handler = withSpendguard(async () => {
      await (await f(OPENAI_URL, chatInit())).json();
      return 'done';
    });
    const start = Date.now();
    await expect(handler({}, { getRemainingTimeInMillis: () => 800 })).resolves.toBe('done');
    expect(Date.now() - start).toBeLessThan(2000);
  });
});

describe('spendguardMiddleware', () => {
  it('works as a middy middleware: flushes after the handler', async () => {
    const f = trackedFetch();
    const handler = middy(async () => {
      await (await f(OPENAI_URL, chatInit())).json();
      return 'ok';
    }).use(spendguardMiddleware());
    await expect(handler({}, context as never)).resolves.toBe('ok');
    expect(ingest.events()).toHaveLength(1);
  });

  it('flushes on error and leaves the error to middy', async () => {
    const f = trackedFetch();
    const failure = new Error('boom');
    const handler = middy(async () => {
      await (await f(OPENAI_URL, chatInit())).json();
      throw failure;
    }).use(spendguardMiddleware({ flushTimeoutMs: 1000 }));
    await expect(handler({}, context as never)).rejects.toBe(failure);
    expect(ingest.events()).toHaveLength(1);
  });
});
