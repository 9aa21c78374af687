/**
 * Issue 15.9: no provider credential in any log. The relay writes nothing but EMF metric lines; this
 * proves that a call carrying credentials in every place a client puts them (Authorization, x-api-key,
 * x-goog-api-key, Gemini's `?key=`) leaves none of them in anything the relay writes to stdout/stderr,
 * in its metrics, or in the event it records.
 */
import { randomBytes } from 'node:crypto';
import { generateApiKey, hashApiKey } from '../../core/keys';
import { MemoryApiKeyStore, MemoryEventSink } from '../../local/proxy/memory-stores';
import { startMockProviders, type MockProviders } from '../../local/mock-providers';
import { EmfMetrics } from '../edge-guard/metrics';
import { ApiKeyAuthenticator } from '../shared/api-key-auth';
import { Relay } from './relay';

const PEPPER = 'no-credential-logs-pepper-0123456789';
const SECRETS = {
  bearer: 'sk-proj-NEVERLOG-bearer-4f1c9a',
  anthropic: 'sk-ant-NEVERLOG-xapikey-77aa',
  goog: 'AIzaNEVERLOG-googheader-91bb',
  query: 'AIzaNEVERLOG-querykey-33cc',
};

let mock: MockProviders;
beforeAll(async () => {
  mock = await startMockProviders({ port: 0 });
});
afterAll(() => mock.close());

it('leaves no provider credential in stdout, stderr, metrics or the recorded event', async () => {
  const keys = new MemoryApiKeyStore();
  const k = generateApiKey((n) => randomBytes(n));
  await keys.create({
    publicId: k.publicId,
    orgId: 'org_logs',
    prefix: k.prefix,
    hash: hashApiKey(k.apiKey, PEPPER),
    name: 't',
    createdAt: '',
    revokedAt: null,
  });
  const sink = new MemoryEventSink();
  const written: string[] = [];
  const relay = new Relay({
    keys: new ApiKeyAuthenticator({ keys, pepper: async () => PEPPER }),
    sink,
    upstreams: mock.baseUrls,
    metrics: new EmfMetrics({ service: 'relay', write: (line) => written.push(line) }),
  });
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  const consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
    jest
      .spyOn(console, m)
      .mockImplementation((...args: unknown[]) => void written.push(args.map(String).join(' '))),
  );
  let status = 0;
  try {
    for (const url of [
      `/openai/v1/chat/completions?key=${SECRETS.query}`,
      `/openai/v1/nope?key=${SECRETS.query}`,
    ]) {
      await relay.handle(
        {
          method: 'POST',
          url,
          headers: {
            'service-api-key': k.apiKey,
            authorization: `Bearer ${SECRETS.bearer}`,
            'x-api-key': SECRETS.anthropic,
            'x-goog-api-key': SECRETS.goog,
            'content-type': 'application/json',
          },
          body: Buffer.from(
            JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
          ),
        },
        {
          keepsContentLength: true,
          start: (s) => {
            status = status || s;
            return { write: () => true, end: () => undefined } as never;
          },
        },
      );
    }
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    for (const spy of consoleSpies) spy.mockRestore();
    relay.destroy();
  }
  expect(status).toBe(200); // the call really went through the relay
  expect(sink.envelopes.length).toBeGreaterThan(0);
  const everything = [...written, JSON.stringify(sink.envelopes)].join('\n');
  for (const secret of Object.values(SECRETS)) expect(everything).not.toContain(secret);
  // The credentials did reach the provider: the relay forwards them, it just never writes them down.
  expect(JSON.stringify(mock.requests())).toContain(SECRETS.bearer);
});
