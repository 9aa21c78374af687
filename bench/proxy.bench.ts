/**
 * Proxy overhead, side by side against the same local fake upstream (local/mock-providers):
 *
 * - direct: the client calls the fake provider itself (the baseline);
 * - floor: a bare Node pass-through (`http.request` + `pipe`, keep-alive agent): the least a proxy costs;
 * - spendguard: the local proxy (guard + relay, usage parsing, fingerprint, one event per request) with
 *   in-memory flag store, key store and sink, so that the proxy is measured, not dynalite;
 * - portkey: `@portkey-ai/gateway` from npm (`--headless`), routed to the fake upstream with
 *   `x-portkey-custom-host`.
 *
 * The upstream and every proxy run in their own child process (as they would in production); the
 * client runs here. Sequential and at concurrency 32: added latency (p50 / p99 minus the direct
 * p50 / p99), throughput; for SSE streams the added time to first byte. Plus the warm flag check.
 * Loopback only, bounded loops. Targets for Spendguard: added p50 ≤ 0.45 ms and p99 ≤ 1 ms sequential,
 * warm flag check ≤ 0.05 ms p99, added TTFB ≤ 1 ms.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generateApiKey, hashApiKey } from '../core/keys';
import type { EventEnvelope } from '../core/events/telemetry-event';
import { EdgeGuard } from '../lambdas/edge-guard/guard';
import { startMockProviders } from '../local/mock-providers';
import { DEFAULT_LEASE_POLICY } from '../core/leases/lease-state';
import { BudgetLeases } from '../lambdas/shared/budget-leases';
import { MemoryBudgetLeaseStore } from '../lambdas/shared/stores/budget-lease-store';
import { createLocalProxy } from '../local/proxy/local-proxy';
import { MemoryApiKeyStore, MemoryFlagStore } from '../local/proxy/memory-stores';
import { createLocalAwsClients, provisionLocalResources, startStandIns } from '../local/runtime';
import { DynamoLoopRunStore } from '../lambdas/shared/stores/loop-run-store';
import { LOCAL_RESOURCE_NAMES } from '../lambdas/shared/table-definitions';

const TARGETS = { p50: 0.45, p99: 1, flagP99: 0.05, ttfb: 1 } as const;
/** Issue 12 with a budget configured: added p50 far from the cap, CPU vs the floor, store trips near it. */
const ADMISSION_TARGETS = { p50: 0.4, cpuVsFloor: 1.5, nearCapTripsPerCall: 1 } as const;
const ROLE_ENV = 'SPENDGUARD_BENCH_ROLE';
const PEPPER = 'bench-pepper-0123456789abcdef0123456789abcdef';

/** `SPENDGUARD_BENCH_QUICK=1`: a quarter of the requests (a shared or loaded machine). */
const SCALE = process.env.SPENDGUARD_BENCH_QUICK === '1' ? 0.25 : 1;
const SEQ_WARMUP = Math.round(400 * SCALE);
const SEQ_ROUNDS = 8;
const SEQ_PER_ROUND = Math.round(250 * SCALE);
const CONC = 32;
const CONC_REQUESTS = Math.round(4000 * SCALE);
const STREAM_ROUNDS = 4;
const STREAM_PER_ROUND = Math.round(200 * SCALE);
const FLAG_CHECKS = 100_000;
const PORTKEY_START_TIMEOUT_MS = 20_000;

// ---------------------------------------------------------------------------------------------------
// Child processes: the fake upstream, the floor pass-through and the Spendguard proxy.

