/**
 * The SDK fleet's hard cap (issue 18.5), tried as a new user would: 8 agent processes call a provider
 * directly through `@service/sdk` (`wrapFetch` with its budget lease), 4 calls at a time each, against the
 * local stack's lease routes (`npm start`'s API on dynalite) with a $0.30 daily `block` cap. Two of the
 * agents are stopped (SIGSTOP) 1.5 s into the run for 8 s, the way Lambda freezes an idle container, with
 * calls in flight and slices held; then resumed (SIGCONT). A second run has no freeze.
 *
 * Each call is gpt-4o, an 8,000-character prompt and `max_tokens` 64 against the mock provider (which
 * bills characters / 4 prompt tokens and exactly max_tokens output tokens) answering after 2 s:
 * 2,000 × $2.50/MTok + 64 × $10/MTok = $0.00564, so the cap holds 53 calls. An agent retries a
 * retryable 429 after 250 ms and keeps trying after a hard-cap refusal (every 500 ms) until the run ends,
 * so a refusal while room is only held elsewhere shows as calls made later.
 *
 * Printed per run: calls the provider served, spend and spend past the cap (in calls), hard-cap refusals,
 * refusals made while the provider had served fewer calls than fit (cap − spend ≥ one call at that moment),
 * and whether the run ended with room for a call left. Targets: past the cap ≤ one call's cost; the run
 * ends with less than one call of room; baseline (issue 18): $0.86 on $0.30 (86 calls past) with the
 * freeze, 15 calls past without.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startLocalStack } from '../local/stack';
import {
  AGENT_CONCURRENCY as CONCURRENCY,
  PROVIDER_LATENCY_MS as LATENCY_MS,
  type AgentResult,
} from './sdk-fleet-agent';

const AGENTS = 8;
const FROZEN = 2;
const FREEZE_AT_MS = 1_500;
const FREEZE_MS = 8_000;
const RUN_MS = 24_000;
const CAP_USD = 0.3;
const CAP_NANOS = 300_000_000;
const CALL_NANOS = 2_000 * 2_500 + 64 * 10_000;
const FITTING = Math.floor(CAP_NANOS / CALL_NANOS); // 53

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function startAgent(env: Record<string, string>): {
  child: ChildProcess;
  ready: Promise<void>;
  result: Promise<AgentResult>;
} {
  const child = spawn(process.execPath, [...process.execArgv, join(__dirname, 'sdk-fleet-agent.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let onReady: () => void = () => undefined;
  let onResult: (r: AgentResult) => void = () => undefined;
  const ready = new Promise<void>((r) => (onReady = r));
  const result = new Promise<AgentResult>((r) => (onResult = r));
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('READY')) onReady();
    const m = /RESULT (\{.*\})/.exec(out);
    if (m?.[1] !== undefined) onResult(JSON.parse(m[1]) as AgentResult);
  });
  return { child, ready, result };
}

// ---------------------------------------------------------------------------------------------------
// The run.

interface RunOutcome {
  served: number;
  hardCap: number;
  refusedWhileRoom: number;
  pending: number;
  other: number;
  failOpen: number;
  leaseErrors: number;
  /** The lease item at the end of the run, before the agents shut down. */
  itemSettledUsd: number;
  itemLeasedUsd: number;
  itemHolders: number;
}

