/**
 * Fingerprint of a realistic 1 MB chat-completions body (a long agent conversation with tools),
 * in each input form the callers have: bytes (the relay), a string (the SDK), a parsed object.
 * Beside it: the hash alone (the floor) and the naive JSON.parse + sorted stringify + hash.
 * Target: ≤ 1 ms for 1 MB.
 */
import { createHash } from 'node:crypto';
import {
  canonicalRequest,
  canonicalizeJsonText,
  canonicalizeValue,
  fingerprintRequest,
} from '../core/fingerprint';

const TARGET_MS = 1;
const TARGET_BYTES = 1_000_000;

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

interface Timing {
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
  return { p50: ms[Math.floor(iterations * 0.5)]!, p99: ms[Math.floor(iterations * 0.99)]! };
}

function row(name: string, bytes: number, t: Timing, targeted: boolean): void {
  const size = bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : `${Math.round(bytes / 1e3)} kB`;
  const verdict = targeted ? `≤ ${TARGET_MS} ms: ${t.p50 <= TARGET_MS ? 'met' : 'missed'}` : '';
  console.log(
    `${name.padEnd(44)} ${size.padStart(8)} ${t.p50.toFixed(3).padStart(8)} ${t.p99.toFixed(3).padStart(8)}  ${verdict}`,
  );
}

export default async function (): Promise<void> {
  const body = realisticChatBody();
  const text = JSON.stringify(body);
  const bytes = Buffer.from(text, 'utf8');
  const sortedBytes = Buffer.from(canonicalizeJsonText(text) ?? '', 'utf8');
  const small = Buffer.from(JSON.stringify(realisticChatBody(100_000)), 'utf8');
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

  console.log(
    `${'case'.padEnd(44)} ${'body'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  target`,
  );
  row(
    'fingerprintRequest(bytes)      [relay]',
    bytes.length,
    measure(() => fingerprintRequest('openai', bytes)),
    true,
  );
  row(
    'fingerprintRequest(string)     [SDK, Node]',
    bytes.length,
    measure(() => fingerprintRequest('openai', text)),
    true,
  );
  row(
    'fingerprintRequest(object)',
    bytes.length,
    measure(() => fingerprintRequest('openai', body)),
    true,
  );
  row(
    'fingerprintRequest(bytes), keys pre-sorted',
    sortedBytes.length,
    measure(() => fingerprintRequest('openai', sortedBytes)),
    true,
  );
  row(
    'fingerprintRequest(bytes)      [100 kB]',
    small.length,
    measure(() => fingerprintRequest('openai', small)),
    true,
  );
  row(
    'canonicalRequest(string)       [pure step]',
    bytes.length,
    measure(() => canonicalRequest('openai', text)),
    false,
  );
  row(
    'sha256 of the raw bytes        [floor]',
    bytes.length,
    measure(() => createHash('sha256').update(bytes).digest('hex')),
    false,
  );
  row(
    'JSON.parse + sorted stringify + sha256 [naive]',
    bytes.length,
    measure(
      () =>
        createHash('sha256')
          .update(canonicalizeValue(JSON.parse(text)) ?? '')
          .digest('hex'),
      100,
    ),
    false,
  );
  await Promise.resolve();
}
