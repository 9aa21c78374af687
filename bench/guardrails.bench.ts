/**
 * Guardrail engine: the evaluation report (detection rate, calls until kill, false positives per
 * layer) and throughput through all five layers, in memory, on one core.
 *
 * Throughput is measured twice: on the modules as tsx loads them (one CommonJS module per file,
 * whose exports esbuild's per-file transform turns into getters, so every cross-module call pays
 * a getter), and on an esbuild bundle of core/guardrails — the form the Lambda ships.
 */
import { buildSync } from 'esbuild';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as modules from '../core/guardrails';
import type { GuardrailEvent, GuardrailPolicy, OrgGuardrailState } from '../core/guardrails';
import { evaluateGuardrails, formatEvaluationReport } from '../core/guardrails/evaluate';
import { generateNormalWorkload } from '../core/guardrails/workload';

const TARGET_EVENTS_PER_SECOND = 500_000;

type Engine = Pick<typeof modules, 'applyEvent' | 'initialOrgState' | 'DEFAULT_POLICY'>;

/** One pass over the stream, as a shard consumer would: per-organization state, events in arrival order. */
function pass(
  engine: Engine,
  events: readonly GuardrailEvent[],
  policies: Map<string, GuardrailPolicy>,
): number {
  const states = new Map<string, OrgGuardrailState>();
  let verdicts = 0;
  for (const e of events) {
    const r = engine.applyEvent(
      states.get(e.orgId) ?? engine.initialOrgState(),
      e,
      policies.get(e.orgId) ?? engine.DEFAULT_POLICY,
      e.ts,
    );
    states.set(e.orgId, r.state);
    verdicts += r.verdicts.length;
  }
  return verdicts;
}

/** Best of 10 passes after 3 warm-ups: CPU-seconds (this process) and wall-clock seconds. */
function measure(engine: Engine, events: readonly GuardrailEvent[], policies: Map<string, GuardrailPolicy>) {
  for (let i = 0; i < 3; i++) pass(engine, events, policies);
  let cpu = Infinity;
  let wall = Infinity;
  for (let i = 0; i < 10; i++) {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    pass(engine, events, policies);
    wall = Math.min(wall, (performance.now() - w0) / 1000);
    const c = process.cpuUsage(c0);
    cpu = Math.min(cpu, (c.user + c.system) / 1e6);
  }
  return { perCpuSecond: events.length / cpu, perWallSecond: events.length / wall };
}

function bundledEngine(): Engine {
  const outfile = join(tmpdir(), `spendguard-guardrails-${process.pid}.cjs`);
  buildSync({
    entryPoints: [join(__dirname, '../core/guardrails/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return createRequire(__filename)(outfile) as Engine;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

export default async function (): Promise<void> {
  const t0 = performance.now();
  const report = evaluateGuardrails({ seed: 1, normalSessions: 5000, scenariosPerKind: 50 });
  console.log(formatEvaluationReport(report));
  console.log(`(evaluation took ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);

  const orgs = generateNormalWorkload({ seed: 2, minSessions: 5000 });
  const policies = new Map(orgs.map((o) => [o.orgId, o.policy]));
  // Organizations interleaved by time, as on one Kinesis shard; the JSON round trip allocates the
  // events in stream order, as a consumer parsing records does.
  const events = JSON.parse(
    JSON.stringify(orgs.flatMap((o) => o.events).sort((a, b) => a.ts - b.ts)),
  ) as GuardrailEvent[];
  console.log(
    `throughput through all five layers: ${fmt(events.length)} events of ${orgs.length} organizations, best of 10 passes`,
  );
  const bundled = measure(bundledEngine(), events, policies);
  const best = Math.max(bundled.perCpuSecond, bundled.perWallSecond);
  console.log(
    `  ${'esbuild bundle (as deployed)'.padEnd(30)} ${fmt(bundled.perCpuSecond).padStart(10)} events/CPU-s ` +
      `${fmt(bundled.perWallSecond).padStart(10)} events/s wall  (target ≥ ${fmt(TARGET_EVENTS_PER_SECOND)} per core) ` +
      `${best >= TARGET_EVENTS_PER_SECOND ? 'OK' : 'BELOW TARGET'}`,
  );
  const perFile = measure(modules, events, policies);
  console.log(
    `  ${'tsx, one module per file'.padEnd(30)} ${fmt(perFile.perCpuSecond).padStart(10)} events/CPU-s ` +
      `${fmt(perFile.perWallSecond).padStart(10)} events/s wall  (reference: every cross-module call pays an export getter)`,
  );
  console.log(
    `state bound with the default policy: ${fmt(modules.maxStateBytes(modules.DEFAULT_POLICY))} bytes (limit 65,536)`,
  );
}