async function run(freeze: boolean): Promise<RunOutcome> {
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  const stack = await startLocalStack({ memory: true, apiPort: 0, proxyPort: 0, mockProviders: true });
  try {
    const put = await fetch(`${stack.apiUrl}/v1/budget`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.idToken}` },
      body: JSON.stringify({ budget: { dailyLimitUsd: CAP_USD, action: 'block' } }),
    });
    if (!put.ok) throw new Error(`PUT /v1/budget answered ${put.status}: ${await put.text()}`);
    const servedAt: number[] = [];
    const served = (): number => stack.mockProviderRequests?.() ?? 0;
    // The provider's served count over time, to tell whether a refusal came while a call still fitted.
    const sampler = setInterval(() => servedAt.push(Date.now(), served()), 50);
    const agents = Array.from({ length: AGENTS }, () =>
      startAgent({
        FLEET_API_URL: stack.apiUrl,
        FLEET_API_KEY: stack.apiKey,
        FLEET_MOCK_URL: stack.mockProviderUrls?.openai ?? '',
      }),
    );
    await Promise.all(agents.map((a) => a.ready));
    if (freeze) {
      await sleep(FREEZE_AT_MS);
      for (const a of agents.slice(0, FROZEN)) a.child.kill('SIGSTOP');
      await sleep(FREEZE_MS);
      for (const a of agents.slice(0, FROZEN)) a.child.kill('SIGCONT');
      await sleep(RUN_MS - FREEZE_AT_MS - FREEZE_MS);
    } else await sleep(RUN_MS);
    // What the lease item says before the agents return their slices: settled, and parked in slices.
    const view = (await (
      await fetch(`${stack.apiUrl}/v1/budget`, { headers: { authorization: `Bearer ${stack.idToken}` } })
    ).json()) as { admission?: { day?: { settledUsd?: number; leasedUsd?: number; holders?: number } } };
    const day = view.admission?.day;
    for (const a of agents) a.child.kill('SIGTERM');
    const results = await Promise.all(agents.map((a) => a.result));
    clearInterval(sampler);
    const total = served();
    // A refusal "while room": the provider had served fewer calls than fit, and never went on to serve them all.
    const servedBy = (t: number): number => {
      let n = 0;
      for (let i = 0; i < servedAt.length; i += 2)
        if ((servedAt[i] as number) <= t) n = servedAt[i + 1] as number;
      return n;
    };
    const refusals = results.flatMap((r) => r.refusedAt);
    return {
      served: total,
      hardCap: refusals.length,
      refusedWhileRoom: total < FITTING ? refusals.filter((t) => servedBy(t) < FITTING).length : 0,
      pending: results.reduce((s, r) => s + r.pending, 0),
      other: results.reduce((s, r) => s + r.other, 0),
      failOpen: results.reduce((s, r) => s + r.failOpen, 0),
      leaseErrors: results.reduce((s, r) => s + r.leaseErrors, 0),
      itemSettledUsd: day?.settledUsd ?? NaN,
      itemLeasedUsd: day?.leasedUsd ?? NaN,
      itemHolders: day?.holders ?? NaN,
    };
  } finally {
    await stack.stop();
  }
}

export default async function bench(): Promise<void> {
  console.log(
    `${AGENTS} SDK agents × ${CONCURRENCY} concurrent calls, $${CAP_USD} daily cap (${FITTING} calls of $${CALL_NANOS / 1e9}), ` +
      `provider latency ${LATENCY_MS} ms, ${RUN_MS / 1000} s per run`,
  );
  console.log(
    'run                      served  spend    past cap (calls)  hard-cap 429s  refused with room  retryable 429s  room left at end',
  );
  for (const freeze of [true, false]) {
    const r = await run(freeze);
    const spend = r.served * CALL_NANOS;
    const past = Math.max(0, r.served - FITTING);
    const roomLeft = CAP_NANOS - spend >= CALL_NANOS;
    console.log(
      [
        (freeze ? `${FROZEN} frozen ${FREEZE_MS / 1000} s` : 'no freeze').padEnd(24),
        String(r.served).padStart(6),
        `$${(spend / 1e9).toFixed(4)}`.padStart(8),
        String(past).padStart(18),
        String(r.hardCap).padStart(14),
        String(r.refusedWhileRoom).padStart(18),
        String(r.pending).padStart(15),
        (roomLeft ? 'yes (MISSED)' : 'no').padStart(17),
      ].join(' '),
    );
    console.log(
      `  lease item at the end: settled $${r.itemSettledUsd.toFixed(4)}, held in ${r.itemHolders} slices $${r.itemLeasedUsd.toFixed(4)}`,
    );
    console.log(
      `  unreserved (failed-open) calls ${r.failOpen}, failed lease requests ${r.leaseErrors}, other errors ${r.other}`,
    );
    console.log(
      `  target: past the cap ≤ 1 call (${past <= 1 ? 'ok' : 'MISSED'}); baseline ${freeze ? '86' : '15'} calls past`,
    );
  }
}
