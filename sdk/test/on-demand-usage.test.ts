/**
 * The dialect parsers the published ESM build loads on demand (`on-demand-usage.ts`): whatever the
 * moment the load ends, the result is the loaded parser's own, on the providers' real responses; a
 * failed load reads nothing (the client estimates) and is tried again.
 */
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import fc from 'fast-check';
import { startMockBedrock } from '../../local/mock-providers/bedrock';
import { getProvider } from '../../core/providers/catalog';
import { fixtureBytes, fixtureJson, splitAt, STREAM_FIXTURES } from '../../core/usage/fixtures/load';
import type { UsageParser, UsageResult, UsageStream } from '../../core/usage/types';
import * as standIns from '../src/on-demand-usage';
import { startFakeIngest, type FakeIngest } from './helpers/fake-ingest';
import { ANTHROPIC_URL, inProcessProvider } from './helpers/in-process';
import { MAX_HELD_BYTES, MAX_LOAD_WAIT_MS, OnDemandParser, usageParserLoading } from '../src/on-demand-usage';
import type { ServiceOptions } from '../src/types';

/** A parser whose load ends when the test says so. */
function gated(real: UsageParser): {
  parser: OnDemandParser;
  open: () => Promise<unknown>;
  loads: () => number;
} {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let loads = 0;
  const parser = new OnDemandParser(() => {
    loads++;
    return gate.then(() => real);
  });
  return {
    parser,
    open: () => {
      release();
      return parser.loading() ?? Promise.resolve();
    },
    loads: () => loads,
  };
}

function streamed(parser: UsageParser, chunks: Uint8Array[]): UsageResult {
  const s = parser.stream({});
  for (const c of chunks) s.push(c);
  return s.end();
}

// The dialects the build loads on demand: every stream fixture of theirs.
const ON_DEMAND = STREAM_FIXTURES.filter(([provider]) => ['anthropic', 'gemini', 'llama'].includes(provider));

describe.each(ON_DEMAND)('%s stream %s', (provider, file) => {
  const real = getProvider(provider)!.usage;
  const bytes = fixtureBytes(file);
  const whole = streamed(real, [bytes]);

  it('gives the loaded parser’s result for any chunking and any moment the load ends', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: bytes.length }), { maxLength: 24 }),
        fc.nat(),
        async (offsets, at) => {
          const chunks = splitAt(bytes, offsets);
          const loadAfter = at % (chunks.length + 1); // 0: before the first chunk; length: after the last
          const { parser, open } = gated(real);
          const s = parser.stream({});
          for (let i = 0; i < chunks.length; i++) {
            if (i === loadAfter) await open();
            s.push(chunks[i]!);
          }
          if (loadAfter === chunks.length) await open();
          expect(s.end()).toEqual(whole);
        },
      ),
      { numRuns: 60 },
    );
  });
});

it('holds a copy of each chunk: the application may reuse the buffer it was handed', async () => {
  const real = getProvider('anthropic')!.usage;
  const bytes = fixtureBytes('anthropic-stream.sse');
  const { parser, open } = gated(real);
  const s = parser.stream({});
  const chunk = bytes.slice();
  s.push(chunk);
  chunk.fill(0x20); // spaces: no usage frame left in it
  await open();
  expect(s.end()).toEqual(streamed(real, [bytes]));
});

it('reads JSON once loaded; before, or after a failed load, it reads nothing', async () => {
  const real = getProvider('anthropic')!.usage;
  const body = fixtureJson('anthropic-message.json');
  let fail = true;
  let loads = 0;
  const parser = new OnDemandParser(async () => {
    loads++;
    if (fail) throw new Error('Cannot find module dialect-usage.mjs');
    return real;
  });
  expect(parser.fromJson(body, {})).toEqual({ ok: false, reason: 'usage parser not loaded' });
  // A failed load settles with its error (it never rejects), and the next call tries again.
  const error = await usageParserLoading(parser);
  expect(String(error)).toContain('dialect-usage.mjs');
  expect(parser.fromJson(body, {})).toEqual({ ok: false, reason: 'usage parser not loaded' });
  fail = false;
  expect(await usageParserLoading(parser)).toBeUndefined();
  expect(loads).toBe(2);
  expect(usageParserLoading(parser)).toBeNull();
  expect(parser.fromJson(body, {})).toEqual(real.fromJson(body, {}));
  // A parser of the bundle itself never loads.
  expect(usageParserLoading(real)).toBeNull();
});