async function runChild(role: string): Promise<void> {
  if (role === 'mock') {
    const mock = await startMockProviders({ port: 0, recordBodies: false });
    console.log(`READY ${mock.port}`);
    return;
  }
  const upstream = process.env.SPENDGUARD_BENCH_UPSTREAM ?? '';
  if (role === 'floor') {
    const u = new URL(upstream);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
    const server = http.createServer({ noDelay: true, keepAliveTimeout: 65_000 }, (req, res) => {
      const headers = { ...req.headers };
      delete headers.host;
      const up = http.request(
        { hostname: u.hostname, port: u.port, method: req.method, path: req.url, headers, agent },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
    return;
  }
  if (
    role === 'spendguard' ||
    role === 'spendguard-budget' ||
    role === 'spendguard-near-cap' ||
    role === 'spendguard-loops'
  ) {
    const keys = new MemoryApiKeyStore();
    const k = generateApiKey((n) => randomBytes(n));
    await keys.create({
      publicId: k.publicId,
      orgId: 'org_bench',
      prefix: k.prefix,
      hash: hashApiKey(k.apiKey, PEPPER),
      name: 'bench',
      createdAt: new Date().toISOString(),
      revokedAt: null,
    });
    let events = 0;
    // With a budget: a $1,000,000 daily block cap (far from it), lease items in memory so the proxy is
    // measured, not dynalite. "near cap": slices sized to the call alone, so every call takes a lease
    // (the store work admission does when the cap is close).
    const leaseStore = new MemoryBudgetLeaseStore();
    let configReads = 0;
    const budgetLeases =
      role === 'spendguard'
        ? undefined
        : new BudgetLeases({
            store: leaseStore,
            config: {
              get: () => {
                configReads++;
                return Promise.resolve({
                  budget: { dailyLimitUsd: 1_000_000, action: 'block' },
                  policy: {},
                  updatedAt: '2026-11-23T00:00:00.000Z',
                });
              },
              put: async () => undefined,
            },
            now: Date.now,
            ...(role === 'spendguard-near-cap'
              ? { policy: { ...DEFAULT_LEASE_POLICY, minHeadroomNanos: 0, minCoverSeconds: 0 } }
              : {}),
          });
    const proxy = await createLocalProxy({
      port: 0,
      flags: new MemoryFlagStore(),
      apiKeys: keys,
      // Counts and discards: a bounded run must not grow memory.
      sink: { put: async (e: EventEnvelope[]) => void (events += e.length) },
      pepper: PEPPER,
      upstreams: { openai: `${upstream}/openai` },
      ...(budgetLeases !== undefined ? { budgetLeases } : {}),
      // Layer 2's shared run (docs/guardrails.md): one store write before every call with a body, here on
      // the DynamoDB stand-in in this process (its latency is dynalite's and this machine's, not AWS's).
      ...(role === 'spendguard-loops' ? { loopRuns: await dynaliteLoopRuns() } : {}),
    });
    process.on('SIGTERM', () => {
      console.error(`${role} child recorded ${events} events`);
      process.exit(0);
    });
    // The parent asks how many lease store operations the child made (round trips in AWS).
    process.on('SIGUSR2', () => {
      console.log(`STORE ${events} ${leaseStore.loads + configReads} ${leaseStore.saves}`);
    });
    console.log(`READY ${proxy.port} ${k.apiKey}`);
    return;
  }
  throw new Error(`unknown bench role ${role}`);
}

/** The shared loop runs on an in-process DynamoDB stand-in (the bench's `sg + shared loop runs` row). */
async function dynaliteLoopRuns(): Promise<DynamoLoopRunStore> {
  const standIns = await startStandIns({ memory: true });
  const clients = createLocalAwsClients(standIns);
  await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
  return new DynamoLoopRunStore({ doc: clients.documentClient, tableName: LOCAL_RESOURCE_NAMES.dataTable });
}

const role = process.env[ROLE_ENV];
if (role !== undefined) {
  runChild(role).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

// ---------------------------------------------------------------------------------------------------
// The client side.

interface Started {
  readonly child: ChildProcess;
  readonly port: number;
  readonly extra: string | undefined;
}

function startChild(childRole: string, env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [...process.execArgv, __filename], {
    env: { ...process.env, ...env, [ROLE_ENV]: childRole },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${childRole} did not start`)), 20_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY (\d+)(?: (\S+))?/.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), extra: m[2] });
      }
    });
    child.once('exit', (code) => reject(new Error(`${childRole} exited with ${code}`)));
  });
}

async function startPortkey(): Promise<Started | string> {
  const entry = join(__dirname, '..', 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  const port = await freePort();
  const child = spawn(process.execPath, [entry, `--port=${port}`, '--headless'], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const deadline = Date.now() + PORTKEY_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return `exited with code ${child.exitCode}`;
    const ok = await new Promise<boolean>((resolve) => {
      const req = http.get({ hostname: '127.0.0.1', port, path: '/', agent: false }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on('error', () => resolve(false));
    });
    if (ok) return { child, port, extra: undefined };
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  return 'did not start in time';
}

/** User + system CPU time of a process in ms, from /proc (Linux); NaN elsewhere or without a pid. */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11], fields[12]: utime, stime (fields 14 and 15 of proc(5)), in clock ticks of 10 ms
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = http.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

interface Target {
  readonly name: string;
  /** The proxy's process, whose CPU time is read from /proc (none for direct). */
  readonly pid?: number;
  readonly port: number;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly streams: boolean;
}

interface Timing {
  readonly total: number;
  readonly ttfb: number;
  readonly status: number;
}

const CHAT_BODY = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a terse assistant.' },
    { role: 'user', content: 'Summarize the benefits of keep-alive connections in one sentence. #000000' },
  ],
  max_tokens: 16,
});
/**
 * Each request asks a different question (its number in place of `#000000`, same length), as real
 * traffic does: the same request 4 times in a row is a loop, which the relay refuses in line (issue
 * 19.6), and the bench measures the check counting every call, not its refusals. Every target gets it.
 */
const TASK_MARKER = '#000000';
let tasks = 0;
const nextTask = (body: string): string =>
  body.replace(TASK_MARKER, `#${String(++tasks % 1_000_000).padStart(6, '0')}`);
const STREAM_BODY = JSON.stringify({
  ...(JSON.parse(CHAT_BODY) as object),
  stream: true,
  stream_options: { include_usage: true },
});

function once(agent: http.Agent, t: Target, template: string): Promise<Timing> {
  const body = nextTask(template);
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let ttfb = -1;
    const req = http.request(
      {
        hostname: '127.0.0.1',
        port: t.port,
        method: 'POST',
        path: t.path,
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          ...t.headers,
        },
      },
      (res) => {
        res.on('data', () => {
          if (ttfb < 0) ttfb = performance.now() - start;
        });
        res.on('end', () => resolve({ total: performance.now() - start, ttfb, status: res.statusCode ?? 0 }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? NaN;
}

async function sequential(
  targets: readonly Target[],
  body: string,
  rounds: number,
  perRound: number,
): Promise<Map<string, Timing[]>> {
  const agents = new Map(targets.map((t) => [t.name, new http.Agent({ keepAlive: true, maxSockets: 1 })]));
  const out = new Map<string, Timing[]>(targets.map((t) => [t.name, []]));
  for (const t of targets) for (let i = 0; i < SEQ_WARMUP; i++) await once(agents.get(t.name)!, t, body);
  // Rounds rotate the order, so machine noise spreads over every target alike.
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < targets.length; j++) {
      const t = targets[(round + j) % targets.length]!;
      const agent = agents.get(t.name)!;
      const list = out.get(t.name)!;
      for (let i = 0; i < perRound; i++) list.push(await once(agent, t, body));
    }
  }
  for (const a of agents.values()) a.destroy();
  return out;
}

async function concurrent(t: Target, body: string): Promise<{ timings: Timing[]; rps: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONC });
  for (let i = 0; i < CONC * 4; i++) await once(agent, t, body);
  const timings: Timing[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (next < CONC_REQUESTS) {
        next++;
        timings.push(await once(agent, t, body));
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  return { timings, rps: timings.length / elapsed };
}

async function flagCheckTimes(): Promise<{ p50: number; p99: number; syncP99: number }> {
  const key = generateApiKey((n) => randomBytes(n));
  const guard = new EdgeGuard({ flags: { getMany: async () => [] }, pepper: async () => PEPPER });
  const times: number[] = [];
  const sync: number[] = [];
  for (let i = 0; i < 2000; i++) await guard.check(key.apiKey);
  for (let i = 0; i < FLAG_CHECKS; i++) {
    const t0 = performance.now();
    await guard.check(key.apiKey);
    times.push(performance.now() - t0);
    const t1 = performance.now();
    guard.checkCached(key.apiKey);
    sync.push(performance.now() - t1);
  }
  return { p50: pct(times, 50), p99: pct(times, 99), syncP99: pct(sync, 99) };
}

const f3 = (n: number): string => (Number.isFinite(n) ? n.toFixed(3) : 'n/a');
const pad = (s: string, n: number): string => s.padEnd(n);

export default async function proxyBench(): Promise<void> {
  const children: ChildProcess[] = [];
  try {
    const mock = await startChild('mock');
    children.push(mock.child);
    const upstream = `http://127.0.0.1:${mock.port}`;
    const floor = await startChild('floor', { SPENDGUARD_BENCH_UPSTREAM: upstream });
    children.push(floor.child);
    const sg = await startChild('spendguard', { SPENDGUARD_BENCH_UPSTREAM: upstream });
    children.push(sg.child);
    const sgBudget = await startChild('spendguard-budget', { SPENDGUARD_BENCH_UPSTREAM: upstream });
    children.push(sgBudget.child);
    const sgNear = await startChild('spendguard-near-cap', { SPENDGUARD_BENCH_UPSTREAM: upstream });
    children.push(sgNear.child);
    const sgLoops = await startChild('spendguard-loops', { SPENDGUARD_BENCH_UPSTREAM: upstream });
    children.push(sgLoops.child);
    const portkey = await startPortkey();
    if (typeof portkey !== 'string') children.push(portkey.child);

    const path = '/openai/v1/chat/completions';
    const targets: Target[] = [
      { name: 'direct', port: mock.port, path, headers: {}, streams: true },
      { name: 'floor (node pipe)', pid: floor.child.pid, port: floor.port, path, headers: {}, streams: true },
      {
        name: 'spendguard',
        pid: sg.child.pid,
        port: sg.port,
        path,
        headers: { 'service-api-key': sg.extra ?? '' },
        streams: true,
      },
    ];
    for (const [name, started] of [
      ['sg + budget (far)', sgBudget],
      ['sg + budget (near)', sgNear],
      ['sg + shared loop runs', sgLoops],
    ] as const) {
      targets.push({
        name,
        pid: started.child.pid,
        port: started.port,
        path,
        headers: { 'service-api-key': started.extra ?? '' },
        streams: true,
      });
    }
    if (typeof portkey !== 'string') {
      targets.push({
        name: 'portkey gateway',
        pid: portkey.child.pid,
        port: portkey.port,
        path: '/v1/chat/completions',
        headers: {
          'x-portkey-provider': 'openai',
          'x-portkey-custom-host': `${upstream}/openai/v1`,
          authorization: 'Bearer sk-bench',
        },
        streams: true,
      });
    }
    // Every target must answer 200 before it is measured.
    const agent = new http.Agent({ keepAlive: false });
    for (const t of targets) {
      const json = await once(agent, t, CHAT_BODY);
      if (json.status !== 200) throw new Error(`${t.name} answered ${json.status}`);
      const stream = await once(agent, t, STREAM_BODY);
      if (stream.status !== 200) (t as { streams: boolean }).streams = false;
    }

    const cpuBefore = new Map(targets.map((t) => [t.name, cpuMs(t.pid)]));
    const seq = await sequential(targets, CHAT_BODY, SEQ_ROUNDS, SEQ_PER_ROUND);
    const streamTargets = targets.filter((t) => t.streams);
    const seqStream = await sequential(streamTargets, STREAM_BODY, STREAM_ROUNDS, STREAM_PER_ROUND);
    const conc = new Map<string, { timings: Timing[]; rps: number }>();
    for (const t of targets) conc.set(t.name, await concurrent(t, CHAT_BODY));
    // A refusal answers faster than a served call: a run with any is not a measurement of the proxy.
    for (const t of targets) {
      const all = [
        ...(seq.get(t.name) ?? []),
        ...(seqStream.get(t.name) ?? []),
        ...(conc.get(t.name)?.timings ?? []),
      ];
      const refused = all.filter((x) => x.status !== 200).length;
      if (refused > 0)
        throw new Error(`${t.name} answered ${refused} of ${all.length} measured calls with an error`);
    }
    // CPU time the proxy process spent per request it served (load-independent, unlike latency).
    const cpuPerRequestUs = new Map(
      targets.map((t) => {
        const served =
          (seq.get(t.name)?.length ?? 0) +
          (seqStream.get(t.name)?.length ?? 0) +
          (conc.get(t.name)?.timings.length ?? 0);
        const before = cpuBefore.get(t.name) ?? NaN;
        return [t.name, ((cpuMs(t.pid) - before) * 1000) / served];
      }),
    );
    const flag = await flagCheckTimes();

    const base = seq.get('direct')!.map((x) => x.total);
    const baseConc = conc.get('direct')!.timings.map((x) => x.total);
    const baseTtfb = seqStream.get('direct')!.map((x) => x.ttfb);
    const rows = targets.map((t) => {
      const s = seq.get(t.name)!.map((x) => x.total);
      const c = conc.get(t.name)!;
      const ct = c.timings.map((x) => x.total);
      const st = seqStream.get(t.name)?.map((x) => x.ttfb);
      return {
        name: t.name,
        seqP50: pct(s, 50) - (t.name === 'direct' ? 0 : pct(base, 50)),
        seqP99: pct(s, 99) - (t.name === 'direct' ? 0 : pct(base, 99)),
        concP50: pct(ct, 50) - (t.name === 'direct' ? 0 : pct(baseConc, 50)),
        concP99: pct(ct, 99) - (t.name === 'direct' ? 0 : pct(baseConc, 99)),
        rps: c.rps,
        cpuUs: cpuPerRequestUs.get(t.name) ?? NaN,
        ttfbP50: st === undefined ? NaN : pct(st, 50) - (t.name === 'direct' ? 0 : pct(baseTtfb, 50)),
        ttfbP99: st === undefined ? NaN : pct(st, 99) - (t.name === 'direct' ? 0 : pct(baseTtfb, 99)),
      };
    });

    console.log(
      `Non-streaming chat completion (~${Buffer.byteLength(CHAT_BODY)} B request, ~600 B response); ` +
        `sequential ${SEQ_ROUNDS * SEQ_PER_ROUND} req/target, concurrency ${CONC} × ${CONC_REQUESTS} req; ` +
        `SSE stream of 16 chunks for TTFB. "direct" row: absolute ms; other rows: ms added over direct. ` +
        `CPU µs/req: CPU time of the proxy process per request served.`,
    );
    const header = [
      pad('target', 20),
      pad('seq p50', 9),
      pad('seq p99', 9),
      pad('c32 p50', 9),
      pad('c32 p99', 9),
      pad('c32 req/s', 10),
      pad('TTFB p50', 9),
      pad('TTFB p99', 9),
      pad('CPU µs/req', 10),
    ].join(' ');
    console.log(header);
    console.log('-'.repeat(header.length));
    for (const r of rows) {
      console.log(
        [
          pad(r.name, 20),
          pad(f3(r.seqP50), 9),
          pad(f3(r.seqP99), 9),
          pad(f3(r.concP50), 9),
          pad(f3(r.concP99), 9),
          pad(r.rps.toFixed(0), 10),
          pad(f3(r.ttfbP50), 9),
          pad(f3(r.ttfbP99), 9),
          pad(Number.isFinite(r.cpuUs) ? r.cpuUs.toFixed(0) : '-', 10),
        ].join(' '),
      );
    }
    if (typeof portkey === 'string') console.log(`portkey gateway: not measured (${portkey})`);
    else if (!targets.find((t) => t.name === 'portkey gateway')?.streams) {
      console.log('portkey gateway: streaming answered non-200 on this Node version; TTFB not measured');
    }

    const sgRow = rows.find((r) => r.name === 'spendguard')!;
    const verdict = (ok: boolean): string => (ok ? 'ok' : 'MISSED');
    console.log('\nSpendguard against its targets');
    console.log(
      `  added p50 sequential   ${f3(sgRow.seqP50)} ms   target ≤ ${TARGETS.p50} ms   ${verdict(sgRow.seqP50 <= TARGETS.p50)}`,
    );
    console.log(
      `  added p99 sequential   ${f3(sgRow.seqP99)} ms   target ≤ ${TARGETS.p99} ms   ${verdict(sgRow.seqP99 <= TARGETS.p99)}`,
    );
    console.log(
      `  added TTFB p50         ${f3(sgRow.ttfbP50)} ms   target ≤ ${TARGETS.ttfb} ms   ${verdict(sgRow.ttfbP50 <= TARGETS.ttfb)}`,
    );
    console.log(
      `  warm flag check p99    ${f3(flag.p99)} ms   target ≤ ${TARGETS.flagP99} ms  ${verdict(flag.p99 <= TARGETS.flagP99)}` +
        `   (p50 ${f3(flag.p50)} ms; cached sync path p99 ${f3(flag.syncP99)} ms)`,
    );

    const floorRow = rows.find((r) => r.name === 'floor (node pipe)')!;
    const far = rows.find((r) => r.name === 'sg + budget (far)')!;
    const near = rows.find((r) => r.name === 'sg + budget (near)')!;
    const farOps = await storeOps(sgBudget);
    const nearOps = await storeOps(sgNear);
    const trips = (o: StoreOps) => (o.reads + o.writes) / Math.max(1, o.requests);
    console.log('\nSpendguard with a budget (admission, issue 12) against its targets');
    console.log(
      `  far: added p50 sequential ${f3(far.seqP50)} ms (without budget ${f3(sgRow.seqP50)}), c32 p50 ${f3(far.concP50)} ms   target ≤ ${ADMISSION_TARGETS.p50} ms   ${verdict(far.seqP50 <= ADMISSION_TARGETS.p50)}`,
    );
    console.log(
      `  far: CPU ${far.cpuUs.toFixed(0)} µs/req = ${(far.cpuUs / floorRow.cpuUs).toFixed(2)}× the floor (without budget ${(sgRow.cpuUs / floorRow.cpuUs).toFixed(2)}×)   target ≤ ${ADMISSION_TARGETS.cpuVsFloor}×   ${verdict(far.cpuUs / floorRow.cpuUs <= ADMISSION_TARGETS.cpuVsFloor)}`,
    );
    console.log(
      `  far: store round trips ${trips(farOps).toFixed(4)} per request (${farOps.reads} reads, ${farOps.writes} writes, ${farOps.requests} requests)`,
    );
    console.log(
      `  near: store round trips ${trips(nearOps).toFixed(3)} per request (${nearOps.reads} reads, ${nearOps.writes} writes, ${nearOps.requests} requests), added p50 ${f3(near.seqP50)} ms, CPU ${near.cpuUs.toFixed(0)} µs/req   target ≤ ${ADMISSION_TARGETS.nearCapTripsPerCall}   ${verdict(trips(nearOps) <= ADMISSION_TARGETS.nearCapTripsPerCall + 0.01)}`,
    );
    const loops = rows.find((r) => r.name === 'sg + shared loop runs')!;
    console.log(
      '\nSpendguard with layer 2 counted across relay containers (a store write for each call that does not follow another request of its key on its container)',
    );
    console.log(
      `  added p50 sequential ${f3(loops.seqP50)} ms (without ${f3(sgRow.seqP50)}), p99 ${f3(loops.seqP99)} ms, CPU ${loops.cpuUs.toFixed(0)} µs/req (store: dynalite in the proxy's process)`,
    );
  } finally {
    for (const c of children) c.kill('SIGTERM');
  }
}

interface StoreOps {
  readonly requests: number;
  readonly reads: number;
  readonly writes: number;
}

/** Asks a Spendguard child for its lease store operation counts (requests = events it recorded). */
function storeOps(started: Started): Promise<StoreOps> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no STORE answer')), 5_000);
    const onData = (d: Buffer): void => {
      const m = /STORE (\d+) (\d+) (\d+)/.exec(d.toString());
      if (m === null) return;
      clearTimeout(timer);
      started.child.stdout?.off('data', onData);
      resolve({ requests: Number(m[1]), reads: Number(m[2]), writes: Number(m[3]) });
    };
    started.child.stdout?.on('data', onData);
    started.child.kill('SIGUSR2');
  });
}
