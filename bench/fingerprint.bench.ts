/**
 * Fingerprint of a realistic 1 MB chat-completions body (a long agent conversation with tools),
 * in each input form the callers have: bytes (the relay), a string (the SDK), a parsed object.
 * Beside it: the hash alone (the floor) and the naive JSON.parse + sorted stringify + hash.
 * Target: ≤ 1 ms for 1 MB.
 *
 * Adversarial rows (issue 15.1): one object of reverse-ordered keys (the old insertion sort's worst
 * case, 9.7 s for 0.8 MB) at the value bound, and a 6 MB one past every bound (raw-bytes fallback).
 * Target: whatever the body, ≤ 50 ms (the most it may delay a concurrent call through the proxy).
 */
import { createHash } from 'node:crypto';
import {
  FINGERPRINT_BOUNDS,
  canonicalRequest,
  canonicalizeJsonText,
  canonicalizeValue,
  fingerprintRequest,
} from '../core/fingerprint';

const TARGET_MS = 1;
const TARGET_BYTES = 1_000_000;
const ADVERSARIAL_TARGET_MS = 50;

/** Deterministic pseudo-random numbers (mulberry32), so every run measures the same body. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the agent calls a tool and reads the result then it decides what to do next with the file ' +
  'function returns value error retry request response token budget cache stream parse handler ' +
  'config deploy lambda region table index query schema user message content system model café naïve — “quoted”'
).split(' ');

const CODE = [
  'export async function handler(event: APIGatewayProxyEventV2): Promise<Result> {',
  '  const body = JSON.parse(event.body ?? "{}") as Record<string, unknown>;',
  '  if (!body.apiKey) throw new Error(\'missing "apiKey"\');',
  '  for (const item of items) {',
  '    total += item.tokens * price; // \\u00e9 stays escaped in source',
  '  }',
  '  return { statusCode: 200, body: JSON.stringify({ ok: true }) };',
  '}',
  '\tconsole.log(`done in ${ms} ms`); 🚀',
];

/** A chat body of about `bytes` bytes: system prompt, 24 tools, user / assistant / tool turns. */
export function realisticChatBody(bytes = TARGET_BYTES, seed = 42): Record<string, unknown> {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const sentence = (): string => {
    const n = 6 + Math.floor(r() * 14);
    const w: string[] = [];
    for (let i = 0; i < n; i++) w.push(pick(WORDS));
    return w.join(' ') + '.';
  };
  const prose = (sentences: number): string => {
    const out: string[] = [];
    for (let i = 0; i < sentences; i++) out.push(sentence() + (r() < 0.2 ? '\n\n' : ' '));
    return out.join('');
  };
  const code = (lines: number): string => {
    const out: string[] = [];
    for (let i = 0; i < lines; i++) out.push(pick(CODE));
    return out.join('\n');
  };
  const tools = Array.from({ length: 24 }, (_, i) => ({
    type: 'function',
    function: {
      name: `tool_${i}`,
      description: prose(2),
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: sentence() },
          query: { type: 'string', description: sentence() },
          limit: { type: 'integer', minimum: 1, maximum: 1000 },
          recursive: { type: 'boolean' },
        },
        required: ['path'],
        additionalProperties: false,
      },
    },
  }));
  const messages: Array<Record<string, unknown>> = [{ role: 'system', content: prose(60) }];
  const body: Record<string, unknown> = {
    model: 'gpt-4o-2024-08-06',
    temperature: 0.2,
    max_tokens: 4096,
    stream: true,
    stream_options: { include_usage: true },
    user: 'agent-7',
    metadata: { run: 'bench' },
    messages,
    tools,
  };
  let size = JSON.stringify(body).length;
  for (let turn = 0; size < bytes; turn++) {
    const m: Record<string, unknown> =
      turn % 3 === 0
        ? { role: 'user', content: prose(3 + Math.floor(r() * 12)) }
        : turn % 3 === 1
          ? {
              role: 'assistant',
              content: prose(1 + Math.floor(r() * 3)),
              tool_calls: [
                {
                  id: `call_${turn}`,
                  type: 'function',
                  function: {
                    name: `tool_${turn % 24}`,
                    arguments: JSON.stringify({ path: `src/file_${turn}.ts`, limit: 200, recursive: false }),
                  },
                },
              ],
            }
          : { role: 'tool', tool_call_id: `call_${turn - 1}`, content: code(20 + Math.floor(r() * 80)) };
    messages.push(m);
    size += JSON.stringify(m).length + 1;
  }
  return body;
}

/** About `bytes` bytes of chat body whose one message holds an object of keys in descending order. */
export function adversarialChatBody(bytes: number): Buffer {
  const members: string[] = [];
  let size = 80;
  for (let i = 10_000_000; size < bytes; i--) {
    const m = `"k${i}":${i}`;
    members.push(m);
    size += m.length + 1;
  }
  return Buffer.from(
    `{"model":"gpt-4o","messages":[{"role":"user","content":"hi","extra":{${members.join(',')}}}]}`,
  );
}

