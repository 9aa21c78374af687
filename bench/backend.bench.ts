/**
 * Backend through the local stack (issue 4): ingest throughput in events per second, and detection
 * latency from an ingest request to the flag being visible to the edge check (target p99 ≤ 1 s locally).
 */
import { flagKeyFor, parseApiKey } from '../core/keys';
import { sessionFlagItemKey } from '../lambdas/shared/flag-item-keys';
import { startLocalStack } from '../local/stack';

process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

export default async function backendBench(): Promise<void> {
  const stack = await startLocalStack({
    memory: true,
    apiPort: 0,
    proxyPort: 0,
    dashboardDir: '/nonexistent',
  });
  try {
    const parsed = parseApiKey(stack.apiKey);
    if (!parsed.ok) throw new Error('bad seeded key');
    const pepper = await stack.services.pepper.get();
    const post = (events: unknown[]) =>
      fetch(`${stack.apiUrl}/api/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiKey: stack.apiKey, events }),
      });

    // Throughput: batches of 100 events, 8 requests in flight, for a bounded number of batches.
    const BATCHES = 200;
    const CONCURRENCY = 8;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < BATCHES) {
          const b = next++;
          const events = Array.from({ length: 100 }, (_, i) => ({
            model: 'gpt-4o-mini',
            usage: { prompt_tokens: 200 + ((b * 100 + i) % 997), completion_tokens: 50 },
            eventId: `evt_tp_${b}_${i}`,
            sessionId: `s${b}_${i}`,
          }));
          const res = await post(events);
          if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
          await res.arrayBuffer();
        }
      }),
    );
    const ingestSeconds = (performance.now() - started) / 1000;
    await stack.drain();
    const drainedSeconds = (performance.now() - started) / 1000;
    const total = BATCHES * 100;

    // Detection latency: four identical calls in one request → the session's flag visible; repeat.
    const flagKey = flagKeyFor(parsed.prefix, pepper);
    const latencies: number[] = [];
    for (let run = 0; run < 30; run++) {
      const sessionItem = sessionFlagItemKey(flagKey, `det_${run}`);
      const events = [0, 1, 2, 3].map((i) => ({
        model: 'gpt-4o-mini',
        usage: { prompt_tokens: 7000 + run, completion_tokens: 5 },
        eventId: `evt_det_${run}_${i}`,
        sessionId: `det_${run}`,
      }));
      const t0 = performance.now();
      await post(events);
      while (!(await stack.services.flags.get(sessionItem, Date.now()))) {
        if (performance.now() - t0 > 10_000) throw new Error('flag never appeared');
        await new Promise((r) => setTimeout(r, 2));
      }
      latencies.push(performance.now() - t0);
    }
    latencies.sort((a, b) => a - b);
    console.table([
      { metric: 'ingest accepted (events/s)', value: Math.round(total / ingestSeconds), target: '—' },
      {
        metric: 'ingested + priced + guarded (events/s)',
        value: Math.round(total / drainedSeconds),
        target: '—',
      },
      { metric: 'detection latency p50 (ms)', value: Math.round(quantile(latencies, 0.5)), target: '—' },
      {
        metric: 'detection latency p99 (ms)',
        value: Math.round(quantile(latencies, 0.99)),
        target: '≤ 1000',
      },
    ]);
  } finally {
    await stack.stop();
  }
}
