/**
 * Guardrail engine: the evaluation report (detection, calls until kill, false positives) and
 * throughput through all five layers, in memory, on one core.
 */
import { applyEvent, DEFAULT_POLICY, initialOrgState, maxStateBytes } from '../core/guardrails';
import type { GuardrailEvent, OrgGuardrailState } from '../core/guardrails';
import { evaluateGuardrails, formatEvaluationReport } from '../core/guardrails/evaluate';
import { generateNormalWorkload } from '../core/guardrails/workload';

const TARGET_EVENTS_PER_SECOND = 500_000;

/** One pass over the stream, as a shard consumer would: per-organization state, events in arrival order. */
function pass(events: readonly GuardrailEvent[], policies: Map<string, typeof DEFAULT_POLICY>): number {
  const states = new Map<string, OrgGuardrailState>();
  let verdicts = 0;
  for (const e of events) {
    const r = applyEvent(states.get(e.orgId) ?? initialOrgState(), e, policies.get(e.orgId) ?? DEFAULT_POLICY, e.ts);
    states.set(e.orgId, r.state);
    verdicts += r.verdicts.length;
  }
  return verdicts;
}

export default async function (): Promise<void> {
  const t0 = performance.now();
  const report = evaluateGuardrails({ seed: 1, normalSessions: 5000, scenariosPerKind: 50 });
  console.log(formatEvaluationReport(report));
  console.log(`(evaluation took ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);

  const orgs = generateNormalWorkload({ seed: 2, minSessions: 5000 });
  const policies = new Map(orgs.map((o) => [o.orgId, o.policy]));
  // Interleave organizations by arrival, like one Kinesis shard carrying many organizations; the
  // JSON round trip allocates the events in stream order, as a consumer parsing records would.
  const events = JSON.parse(JSON.stringify(orgs.flatMap((o) => o.events).sort((a, b) => a.ts - b.ts))) as GuardrailEvent[];
  for (let i = 0; i < 3; i++) pass(events, policies); // warm-up
  let bestWall = Infinity;
  let bestCpu = Infinity;
  for (let i = 0; i < 10; i++) {
    const cpu0 = process.cpuUsage();
    const w0 = performance.now();
    pass(events, policies);
    bestWall = Math.min(bestWall, (performance.now() - w0) / 1000);
    const cpu = process.cpuUsage(cpu0);
    bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / 1e6);
  }
  const perCpu = events.length / bestCpu;
  const perWall = events.length / bestWall;
  console.log(`throughput, all five layers, ${events.length} events of ${orgs.length} organizations (best of 10 passes):`);
  console.log(
    `  ${Math.round(perWall).toLocaleString('en-US')} events/s wall, ${Math.round(perCpu).toLocaleString('en-US')} events/s per CPU-second ` +
      `(target ≥ ${TARGET_EVENTS_PER_SECOND.toLocaleString('en-US')}) ${Math.max(perWall, perCpu) >= TARGET_EVENTS_PER_SECOND ? 'OK' : 'BELOW TARGET'}`,
  );
  console.log(`  state bound with the default policy: ${maxStateBytes(DEFAULT_POLICY).toLocaleString('en-US')} bytes (limit 65,536)`);
}