it('a load that never ends is waited for at most MAX_LOAD_WAIT_MS (a call is then recorded as an estimate)', async () => {
  jest.useFakeTimers();
  try {
    const parser = new OnDemandParser(() => new Promise<UsageParser>(() => undefined));
    let settled: unknown = 'pending';
    void usageParserLoading(parser)!.then((v) => (settled = v));
    await jest.advanceTimersByTimeAsync(MAX_LOAD_WAIT_MS - 1);
    expect(settled).toBe('pending');
    await jest.advanceTimersByTimeAsync(1);
    expect(String(settled)).toContain(`not loaded within ${MAX_LOAD_WAIT_MS} ms`);
    expect(parser.fromJson(fixtureJson('anthropic-message.json'), {})).toEqual({
      ok: false,
      reason: 'usage parser not loaded',
    });
  } finally {
    jest.useRealTimers();
  }
});

describe('the bytes held while loading are bounded', () => {
  /** A stream parser that reports how many bytes it was fed. */
  const counting: UsageParser = {
    fromJson: () => ({ ok: false, reason: 'unused' }),
    stream: (): UsageStream => {
      let n = 0;
      return {
        push: (c) => void (n += c.byteLength),
        end: () => ({ ok: false, reason: `${n} bytes` }),
      };
    },
  };

  it.each([
    ['exactly at the bound: all replayed', MAX_HELD_BYTES, `${MAX_HELD_BYTES + 1} bytes`],
    ['one byte past it: the usage is not read', MAX_HELD_BYTES + 1, 'stream too long'],
  ])('%s', async (_name, before, reason) => {
    const { parser, open } = gated(counting);
    const s = parser.stream({});
    s.push(new Uint8Array(before - 1));
    s.push(new Uint8Array(1));
    await open();
    s.push(new Uint8Array(1));
    const result = s.end();
    expect(result.ok).toBe(false);
    expect((result as { reason: string }).reason).toContain(reason);
  });
});

it('the stand-ins load the real dialect parsers (dialect-usage.ts) and answer as they do', async () => {
  const cases: Array<[UsageParser, string, string]> = [
    [standIns.anthropicUsage, 'anthropic', 'anthropic-message.json'],
    [standIns.geminiUsage, 'gemini', 'gemini-generate.json'],
    [standIns.ollamaUsage, 'llama', 'ollama-chat.json'],
    [standIns.bedrockUsage, 'bedrock', 'bedrock/converse-claude-cache.json'],
  ];
  for (const [standIn, provider, file] of cases) {
    expect(await usageParserLoading(standIn)).toBeUndefined();
    const body = fixtureJson(file);
    const ctx = {
      url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/converse',
    };
    const expected = getProvider(provider)!.usage.fromJson(body, ctx);
    expect(expected.ok).toBe(true);
    expect(standIn.fromJson(body, ctx)).toEqual(expected);
  }
});

