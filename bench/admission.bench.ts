/**
 * The hold-out of issue 12, on the stand-ins: a $0.30 daily `block` cap, a fleet sending waves of
 * concurrent ~$0.006 calls (gpt-4o, 2,144 prompt tokens + 64 output tokens = 2,144 × $2.50/MTok +
 * 64 × $10/MTok = $0.006 exactly) through the local proxy with the official OpenAI client, lease items in
 * dynalite. Before admission: concurrency 32 spent $1.67 and concurrency 128 spent $6.66 on the $0.30 cap.
 * Targets: spend past the cap ≤ one call ($0.006); no refusal while a call still fits (at the first
 * refusal, cap − spend < one call).
 */
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { generateApiKey, hashApiKey } from '../core/keys';
import { StaticSecret } from '../lambdas/shared/secrets';
import { createServices } from '../lambdas/shared/services';
import { LOCAL_RESOURCE_NAMES } from '../lambdas/shared/table-definitions';
import { startMockProviders } from '../local/mock-providers';
import { createLocalProxy } from '../local/proxy/local-proxy';
import { createLocalAwsClients, provisionLocalResources, startStandIns } from '../local/runtime';
import { simulateFleet } from './admission-fleet-sim';

const CALL_NANOS = 2_144 * 2_500 + 64 * 10_000; // 6,000,000 = $0.006
const CAP_NANOS = 300_000_000; // $0.30
const PROMPT = 'The quick brown fox jumps over the lazy dog. '.repeat(200).slice(0, 2_144 * 4);
let calls = 0;
/**
 * A distinct task per call, of PROMPT's length: the same request 4 times in a row is a loop, which the
 * relay refuses in line (layer 2, issue 19.6) with a 429 this bench would count as a budget refusal.
 */
const promptOfNextCall = (): string =>
  PROMPT.slice(0, PROMPT.length - 12) + ` #${String(++calls).padStart(10, '0')}`;
const WAVES = 4;

/**
 * Issue 18.4: the deployment simulated (bench/admission-fleet-sim.ts), 1 to 1,000 relay containers
 * against the counter item's model, 60 virtual seconds across midnight UTC, a daily cap of $0.04 per
 * container reached in both days. Targets at 1,000 containers: 0 calls past the cap, 0 admitted without a
 * reservation, ≤ 1,000 WCU/s at the item.
 */
async function fleetTable(): Promise<void> {
  console.log(
    'Fleet simulation: N Lambda containers (one call at a time, frozen while idle, recycled), the counter item ' +
      'with 4/7 ms reads/writes (long tail, 0.05 % past the 1 s timeout, landing late), 1,000 WCU/s per partition, ' +
      '60 virtual s across 00:00 UTC; $0.006 calls; daily cap $0.04 × N',
  );
  const header =
    'containers  admitted  refused final/retryable  past cap (calls)  no reservation  peak writes/s  peak WCU/s  ' +
    'mean writes/s  ops/admitted  p99 wait ms  item bytes  late landings  verdict';
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const containers of [1, 10, 100, 1_000]) {
    const r = await simulateFleet({ containers, seed: 18 });
    const ok = r.pastCapCalls === 0 && r.admittedWithoutReservation === 0 && r.peakWcuPerSecond <= 1_000;
    console.log(
      [
        String(containers).padEnd(11),
        String(r.admitted).padEnd(9),
        `${r.refusedFinal}/${r.refusedRetryable}`.padEnd(24),
        r.pastCapCalls.toFixed(2).padEnd(17),
        String(r.admittedWithoutReservation).padEnd(15),
        String(r.peakWritesPerSecond).padEnd(14),
        String(r.peakWcuPerSecond).padEnd(11),
        r.meanWritesPerSecond.toFixed(1).padEnd(14),
        r.opsPerAdmitted.toFixed(2).padEnd(13),
        r.p99WaitMs.toFixed(0).padEnd(12),
        String(r.maxItemBytes).padEnd(11),
        String(r.lateLandings).padEnd(14),
        ok ? 'ok' : 'MISSED',
      ].join(' '),
    );
  }
  console.log('');
}

