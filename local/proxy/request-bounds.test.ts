/**
 * Issue 15.1 at the level where it bites: one adversarial request must not stall the local proxy for
 * everyone else. The mock providers run in a child process, so only the proxy's own work on the big
 * body (fingerprint, model scan, estimates) shares the event loop with the small calls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';
import { startProxyHarness, type ProxyHarness } from './test-support';

jest.setTimeout(120_000);

const children: ChildProcess[] = [];
let h: ProxyHarness;

/** Mock providers in a child process; resolves with their base URLs. */
async function mockProcess(): Promise<Record<string, string>> {
  const root = join(__dirname, '..', '..');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'test', 'mock-providers-process.ts')],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`mock providers exited (${code})`)));
  });
  return (JSON.parse(line) as { baseUrls: Record<string, string> }).baseUrls;
}

beforeAll(async () => {
  // Two processes: the one answering the big body spends its own time parsing it; the small calls
  // go to the other (an upstream busy with someone else's body is not the proxy's doing).
  const [small, big] = await Promise.all([mockProcess(), mockProcess()]);
  h = await startProxyHarness({
    proxy: { upstreams: { openai: small.openai!, openrouter: big.openrouter! } },
  });
});

afterAll(async () => {
  await h?.close();
  for (const c of children) c.stdin?.end();
});

/**
 * Posts, from a child process, a chat body of about `bytes` bytes whose one message holds an object
 * of reverse-ordered keys (the key sort's worst case); resolves with the status. The sender is a
 * child so that building and writing the body does not run on this (the proxy's) event loop.
 */
function postAdversarial(url: string, apiKey: string, bytes: number): Promise<number> {
  const script = `
    const members = []; let size = 80;
    for (let i = 10000000; size < ${bytes}; i--) { const m = '"k' + i + '":' + i; members.push(m); size += m.length + 1; }
    const body = Buffer.from('{"model":"gpt-4o","messages":[{"role":"user","content":"hi","extra":{' + members.join(',') + '}}]}');
    const req = require('node:http').request(process.argv[1], { method: 'POST', headers: {
      'content-type': 'application/json', authorization: 'Bearer sk-x', 'service-api-key': process.argv[2] } },
      (res) => { res.resume(); res.on('end', () => { console.log(res.statusCode); }); });
    req.end(body);`;
  const child = spawn(process.execPath, ['-e', script, url, apiKey], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (l) => resolve(Number(l)));
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`sender exited (${code})`))));
  });
}

let smallCalls = 0;

/** One small chat call, a different one each time (the same one 4 times in a row is a loop: issue 19.6). */
async function smallCall(client: OpenAI): Promise<number> {
  const content = `hi ${++smallCalls}`;
  const t0 = performance.now();
  await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
  return performance.now() - t0;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

it('a 6 MB adversarial body adds at most 50 ms to a concurrent small call', async () => {
  const client = new OpenAI({
    apiKey: 'sk-test-provider-credential',
    baseURL: `${h.proxy.url}/openai/v1`,
    defaultHeaders: { 'Service-API-Key': h.apiKey },
    maxRetries: 0,
  });
  for (let i = 0; i < 10; i++) await smallCall(client); // warm-up: first calls compile and connect
  const baseline: number[] = [];
  for (let i = 0; i < 30; i++) baseline.push(await smallCall(client));
  const base = median(baseline);

  let bigDone = false;
  const bigCall = postAdversarial(
    `${h.proxy.url}/openrouter/api/v1/chat/completions`,
    h.apiKey,
    6 * 1024 * 1024,
  ).finally(() => (bigDone = true));
  const during: number[] = [];
  // Small calls, one after another, for as long as the big one is in flight (and through its event).
  while (!bigDone || during.length < 5) during.push(await smallCall(client));
  expect(await bigCall).toBe(200);
  await h.proxy.idle();

  // The big call's event was recorded, with a fingerprint (the raw-bytes fallback: over the bounds).
  const bigEvents = h.sink.events().filter((e) => e.provider === 'openrouter');
  expect(bigEvents).toHaveLength(1);
  expect(bigEvents[0]!.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  // The calls made meanwhile took at most 50 ms longer than before (medians: on a shared machine any
  // one call can meet a GC pause or the scheduler; before the fix the proxy froze and none returned).
  expect(during.length).toBeGreaterThanOrEqual(5);
  expect(median(during)).toBeLessThanOrEqual(base + 50);
});