describe('a client whose Anthropic parser loads on demand (as in the ESM build)', () => {
  type Sdk = typeof import('../src');
  let ingest: FakeIngest;
  beforeAll(async () => {
    ingest = await startFakeIngest();
  });
  afterAll(() => ingest.close());
  beforeEach(() => ingest.reset());

  /** Fresh SDK modules whose catalog's Anthropic entry has a stand-in that loads when `open` says. */
  function sdkWithGatedAnthropic(fails = false): { sdk: Sdk; open: () => void; loads: () => number } {
    return sdkWithGated('anthropic', fails);
  }

  /** Fresh SDK modules whose catalog's entry for `dialect` has a stand-in that loads when `open` says. */
  function sdkWithGated(
    dialect: 'anthropic' | 'bedrock',
    fails = false,
  ): { sdk: Sdk; open: () => void; loads: () => number } {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let loads = 0;
    let sdk: Sdk | undefined;
    jest.isolateModules(() => {
      jest.doMock(`../../core/usage/${dialect}`, () => {
        const actual = jest.requireActual<Record<string, UsageParser>>(`../../core/usage/${dialect}`);
        const { OnDemandParser: Stand } =
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- the isolated registry's instance
          require('../src/on-demand-usage') as typeof import('../src/on-demand-usage');
        const standIn = new Stand(() => {
          loads++;
          return gate.then(() => {
            if (fails) throw new Error('Cannot find module ./dialect-usage.mjs');
            return actual[`${dialect}Usage`]!;
          });
        });
        return { ...actual, [`${dialect}Usage`]: standIn };
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- fresh module instances
      sdk = require('../src') as Sdk;
    });
    jest.dontMock(`../../core/usage/${dialect}`);
    return { sdk: sdk!, open: release, loads: () => loads };
  }

  /** A client reporting to the fake ingest, without server flags or a lease (the parser is the subject). */
  const clientOptions = (extra: ServiceOptions = {}): ServiceOptions => ({
    apiKey: 'abn_test_secret',
    endpoint: ingest.url,
    serverFlags: false,
    serverBudget: false,
    ...extra,
  });
  const messages = (stream: boolean): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      stream,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });

  it.each([
    ['JSON', false],
    ['a stream', true],
  ])(
    '%s read before the parser is there is recorded with the usage the provider reported',
    async (_n, stream) => {
      const { sdk, open, loads } = sdkWithGatedAnthropic();
      const provider = inProcessProvider();
      const f = sdk.wrapFetch(provider.fetch, clientOptions()) as typeof fetch;
      try {
        const response = await f(ANTHROPIC_URL, messages(stream));
        await response.text(); // the application has its whole answer; the parser is still loading
        expect(loads()).toBe(1);
        await sdk.flush({ timeoutMs: 200 });
        expect(ingest.events()).toHaveLength(0); // held until the parser is there, not recorded as a guess
        open();
        await sdk.flush();
        // anthropicJson / anthropicSse: 25 input + 100 cache-read tokens (input counts the cache), 15 output.
        expect(ingest.events()).toEqual([
          expect.objectContaining({ provider: 'anthropic', promptTokens: 125, completionTokens: 15, stream }),
        ]);
        expect(ingest.events()[0]).not.toHaveProperty('estimated', true);
      } finally {
        open();
        await sdk.shutdown({ timeoutMs: 500 });
      }
    },
  );

  it('an AWS SDK Converse call is read by the Bedrock parser once it has loaded', async () => {
    const { sdk, open } = sdkWithGated('bedrock');
    const bedrock = await startMockBedrock();
    try {
      const client = sdk.instrumentAwsClient(
        new BedrockRuntimeClient({
          region: 'us-east-1',
          endpoint: bedrock.url,
          credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
        }),
        clientOptions(),
      );
      const out = await client.send(
        new ConverseCommand({
          modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
          messages: [{ role: 'user', content: [{ text: 'Which clause covers termination?' }] }],
          inferenceConfig: { maxTokens: 300 },
        }),
      );
      await sdk.flush({ timeoutMs: 200 });
      expect(ingest.events()).toHaveLength(0);
      open();
      await sdk.flush();
      expect(ingest.events()).toEqual([
        expect.objectContaining({
          provider: 'bedrock',
          promptTokens: out.usage!.inputTokens,
          completionTokens: out.usage!.outputTokens,
        }),
      ]);
      expect(ingest.events()[0]).not.toHaveProperty('estimated', true);
    } finally {
      open();
      await sdk.shutdown({ timeoutMs: 500 });
      await bedrock.close();
    }
  });

  it('a parser that cannot be loaded: the answer is untouched, the call recorded as an estimate, one warning', async () => {
    const { sdk, open } = sdkWithGatedAnthropic(true);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const provider = inProcessProvider();
    // The SDK writes its warnings only when asked to.
    const f = sdk.wrapFetch(provider.fetch, clientOptions({ debug: true })) as typeof fetch;
    try {
      open();
      const bodies = [];
      for (let i = 0; i < 2; i++) bodies.push(await (await f(ANTHROPIC_URL, messages(false))).json());
      expect(bodies[0]).toMatchObject({ type: 'message', usage: { input_tokens: 25, output_tokens: 15 } });
      await sdk.flush();
      const events = ingest.events();
      expect(events).toHaveLength(2);
      for (const e of events) expect(e).toMatchObject({ provider: 'anthropic', estimated: true });
      const warnings = warn.mock.calls.filter((c) => String(c[0]).includes('could not be loaded'));
      expect(warnings).toHaveLength(1);
    } finally {
      warn.mockRestore();
      await sdk.shutdown({ timeoutMs: 500 });
    }
  });

  it('under a block budget, the first call waits for the parser: its cost is counted before the next call', async () => {
    const { sdk, open } = sdkWithGatedAnthropic();
    const provider = inProcessProvider();
    const f = sdk.wrapFetch(
      provider.fetch,
      clientOptions({ budget: { dailyLimitUsd: 0.0001, action: 'block' } }),
    ) as typeof fetch;
    try {
      const first = f(ANTHROPIC_URL, messages(false));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(provider.calls).toHaveLength(0); // not sent while its parser loads
      open();
      const response = await first;
      expect(response.status).toBe(200);
      await response.json();
      // 125 input and 15 output tokens of Claude Sonnet 4.5 cost more than $0.0001: the next call is refused.
      const second = await f(ANTHROPIC_URL, messages(false));
      expect(second.status).toBe(429);
      expect(provider.calls).toHaveLength(1);
    } finally {
      open();
      await sdk.shutdown({ timeoutMs: 500 });
    }
  });
});