export default async function admissionBench(): Promise<void> {
  await fleetTable();
  const standIns = await startStandIns({ memory: true });
  const clients = createLocalAwsClients(standIns);
  await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
  const pepper = randomBytes(32).toString('base64url');
  const services = createServices({
    doc: clients.documentClient,
    kinesis: clients.kinesis,
    dataTable: LOCAL_RESOURCE_NAMES.dataTable,
    flagsTable: LOCAL_RESOURCE_NAMES.flagsTable,
    streamName: LOCAL_RESOURCE_NAMES.eventsStream,
    pepper: new StaticSecret(pepper),
    notifier: { notify: async () => undefined },
  });
  const mock = await startMockProviders({ port: 0, recordBodies: false });
  const proxy = await createLocalProxy({
    port: 0,
    flags: services.flags,
    apiKeys: services.apiKeys,
    // The pipeline is not under test: events are counted and dropped.
    sink: { put: async () => undefined },
    pepper,
    upstreams: mock.baseUrls,
    budgetLeases: services.budgetLeases,
  });
  try {
    console.log(
      `$0.30 daily block cap; waves of concurrent $0.006 calls (gpt-4o via the local proxy, leases in dynalite)`,
    );
    const header =
      'concurrency  served  refused  spend $   past cap $  room at 1st refusal $  wall s  verdict';
    console.log(header);
    console.log('-'.repeat(header.length));
    for (const concurrency of [32, 128]) {
      const orgId = `org_holdout_${concurrency}`;
      const k = generateApiKey((n) => randomBytes(n));
      await services.orgs.ensure(orgId, new Date().toISOString());
      await services.keys.create({
        publicId: k.publicId,
        orgId,
        prefix: k.prefix,
        hash: hashApiKey(k.apiKey, pepper),
        name: 'bench',
        createdAt: new Date().toISOString(),
        revokedAt: null,
      });
      await services.config.put(
        orgId,
        {
          budget: { dailyLimitUsd: 0.3, action: 'block' },
          policy: {},
          updatedAt: new Date().toISOString(),
        },
        0,
      );
      const client = new OpenAI({
        apiKey: 'sk-bench',
        baseURL: `${proxy.url}/openai/v1`,
        defaultHeaders: { 'Service-API-Key': k.apiKey },
      });
      const before = mock.requests().length;
      let served = 0;
      let refused = 0;
      let roomAtFirstRefusal: number | null = null;
      const t0 = performance.now();
      for (let wave = 0; wave < WAVES; wave++) {
        const results = await Promise.all(
          Array.from({ length: concurrency }, () =>
            client.chat.completions
              .create({
                model: 'gpt-4o',
                max_tokens: 64,
                messages: [{ role: 'user', content: promptOfNextCall() }],
              })
              .then(
                () => true,
                (err: unknown) => {
                  if (err instanceof OpenAI.APIError && err.status === 429) return false;
                  throw err;
                },
              ),
          ),
        );
        const ok = results.filter(Boolean).length;
        served += ok;
        refused += results.length - ok;
        if (roomAtFirstRefusal === null && ok < results.length)
          roomAtFirstRefusal = CAP_NANOS - served * CALL_NANOS;
      }
      const wall = (performance.now() - t0) / 1000;
      const reached = mock.requests().length - before;
      const spend = reached * CALL_NANOS;
      const past = Math.max(0, spend - CAP_NANOS);
      const ok = past <= CALL_NANOS && roomAtFirstRefusal !== null && roomAtFirstRefusal < CALL_NANOS;
      console.log(
        [
          String(concurrency).padEnd(11),
          String(served).padEnd(7),
          String(refused).padEnd(8),
          (spend / 1e9).toFixed(3).padEnd(9),
          (past / 1e9).toFixed(3).padEnd(11),
          (roomAtFirstRefusal === null ? 'n/a' : (roomAtFirstRefusal / 1e9).toFixed(4)).padEnd(22),
          wall.toFixed(1).padEnd(7),
          ok ? 'ok' : 'MISSED',
        ].join(' '),
      );
    }
  } finally {
    await proxy.close();
    await mock.close();
    clients.destroy();
    await standIns.close();
  }
}