interface Timing {
  min: number;
  p50: number;
  p99: number;
}

function measure(fn: () => unknown, iterations = 400, warmup = 60): Timing {
  for (let i = 0; i < warmup; i++) fn();
  const ms: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { min: ms[0]!, p50: ms[Math.floor(iterations * 0.5)]!, p99: ms[Math.floor(iterations * 0.99)]! };
}

export default async function (): Promise<void> {
  const body = realisticChatBody();
  const text = JSON.stringify(body);
  const bytes = Buffer.from(text, 'utf8');
  const sortedBytes = Buffer.from(canonicalizeJsonText(text) ?? '', 'utf8');
  const quarter = Buffer.from(JSON.stringify(realisticChatBody(250_000)), 'utf8');
  const small = Buffer.from(JSON.stringify(realisticChatBody(100_000)), 'utf8');
  const sixMb = adversarialChatBody(6 * 1024 * 1024);
  let atBound = adversarialChatBody(400_000);
  // Trim to exactly the value bound (model, messages, the message's 3 members, then the keys).
  const keysAtBound = FINGERPRINT_BOUNDS.maxValues - 5;
  atBound = Buffer.from(
    atBound.toString().replace(/("extra":\{)([^}]*)\}/, (_, open: string, members: string) => {
      return open + members.split(',').slice(0, keysAtBound).join(',') + '}';
    }),
  );
  console.log(
    `body: ${bytes.length.toLocaleString('en-US')} bytes, ${(body.messages as unknown[]).length} messages ` +
      '(user, assistant with tool calls, tool results with code), 24 tools, sampling fields',
  );

  const forms = new Set([
    fingerprintRequest('openai', bytes),
    fingerprintRequest('openai', text),
    fingerprintRequest('openai', body),
    fingerprintRequest('openai', sortedBytes),
  ]);
  if (forms.size !== 1 || forms.has(null)) throw new Error('fingerprints differ between input forms');

  // [case, body size, function, measured against the target, iterations]
  const cases: Array<[string, number, () => unknown, boolean, number?]> = [
    ['fingerprintRequest(bytes)    [relay]', bytes.length, () => fingerprintRequest('openai', bytes), true],
    [
      'fingerprintRequest(string)   [SDK, Node]',
      bytes.length,
      () => fingerprintRequest('openai', text),
      true,
    ],
    ['fingerprintRequest(object)', bytes.length, () => fingerprintRequest('openai', body), true],
    [
      'fingerprintRequest(bytes)    keys pre-sorted',
      sortedBytes.length,
      () => fingerprintRequest('openai', sortedBytes),
      true,
    ],
    [
      'fingerprintRequest(bytes)    250 kB',
      quarter.length,
      () => fingerprintRequest('openai', quarter),
      true,
    ],
    ['fingerprintRequest(bytes)    100 kB', small.length, () => fingerprintRequest('openai', small), true],
    ['canonicalRequest(string)     [pure step]', bytes.length, () => canonicalRequest('openai', text), false],
    [
      'sha256 of the raw bytes      [floor]',
      bytes.length,
      () => createHash('sha256').update(bytes).digest('hex'),
      false,
    ],
    [
      `adversarial: ${FINGERPRINT_BOUNDS.maxValues - 3} reverse keys [at the bound]`,
      atBound.length,
      () => fingerprintRequest('openai', atBound),
      false,
      60,
    ],
    [
      'adversarial: 6 MB reverse keys [raw fallback]',
      sixMb.length,
      () => fingerprintRequest('openai', sixMb),
      false,
      30,
    ],
    [
      'JSON.parse + sorted stringify + sha256 [naive]',
      bytes.length,
      () =>
        createHash('sha256')
          .update(canonicalizeValue(JSON.parse(text)) ?? '')
          .digest('hex'),
      false,
      100,
    ],
  ];

  console.log(
    `${'case'.padEnd(46)} ${'body'.padStart(8)} ${'min ms'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}  target`,
  );
  for (const [name, size, fn, targeted, iterations] of cases) {
    const t = measure(fn, iterations);
    const kb = size >= 1e6 ? `${(size / 1e6).toFixed(2)} MB` : `${Math.round(size / 1e3)} kB`;
    const adversarial = name.startsWith('adversarial');
    const verdict = targeted
      ? `≤ ${TARGET_MS} ms: ${t.p50 <= TARGET_MS ? 'met' : 'missed'}`
      : adversarial
        ? `≤ ${ADVERSARIAL_TARGET_MS} ms: ${t.p50 <= ADVERSARIAL_TARGET_MS ? 'met' : 'missed'}`
        : '';
    const ms = (x: number): string => x.toFixed(3).padStart(7);
    console.log(`${name.padEnd(46)} ${kb.padStart(8)} ${ms(t.min)} ${ms(t.p50)} ${ms(t.p99)}  ${verdict}`);
  }
  await Promise.resolve();
}
