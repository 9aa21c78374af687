/**
 * The built package: both bundles build, import nothing (no packages, no `node:` modules), stay within
 * the size budget, and work — the CommonJS one loaded here, both in a child Node.js process that exits
 * on its own (the `beforeExit` hook must deliver the events).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { fingerprintRequest } from '../../core/fingerprint';
import { buildBundles } from '../scripts/build';
import { appBundle } from '../scripts/size';
import { startFakeIngest, TEST_API_KEY, type FakeIngest } from './helpers/fake-ingest';
import { expectValidClientEvents } from './helpers/schema';

const run = promisify(execFile);
const FIXTURES = join(__dirname, '..', '..', 'core', 'usage', 'fixtures');
let outdir: string;
let bundles: { esm: string; cjs: string; lazy: string[] };
let ingest: FakeIngest;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'sdk-dist-'));
  [bundles, ingest] = await Promise.all([buildBundles(outdir), startFakeIngest()]);
});
afterAll(async () => {
  rmSync(outdir, { recursive: true, force: true });
  await ingest.close();
});
beforeEach(() => {
  ingest.batches.length = 0;
});

describe('the bundles', () => {
  it('import nothing but their own on-demand file: no require(), no import statement, no node: module', () => {
    const cjs = readFileSync(bundles.cjs, 'utf8');
    const esm = readFileSync(bundles.esm, 'utf8');
    const lazy = bundles.lazy.map((file) => readFileSync(file, 'utf8'));
    expect(cjs).not.toMatch(/\brequire\s*\(|\bimport\s*\(/);
    // The ESM entry's imports: the admission readers and the dialect parsers, from the files next to it,
    // each when first needed.
    expect([...esm.matchAll(/\bimport\s*\(([^)]*)\)/g)].map((m) => m[1]).sort()).toEqual([
      '"./admission-readers.mjs"',
      '"./dialect-usage.mjs"',
    ]);
    expect(bundles.lazy.map((file) => basename(file)).sort()).toEqual([
      'admission-readers.mjs',
      'dialect-usage.mjs',
    ]);
    for (const code of [esm, ...lazy]) expect(code).not.toMatch(/^\s*import\b|\bfrom\s*["']/m);
    for (const code of lazy) expect(code).not.toMatch(/\bimport\s*\(/);
    for (const code of [cjs, esm, ...lazy]) {
      expect(code).not.toMatch(/["']node:/);
      expect(code).not.toContain('genai-prices');
      expect(code).not.toContain('gpt-tokenizer');
      expect(code).not.toContain('zod');
    }
  });

  it('export the public API in both formats', () => {
    const esm = readFileSync(bundles.esm, 'utf8');
    for (const name of [
      'initServiceAuto',
      'wrapFetch',
      'verifyService',
      'flush',
      'shutdown',
      'withSpendguard',
      'spendguardMiddleware',
    ]) {
      expect(esm).toMatch(new RegExp(`export\\s*\\{[^}]*\\b${name}\\b`));
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading the built CommonJS bundle is the point
    const sdk = require(bundles.cjs) as Record<string, unknown>;
    expect(Object.keys(sdk).sort()).toEqual(
      [
        'flush',
        'getServiceClient',
        'initServiceAuto',
        'instrumentAwsClient',
        'SpendguardRefusalError',
        'shutdown',
        'spendguardMiddleware',
        'verifyService',
        'withSpendguard',
        'wrapFetch',
      ].sort(),
    );
  });

  // Target 20 KB; ~23.4 KB before issue 12, ~26 KB with the budget lease client and the server-flag
  // state (+2.6 KB), ~27.5 KB with provider-reported costs and web-search fees in the pricing code (issue 13),
  // 27.8 KB with THROTTLED enforced locally and the fingerprint's byte bound (28,508 bytes);
  // 29.8 KB (30,521 bytes) with the Bedrock provider in the shared catalog (its usage reader: Converse,
  // InvokeModel bodies, decoded stream events; no event-stream codec) and 8 Bedrock price rows (issue 20);
  // then with each call's worst case reserved before it is made (issue 18.5: the
  // relay's token bounds, core/admission/request-bound.ts, and the model output-limit table, +~1.2 KB;
  // waiting for a lease answer and failing closed on a refused key, +~0.8 KB);
  // ~14 KB are core/usage parsers and core/pricing (see docs/sdk.md).
  // A regression guard: the size must not grow unnoticed.
  // 33.0 KB (33,805 bytes) with both of the above (issues 18.5 and 20, merged).
  // 35.3 KB (36,116 bytes) once the SDK's worst case is the relay's again after issue 18.6 rewrote it
  // (the relay's own request readers, core/admission/call-shape.ts and top-level-json.ts made Buffer-free,
  // the four dialect readers, the context-window table, the refusal of deferred-billing calls), so a
  // property test can hold the two bounds equal to the nano-dollar.
  // 37.4 KB (38,282 bytes, +2.1 KB) with SHA-256 from @noble/hashes instead of the hand-written one
  // (issue 22.4: node:crypto where the runtime has it, a maintained implementation elsewhere; noble's
  // SHA-256 is 5.4 KB minified against 1.2 KB, its round constants a literal table and its Hash class
  // checked). 37.2 KB (38,118 bytes) with the price table's repeated model names dropped.
  // 34.7 KB (35,582 bytes) with WebCrypto instead of noble where the runtime has no node:crypto (the SDK
  // carries no hash code at all), 34.2 KB (34,997 bytes) with the fallback families' `basis` strings,
  // read by nothing, turned into comments.
  // Issue 22 asks for <= 27.8 KB; what the other 6.4 KB are and why they stay: docs/sdk.md,
  // "Bundle size". `npm run size -w sdk` prints the breakdown.
  // 34.5 KB (35,315 bytes, +297) with Bedrock's OpenAI-compatible endpoints auto-detected (issue 20), an
  // abandoned call keeping its worst case (18.8) and the lease-pending refusal typed budget_busy (18.7).
  // Issue 22 work of 2026-11-26: terser after esbuild (-1.0 KB), the admission readers loaded on demand
  // under a hard cap (-2.5 KB; their own file, 4.9 KB), ES private members (-0.5 KB), core/ repetition
  // folded and Bedrock's stream tally and request-shape reader out of the entry (-1.9 KB): 29,416 bytes;
  // then a process that ends releasing its slice, smaller needs asked first and re-init merging options
  // (acceptance walk, +227): 29,643 bytes; an explicit flush bounded by its own deadline (+73): 29,716
  // (29.0 KB). The Anthropic, Gemini, Bedrock and Ollama usage parsers loaded on demand, when a call to
  // one of them begins (their own file, 7.2 KB; OpenAI-dialect providers need none), both on-demand
  // loads bounded to 5 s: 28,414; one settleWithin for every "promise or timeout" race: 28,378 (27.7 KB).
  const GUARD_BYTES = Math.floor(27.8 * 1024); // issue 22: not larger than 27.8 KB
  it('stays within its size budget, minified and gzipped, for the functions an application imports', async () => {
    const { entry, chunks } = await appBundle();
    expect(gzipSync(entry.text, { level: 9 }).length).toBeLessThanOrEqual(GUARD_BYTES);
    // Loaded on demand, each self-contained: the admission readers once a hard cap may apply, the
    // dialect parsers once a call to Anthropic, Gemini, Bedrock or Ollama begins.
    const sizes = Object.fromEntries(
      chunks.map((c) => [basename(c.path), gzipSync(c.text, { level: 9 }).length]),
    );
    expect(Object.keys(sizes).sort()).toEqual(['admission-readers.mjs', 'dialect-usage.mjs']);
    expect(sizes['admission-readers.mjs']).toBeLessThan(5 * 1024);
    expect(sizes['dialect-usage.mjs']).toBeLessThan(8 * 1024);
  });

  // The published files are minified (63 KB gzipped before, unminified); all exports, both formats.
  const PUBLISHED_GUARD_KB = 41;
  it('publishes minified bundles within their size budget', () => {
    for (const file of [bundles.esm, bundles.cjs]) {
      expect(gzipSync(readFileSync(file), { level: 9 }).length).toBeLessThan(PUBLISHED_GUARD_KB * 1024);
    }
  });

  it('the built CommonJS bundle records a call and delivers a valid event', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading the built CommonJS bundle is the point
    const sdk = require(bundles.cjs) as typeof import('../src');
    const provider = (): Promise<Response> =>
      Promise.resolve(
        new Response(
          JSON.stringify({ model: 'gpt-4o-mini', usage: { prompt_tokens: 5, completion_tokens: 7 } }),
          {
            headers: { 'content-type': 'application/json' },
          },
        ),
      );
    const f = sdk.wrapFetch(provider, { apiKey: TEST_API_KEY, endpoint: ingest.url, serverFlags: false });
    await (
      await f('https://api.openai.com/v1/chat/completions', {
        method: 'POST',
        body: '{"model":"gpt-4o-mini","messages":[]}',
      })
    ).json();
    await sdk.shutdown();
    const events = await ingest.waitForEvents(1);
    expect(events[0]).toMatchObject({
      provider: 'openai',
      promptTokens: 5,
      completionTokens: 7,
      costSource: 'PROVIDER_REGISTRY',
    });
    expectValidClientEvents(ingest.batches.map((b) => b.body));
  });

  const PROGRAM_BODY = JSON.stringify({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'caf\u00e9 \ud83d\ude00 \ud800 lone' }],
  });
  /** How a program loads each built format, the format, and the node flags it runs with. */
  const BOTH_FORMATS = [
    ['CommonJS', (file: string) => `const sdk = require(${JSON.stringify(file)});`, 'cjs' as const, []],
    [
      'ESM',
      (file: string) => `const sdk = await import(${JSON.stringify(`file://${file}`)});`,
      'esm' as const,
      ['--input-type=module'],
    ],
  ] as const;

  /** A program that makes one call through the auto-instrumented fetch and then just ends. */
  const program = (load: string) => `
    ${load}
    globalThis.fetch = ((real) => async (input, init) =>
      String(input).startsWith('https://api.openai.com')
        ? new Response(JSON.stringify({ model: 'gpt-4o', usage: { prompt_tokens: 11, completion_tokens: 3 } }),
            { headers: { 'content-type': 'application/json' } })
        : real(input, init))(globalThis.fetch);
    sdk.initServiceAuto({ apiKey: ${JSON.stringify(TEST_API_KEY)}, endpoint: ${JSON.stringify('INGEST')}, serverFlags: false });
    fetch('https://api.openai.com/v1/chat/completions', { method: 'POST', body: ${JSON.stringify(PROGRAM_BODY)} })
      .then((r) => r.json());
  `;

  it.each(BOTH_FORMATS)(
    '%s: a process that simply ends still delivers its events (beforeExit flush)',
    async (_name, load, format, flags) => {
      const source = program(load(bundles[format])).replace('INGEST', ingest.url);
      await run(process.execPath, [...flags, '-e', source], { timeout: 15_000 });
      const events = await ingest.waitForEvents(1, 2000);
      expect(events[0]).toMatchObject({ model: 'gpt-4o', promptTokens: 11, completionTokens: 3 });
    },
  );

  /** Two calls under a $0.05 hard cap: one whose output bound alone is over it, one well under. */
  const cappedProgram = (load: string) => `
    ${load}
    let providerCalls = 0;
    globalThis.fetch = ((real) => async (input, init) => {
      if (!String(input).startsWith('https://api.openai.com')) return real(input, init);
      providerCalls++;
      return new Response(JSON.stringify({ model: 'gpt-4o', usage: { prompt_tokens: 11, completion_tokens: 3 } }),
        { headers: { 'content-type': 'application/json' } });
    })(globalThis.fetch);
    sdk.initServiceAuto({ apiKey: ${JSON.stringify(TEST_API_KEY)}, endpoint: ${JSON.stringify('INGEST')}, serverFlags: false });
    const call = (maxTokens) => fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-4o', max_tokens: maxTokens, messages: [{ role: 'user', content: 'hi' }] }),
    }).then(async (r) => [r.status, r.status === 429 ? (await r.json()).error.code : null]);
    const big = await call(16000);
    const small = await call(100);
    console.log(JSON.stringify({ big, small, providerCalls }));
    await sdk.shutdown();
  `;

  it.each([
    [
      'ESM (readers loaded from admission-readers.mjs)',
      (file: string) => `const sdk = await import(${JSON.stringify(`file://${file}`)});`,
      'esm' as const,
    ],
  ])('%s: under a hard cap each call is bounded before it is made', async (_name, load, format) => {
    ingest.leases = true;
    ingest.leaseCapUsd = 0.05;
    try {
      const source = cappedProgram(load(bundles[format])).replace('INGEST', ingest.url);
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], {
        timeout: 15_000,
      });
      // gpt-4o's output is $10 per million tokens: 16,000 tokens may cost $0.16, 100 tokens $0.001.
      expect(JSON.parse(stdout)).toEqual({ big: [429, 'hard_cap'], small: [200, null], providerCalls: 1 });
    } finally {
      ingest.leases = false;
      ingest.leaseCapUsd = null;
    }
  });

  it.each([
    ['a hard cap', 1],
    ['no hard cap', null],
  ])(
    'ESM, %s: a key suspended before the process started refuses its very first call (the readers load while the first lease answer is awaited)',
    async (_name, cap) => {
      ingest.leases = true;
      ingest.leaseCapUsd = cap;
      ingest.enforcement = true;
      ingest.flags = [ingest.flag('key')];
      try {
        const load = `const sdk = await import(${JSON.stringify(`file://${bundles.esm}`)});`;
        const source = cappedProgram(load)
          .replace('INGEST', ingest.url)
          .replace('serverFlags: false', 'serverFlags: true');
        const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], {
          timeout: 15_000,
        });
        expect(JSON.parse(stdout)).toEqual({
          big: [429, 'key_suspended'],
          small: [429, 'key_suspended'],
          providerCalls: 0,
        });
      } finally {
        ingest.leases = false;
        ingest.leaseCapUsd = null;
        ingest.enforcement = false;
        ingest.flags = [];
      }
    },
  );

  it.each(BOTH_FORMATS)(
    '%s: under a hard cap, a process that simply ends gives its budget slice back, and ends promptly',
    async (_name, load, format, flags) => {
      ingest.leases = true;
      ingest.leaseCapUsd = 1; // room for the call's worst case: gpt-4o's 16,384 output tokens, $0.16
      ingest.leaseCalls.length = 0;
      try {
        const source = program(load(bundles[format])).replace('INGEST', ingest.url);
        const started = Date.now();
        await run(process.execPath, [...flags, '-e', source], { timeout: 15_000 });
        // The lease wait's 6 s timer, left armed after the answer came, kept such a process alive.
        expect(Date.now() - started).toBeLessThan(4_000);
        const releases = ingest.leaseCalls.filter((c) => c.route === 'release');
        expect(releases).toHaveLength(1);
        // Its one call: 11 prompt and 3 completion tokens of gpt-4o ($2.50 / $10 per million).
        expect(releases[0]!.body.consumedUsd).toBeCloseTo(11 * 2.5e-6 + 3 * 10e-6, 12);
      } finally {
        ingest.leases = false;
        ingest.leaseCapUsd = null;
      }
    },
  );

  /** Anthropic's own answers (the fixtures, as sent); OpenAI's a small JSON answer. */
  const ANTHROPIC_JSON = readFileSync(join(FIXTURES, 'anthropic-message.json'), 'utf8');
  const ANTHROPIC_SSE = readFileSync(join(FIXTURES, 'anthropic-stream.sse'), 'utf8');
  /** A program (built ESM from `dir`) making `calls` through the auto-instrumented fetch; prints the bodies' lengths. */
  const dialectProgram = (dir: string, calls: Array<['openai' | 'anthropic', boolean]>) => `
    const sdk = await import(${JSON.stringify(join(dir, 'index.mjs'))});
    const ANTHROPIC_JSON = ${JSON.stringify(ANTHROPIC_JSON)};
    const ANTHROPIC_SSE = ${JSON.stringify(ANTHROPIC_SSE)};
    globalThis.fetch = ((real) => async (input, init) => {
      const url = String(input);
      if (url.startsWith('https://api.anthropic.com')) {
        const stream = JSON.parse(init.body).stream === true;
        return new Response(stream ? ANTHROPIC_SSE : ANTHROPIC_JSON,
          { headers: { 'content-type': stream ? 'text/event-stream' : 'application/json' } });
      }
      if (url.startsWith('https://api.openai.com'))
        return new Response(JSON.stringify({ model: 'gpt-4o', usage: { prompt_tokens: 11, completion_tokens: 3 } }),
          { headers: { 'content-type': 'application/json' } });
      return real(input, init);
    })(globalThis.fetch);
    sdk.initServiceAuto({ apiKey: ${JSON.stringify(TEST_API_KEY)}, endpoint: ${JSON.stringify(ingest.url)},
      serverFlags: false, serverBudget: false, debug: true });
    const lengths = [];
    for (const [provider, stream] of ${JSON.stringify(calls)}) {
      const openai = provider === 'openai';
      const r = await fetch(openai ? 'https://api.openai.com/v1/chat/completions' : 'https://api.anthropic.com/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: openai ? 'gpt-4o' : 'claude-sonnet-4-5', max_tokens: 100, stream,
          messages: [{ role: 'user', content: 'hi' }] }),
      });
      lengths.push((await r.text()).length);
    }
    console.log('LENGTHS ' + JSON.stringify(lengths));
    await sdk.shutdown();
  `;
  /** Runs a program (its source, or a file) and reads what it printed and the events it delivered. */
  const runProgram = async (program: { source: string } | { file: string }, calls: number) => {
    const args = 'file' in program ? [program.file] : ['--input-type=module', '-e', program.source];
    const { stdout, stderr } = await run(process.execPath, args, { timeout: 15_000 });
    const lengths = JSON.parse(/^LENGTHS (.*)$/m.exec(stdout)![1]!) as number[];
    return { lengths, stderr, events: await ingest.waitForEvents(calls, 2000) };
  };
  const runDialects = (dir: string, calls: Array<['openai' | 'anthropic', boolean]>) =>
    runProgram({ source: dialectProgram(dir, calls) }, calls.length);
  // Anthropic's figures (both fixtures): 10 input + 2,000 cache-read + 500 cache-write tokens, 42 output.
  const ANTHROPIC_EVENT = {
    provider: 'anthropic',
    promptTokens: 2510,
    completionTokens: 42,
    cacheReadTokens: 2000,
    cacheWrite5mTokens: 500,
  };

  it('ESM: Anthropic calls are read by the parser loaded from dialect-usage.mjs, JSON and stream alike', async () => {
    const { lengths, events } = await runDialects(outdir, [
      ['anthropic', false],
      ['anthropic', true],
      ['openai', false],
    ]);
    expect(lengths).toEqual([ANTHROPIC_JSON.length, ANTHROPIC_SSE.length, expect.any(Number)]);
    const anthropic = events.filter((e) => e.provider === 'anthropic');
    expect(anthropic).toEqual([
      expect.objectContaining({ ...ANTHROPIC_EVENT, stream: false }),
      expect.objectContaining({ ...ANTHROPIC_EVENT, stream: true }),
    ]);
    for (const e of anthropic) expect(e).not.toHaveProperty('estimated', true);
    expect(events.find((e) => e.provider === 'openai')).toMatchObject({
      promptTokens: 11,
      completionTokens: 3,
    });
  });

  it('ESM bundled again into one file by an application (esbuild, no splitting): the on-demand files come inline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-app-'));
    try {
      const calls: Array<['openai' | 'anthropic', boolean]> = [
        ['anthropic', false],
        ['anthropic', true],
      ];
      writeFileSync(join(dir, 'app.mjs'), dialectProgram(outdir, calls));
      await build({
        entryPoints: [join(dir, 'app.mjs')],
        outfile: join(dir, 'app.bundle.mjs'),
        bundle: true,
        format: 'esm',
        platform: 'node',
        logLevel: 'silent',
      });
      const bundled = readFileSync(join(dir, 'app.bundle.mjs'), 'utf8');
      expect(bundled).not.toMatch(/\bimport\s*\(\s*["']\.\//); // nothing left to load from next to it
      const { lengths, events } = await runProgram({ file: join(dir, 'app.bundle.mjs') }, calls.length);
      expect(lengths).toEqual([ANTHROPIC_JSON.length, ANTHROPIC_SSE.length]);
      expect(events).toEqual([
        expect.objectContaining({ ...ANTHROPIC_EVENT, stream: false }),
        expect.objectContaining({ ...ANTHROPIC_EVENT, stream: true }),
      ]);
      for (const e of events) expect(e).not.toHaveProperty('estimated', true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ESM without dialect-usage.mjs: OpenAI calls never need it; Anthropic answers pass untouched, estimated', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-no-dialects-'));
    try {
      for (const name of ['index.mjs', 'admission-readers.mjs'])
        writeFileSync(join(dir, name), readFileSync(join(outdir, name)));
      const openai = await runDialects(dir, [['openai', false]]);
      expect(openai.events).toEqual([expect.objectContaining({ promptTokens: 11, completionTokens: 3 })]);
      expect(openai.events[0]).not.toHaveProperty('estimated', true);
      expect(openai.stderr).not.toContain('could not be loaded');
      ingest.batches.length = 0;
      const anthropic = await runDialects(dir, [
        ['anthropic', false],
        ['anthropic', true],
      ]);
      expect(anthropic.lengths).toEqual([ANTHROPIC_JSON.length, ANTHROPIC_SSE.length]);
      expect(anthropic.events).toEqual([
        expect.objectContaining({ provider: 'anthropic', estimated: true }),
        expect.objectContaining({ provider: 'anthropic', estimated: true }),
      ]);
      expect(anthropic.stderr.match(/could not be loaded/g)).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [
      'node:crypto (process.getBuiltinModule)',
      "if (typeof process.getBuiltinModule !== 'function') process.exit(4);",
    ],
    [
      'WebCrypto, a promise (Node.js 20.0–20.15, browsers: no getBuiltinModule)',
      "delete process.getBuiltinModule; if ('getBuiltinModule' in process) process.exit(3);",
    ],
  ])('fingerprints as the server does, hashing with %s', async (_name, setup) => {
    const source = `${setup}\n${program(`const sdk = require(${JSON.stringify(bundles.cjs)});`)}`;
    await run(process.execPath, ['-e', source.replace('INGEST', ingest.url)], { timeout: 15_000 });
    const events = await ingest.waitForEvents(1, 2000);
    expect(events[0]!.fingerprint).toBe(fingerprintRequest('openai', PROGRAM_BODY));
  });

  it('a runtime with no SHA-256 at all (plain-http browser page) still records the call, without a fingerprint', async () => {
    const setup =
      'delete process.getBuiltinModule; delete globalThis.crypto; if (globalThis.crypto !== undefined) process.exit(3);';
    const source = `${setup}\n${program(`const sdk = require(${JSON.stringify(bundles.cjs)});`)}`;
    await run(process.execPath, ['-e', source.replace('INGEST', ingest.url)], { timeout: 15_000 });
    const events = await ingest.waitForEvents(1, 2000);
    expect(events[0]).toMatchObject({ model: 'gpt-4o', promptTokens: 11, completionTokens: 3 });
    expect(events[0]).not.toHaveProperty('fingerprint');
  });

  it('a process whose backend is unreachable still ends promptly', async () => {
    const load = `const sdk = require(${JSON.stringify(bundles.cjs)});`;
    const source = program(load).replace('INGEST', 'http://127.0.0.1:9');
    const start = Date.now();
    await run(process.execPath, ['-e', source], { timeout: 15_000 });
    expect(Date.now() - start).toBeLessThan(10_000);
  });
});
