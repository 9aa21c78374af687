/**
 * One agent of the SDK fleet bench (sdk-fleet.bench.ts), in its own process: `AGENT_CONCURRENCY` workers
 * call the mock provider directly through `wrapFetch` with the budget lease, until SIGTERM; then the SDK
 * is shut down and the counts printed as `RESULT {…}`.
 */
import { shutdown, wrapFetch } from '../sdk/src';
import { sdkState } from '../sdk/src/tracked-fetch';

export const AGENT_CONCURRENCY = 4;
export const PROVIDER_LATENCY_MS = 2_000;
const PROMPT = 'The quick brown fox jumps over the lazy dog. '.repeat(200).slice(0, 8_000);

export interface AgentResult {
  readonly ok: number;
  readonly hardCap: number;
  readonly pending: number;
  readonly other: number;
  /** Calls let through without a reservation (lease request failed), and lease requests that failed. */
  readonly failOpen: number;
  readonly leaseErrors: number;
  /** When each hard-cap refusal happened (epoch ms). */
  readonly refusedAt: number[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function runAgent(): Promise<void> {
  const f = wrapFetch(fetch, {
    apiKey: process.env.FLEET_API_KEY ?? '',
    endpoint: process.env.FLEET_API_URL ?? '',
    provider: 'openai',
    flushIntervalMs: 1_000,
  }) as typeof fetch;
  const url = `${process.env.FLEET_MOCK_URL ?? ''}/v1/chat/completions`;
  const body = JSON.stringify({
    model: 'gpt-4o',
    max_tokens: 64,
    messages: [{ role: 'user', content: PROMPT }],
  });
  const result = { ok: 0, hardCap: 0, pending: 0, other: 0, refusedAt: [] as number[] };
  let stop = false;
  process.on('SIGTERM', () => (stop = true));
  const worker = async (): Promise<void> => {
    while (!stop) {
      try {
        const r = await f(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: 'Bearer sk-test',
            'x-mock-latency-ms': String(PROVIDER_LATENCY_MS),
          },
          body,
        });
        await r.text();
        if (r.status === 200) result.ok++;
        else if (r.status === 429 && r.headers.get('x-should-retry') === 'false') {
          result.hardCap++;
          result.refusedAt.push(Date.now());
          await sleep(500);
        } else if (r.status === 429) {
          result.pending++;
          await sleep(250);
        } else result.other++;
      } catch {
        result.other++;
        await sleep(250);
      }
    }
  };
  console.log('READY');
  await Promise.all(Array.from({ length: AGENT_CONCURRENCY }, () => worker()));
  const stats = [...sdkState().clients.values()][0]?.stats();
  await shutdown({ timeoutMs: 3_000 });
  const out: AgentResult = {
    ...result,
    failOpen: stats?.failOpen ?? 0,
    leaseErrors: stats?.lease?.errors ?? 0,
  };
  console.log(`RESULT ${JSON.stringify(out)}`);
  process.exit(0);
}

if (require.main === module) {
  runAgent().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
