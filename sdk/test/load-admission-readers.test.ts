/**
 * The admission readers (a call's worst case) are loaded only once a hard cap may apply: a client whose
 * organization has none (`capped: false`) never loads them; a capped answer loads them before the next
 * call needs them. Each test gets fresh module instances (the loader keeps what it loaded).
 */
import { startFakeIngest, TEST_API_KEY, type FakeIngest } from './helpers/fake-ingest';
import { chatInit, OPENAI_URL } from './helpers/in-process';
import { MAX_LOAD_WAIT_MS } from '../src/on-demand-usage';
import { sdkState } from '../src/tracked-fetch';

let ingest: FakeIngest;
beforeAll(async () => {
  ingest = await startFakeIngest();
});
afterAll(() => ingest.close());
beforeEach(() => {
  ingest.reset();
  ingest.leases = true;
});

type Sdk = typeof import('../src');
type Loader = typeof import('../src/load-admission-readers');

/** The SDK and the loader it uses, as fresh modules. */
function freshSdk(): { sdk: Sdk; loader: Loader } {
  let pair: { sdk: Sdk; loader: Loader } | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- fresh module instances
    pair = { sdk: require('../src') as Sdk, loader: require('../src/load-admission-readers') as Loader };
  });
  return pair!;
}

const provider = (async () =>
  new Response(JSON.stringify({ model: 'gpt-4o-mini', usage: { prompt_tokens: 10, completion_tokens: 2 } }), {
    headers: { 'content-type': 'application/json' },
  })) as typeof fetch;

it('an organization without a hard cap never loads them', async () => {
  ingest.leaseCapUsd = null;
  const { sdk, loader } = freshSdk();
  const f = sdk.wrapFetch(provider, { apiKey: TEST_API_KEY, endpoint: ingest.url }) as typeof fetch;
  try {
    for (let i = 0; i < 3; i++) expect((await f(OPENAI_URL, chatInit())).status).toBe(200);
    expect(ingest.leaseCalls.length).toBeGreaterThan(0);
    expect(loader.admissionReaders()).toBeUndefined();
  } finally {
    await sdk.shutdown({ timeoutMs: 500 });
  }
});

it('nor does a client whose backend cannot be reached (no cap known: it fails open, counted)', async () => {
  const { sdk, loader } = freshSdk();
  const f = sdk.wrapFetch(provider, { apiKey: TEST_API_KEY, endpoint: 'http://127.0.0.1:9' }) as typeof fetch;
  try {
    for (let i = 0; i < 3; i++) expect((await f(OPENAI_URL, chatInit())).status).toBe(200);
    expect(loader.admissionReaders()).toBeUndefined();
    const client = [...sdkState().clients.values()].find((c) => !c.isClosed);
    expect(client?.stats().failOpen).toBe(3);
  } finally {
    await sdk.shutdown({ timeoutMs: 500 });
  }
});

it('a capped organization loads them, and its calls are reserved with them', async () => {
  ingest.leaseCapUsd = 10;
  const { sdk, loader } = freshSdk();
  const f = sdk.wrapFetch(provider, { apiKey: TEST_API_KEY, endpoint: ingest.url }) as typeof fetch;
  try {
    expect(loader.admissionReaders()).toBeUndefined();
    const response = await f(OPENAI_URL, chatInit());
    expect(response.status).toBe(200);
    await response.text();
    expect(loader.admissionReaders()).toBeDefined();
    await sdk.flush();
    expect(ingest.events()[0]).toMatchObject({ leased: true });
  } finally {
    await sdk.shutdown({ timeoutMs: 500 });
  }
});

it('a load that never ends: a call under the cap is refused, retryable, after MAX_LOAD_WAIT_MS, not held for ever', async () => {
  ingest.leaseCapUsd = 10;
  let sdk: Sdk | undefined;
  jest.isolateModules(() => {
    // A bundler's chunk fetched over a network that stalls: the import never settles.
    jest.doMock('../src/load-admission-readers', () => ({
      admissionReaders: () => undefined,
      loadAdmissionReaders: () => new Promise<never>(() => undefined),
    }));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- fresh module instances
    sdk = require('../src') as Sdk;
  });
  jest.dontMock('../src/load-admission-readers');
  const f = sdk!.wrapFetch(provider, { apiKey: TEST_API_KEY, endpoint: ingest.url }) as typeof fetch;
  try {
    const started = Date.now();
    const response = await f(OPENAI_URL, chatInit());
    const waited = Date.now() - started;
    expect(response.status).toBe(429);
    expect(response.headers.get('x-should-retry')).toBe('true');
    expect(waited).toBeGreaterThanOrEqual(MAX_LOAD_WAIT_MS - 50);
    expect(waited).toBeLessThan(MAX_LOAD_WAIT_MS + 3_000);
  } finally {
    await sdk!.shutdown({ timeoutMs: 500 });
  }
}, 20_000);
