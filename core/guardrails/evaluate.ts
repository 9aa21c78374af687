/**
 * Evaluation of the five layers against the seeded workload: detection rate and calls until
 * kill for every runaway kind, and false positives over a population of normal sessions.
 * Deterministic for a given seed; used by the tests (targets) and by the bench (report).
 */
import { applyEvent } from './engine';
import { LAYER_IDS, GUARDRAIL_LAYERS } from './layers';
import { compareSequenceNumbers } from './sequence';
import { initialOrgState } from './state';
import type { OrgGuardrailState } from './state';
import type { LayerId, Verdict } from './types';
import { generateNormalWorkload, generateRunawayScenario, RUNAWAY_KINDS } from './workload';
import type { RunawayKind, RunawayScenario, WorkloadOrg } from './workload';

export interface EvaluationOptions {
  seed: number;
  /** Normal sessions in the false-positive population (≥ 1,000 for the targets). */
  normalSessions: number;
  /** Scenarios generated per runaway kind. */
  scenariosPerKind: number;
}

export interface LayerFalsePositives {
  verdicts: number;
  /** Distinct (key, session-or-model) streams that received a verdict. */
  sessions: number;
}

export interface NormalPopulationReport {
  orgs: number;
  sessions: number;
  events: number;
  /** Premium calls the generator downgraded to stay inside layer 5's envelope. */
  premiumDowngrades: number;
  falsePositiveVerdicts: number;
  falsePositiveSessions: number;
  byLayer: Record<LayerId, LayerFalsePositives>;
}

export interface CallsUntilKill {
  min: number;
  median: number;
  max: number;
}

export interface RunawayKindReport {
  kind: RunawayKind;
  expectedLayer: LayerId;
  scenarios: number;
  /** Scenarios in which the expected layer issued a hard stop against the runaway. */
  detectedByExpectedLayer: number;
  /** Scenarios in which any layer issued a hard stop against the runaway. */
  killed: number;
  /** Calls of the runaway up to and including the expected layer's first verdict. */
  callsUntilKill: CallsUntilKill | null;
  /** Scenarios whose kill happened exactly on the expected call (4th identical / 11th in 60 s). */
  exactKills?: { met: number; of: number };
  /** Which layer stopped the runaway first, per scenario. */
  firstLayer: Partial<Record<LayerId, number>>;
}

export interface LayerReport {
  layer: LayerId;
  ordinal: number;
  name: string;
  scenarios: number;
  detected: number;
  detectionRate: number;
  callsUntilKill: CallsUntilKill | null;
  falsePositives: number;
}

export interface EvaluationReport {
  options: EvaluationOptions;
  normal: NormalPopulationReport;
  runaways: RunawayKindReport[];
  layers: LayerReport[];
  targets: {
    everyRunawayKilled: boolean;
    zeroFalsePositives: boolean;
    identicalLoopOnFourthCall: boolean;
    burstOnEleventhRequest: boolean;
  };
}

interface SeqVerdict {
  verdict: Verdict;
}

/** Runs an organization's events through the engine, in order, with `now` = event time. */
export function replayOrg(org: WorkloadOrg): { state: OrgGuardrailState; verdicts: SeqVerdict[] } {
  let state = initialOrgState();
  const verdicts: SeqVerdict[] = [];
  for (const event of org.events) {
    const r = applyEvent(state, event, org.policy, event.ts);
    state = r.state;
    for (const verdict of r.verdicts) verdicts.push({ verdict });
  }
  return { state, verdicts };
}

function summarize(values: number[]): CallsUntilKill | null {
  if (values.length === 0) return null;
  const sorted = values.slice().sort((a, b) => a - b);
  return {
    min: sorted[0] as number,
    median: sorted[Math.floor((sorted.length - 1) / 2)] as number,
    max: sorted[sorted.length - 1] as number,
  };
}

function emptyByLayer(): Record<LayerId, LayerFalsePositives> {
  const out = {} as Record<LayerId, LayerFalsePositives>;
  for (const id of LAYER_IDS) out[id] = { verdicts: 0, sessions: 0 };
  return out;
}

function evaluateNormal(orgs: WorkloadOrg[]): NormalPopulationReport {
  const byLayer = emptyByLayer();
  const streams = new Map<LayerId, Set<string>>();
  const allStreams = new Set<string>();
  let events = 0;
  let falsePositiveVerdicts = 0;
  for (const org of orgs) {
    events += org.events.length;
    const { verdicts } = replayOrg(org);
    for (const { verdict } of verdicts) {
      falsePositiveVerdicts++;
      byLayer[verdict.layer].verdicts++;
      const stream = `${org.orgId}|${verdict.keyId}|${verdict.sessionId ?? ''}`;
      let set = streams.get(verdict.layer);
      if (set === undefined) streams.set(verdict.layer, (set = new Set()));
      set.add(stream);
      allStreams.add(stream);
    }
  }
  for (const [layer, set] of streams) byLayer[layer].sessions = set.size;
  return {
    orgs: orgs.length,
    sessions: orgs.reduce((n, o) => n + o.sessions, 0),
    events,
    premiumDowngrades: orgs.reduce((n, o) => n + o.premiumDowngrades, 0),
    falsePositiveVerdicts,
    falsePositiveSessions: allStreams.size,
    byLayer,
  };
}

function targetsRunaway(verdict: Verdict, scenario: RunawayScenario): boolean {
  if (verdict.mode === 'alert') return false;
  if (verdict.scope === 'organization') return true;
  if (verdict.keyId !== scenario.runaway.keyId) return false;
  return (
    verdict.scope === 'key' ||
    scenario.runaway.sessionId === undefined ||
    verdict.sessionId === scenario.runaway.sessionId
  );
}

/** Calls of the runaway with a sequence number ≤ seq (1-based index of the kill). */
function runawayCallIndex(scenario: RunawayScenario, seq: string): number {
  let n = 0;
  for (const s of scenario.runaway.seqs) if (compareSequenceNumbers(s, seq) <= 0) n++;
  return n;
}

function evaluateKind(kind: RunawayKind, options: EvaluationOptions): RunawayKindReport {
  let detected = 0;
  let killed = 0;
  let exactMet = 0;
  let exactOf = 0;
  const calls: number[] = [];
  const firstLayer: Partial<Record<LayerId, number>> = {};
  let expectedLayer: LayerId = 'financialLimits';
  for (let i = 0; i < options.scenariosPerKind; i++) {
    const scenario = generateRunawayScenario(kind, options.seed * 1000 + i);
    expectedLayer = scenario.expectedLayer;
    const firstRunawaySeq = scenario.runaway.seqs[0];
    if (firstRunawaySeq === undefined) continue;
    const { verdicts } = replayOrg(scenario);
    const stops = verdicts
      .map((v) => v.verdict)
      .filter((v) => compareSequenceNumbers(v.seq, firstRunawaySeq) >= 0 && targetsRunaway(v, scenario));
    const first = stops[0];
    if (first !== undefined) {
      killed++;
      firstLayer[first.layer] = (firstLayer[first.layer] ?? 0) + 1;
    }
    const own = stops.find((v) => v.layer === scenario.expectedLayer);
    if (own !== undefined) {
      detected++;
      const index = runawayCallIndex(scenario, own.seq);
      calls.push(index);
      if (scenario.runaway.expectedKillCall !== undefined) {
        exactOf++;
        if (index === scenario.runaway.expectedKillCall) exactMet++;
      }
    } else if (scenario.runaway.expectedKillCall !== undefined) {
      exactOf++;
    }
  }
  const report: RunawayKindReport = {
    kind,
    expectedLayer,
    scenarios: options.scenariosPerKind,
    detectedByExpectedLayer: detected,
    killed,
    callsUntilKill: summarize(calls),
    firstLayer,
  };
  if (exactOf > 0) report.exactKills = { met: exactMet, of: exactOf };
  return report;
}

/** Runs the whole evaluation. ~1–2 s for 1,000 normal sessions and 30 scenarios per kind. */
export function evaluateGuardrails(options: EvaluationOptions): EvaluationReport {
  const normal = evaluateNormal(
    generateNormalWorkload({ seed: options.seed, minSessions: options.normalSessions }),
  );
  const runaways = RUNAWAY_KINDS.map((kind) => evaluateKind(kind, options));
  const layers: LayerReport[] = LAYER_IDS.map((layer) => {
    const mine = runaways.filter((r) => r.expectedLayer === layer);
    const scenarios = mine.reduce((n, r) => n + r.scenarios, 0);
    const detected = mine.reduce((n, r) => n + r.detectedByExpectedLayer, 0);
    const all = mine.flatMap((r) => (r.callsUntilKill ? [r.callsUntilKill] : []));
    return {
      layer,
      ordinal: GUARDRAIL_LAYERS[layer].ordinal,
      name: GUARDRAIL_LAYERS[layer].name,
      scenarios,
      detected,
      detectionRate: scenarios === 0 ? 0 : detected / scenarios,
      callsUntilKill:
        all.length === 0
          ? null
          : {
              min: Math.min(...all.map((c) => c.min)),
              median: Math.max(...all.map((c) => c.median)),
              max: Math.max(...all.map((c) => c.max)),
            },
      falsePositives: normal.byLayer[layer].verdicts,
    };
  });
  const exact = (kinds: RunawayKind[]): boolean =>
    runaways
      .filter((r) => kinds.includes(r.kind))
      .every(
        (r) =>
          r.exactKills !== undefined &&
          r.exactKills.met === r.exactKills.of &&
          r.exactKills.of === r.scenarios,
      );
  return {
    options,
    normal,
    runaways,
    layers,
    targets: {
      everyRunawayKilled: runaways.every((r) => r.killed === r.scenarios),
      zeroFalsePositives: normal.falsePositiveVerdicts === 0,
      identicalLoopOnFourthCall: exact(['identical_loop', 'identical_loop_sdk']),
      burstOnEleventhRequest: exact(['burst', 'aggregator_drift_loop']),
    },
  };
}

function pad(text: string | number, width: number): string {
  return String(text).padEnd(width);
}

function formatCalls(c: CallsUntilKill | null): string {
  return c === null ? '—' : `${c.min} / ${c.median} / ${c.max}`;
}

/** The report as a plain-text table (bench output and docs). */
export function formatEvaluationReport(report: EvaluationReport): string {
  const n = report.normal;
  const lines = [
    `Normal population: ${n.sessions} sessions in ${n.orgs} organizations, ${n.events} events ` +
      `(${n.premiumDowngrades} premium calls kept inside layer 5's envelope); ` +
      `false positives: ${n.falsePositiveVerdicts} verdicts, ${n.falsePositiveSessions} sessions`,
    '',
    `${pad('layer', 34)}${pad('scenarios', 11)}${pad('detected', 10)}${pad('rate', 8)}${pad('calls to kill min/med/max', 27)}false positives`,
  ];
  for (const l of report.layers) {
    lines.push(
      `${pad(`${l.ordinal} ${l.name}`, 34)}${pad(l.scenarios, 11)}${pad(l.detected, 10)}${pad(`${(l.detectionRate * 100).toFixed(0)} %`, 8)}` +
        `${pad(formatCalls(l.callsUntilKill), 27)}${l.falsePositives}`,
    );
  }
  lines.push(
    '',
    `${pad('runaway kind', 24)}${pad('expected layer', 22)}${pad('killed', 9)}${pad('by expected', 13)}${pad('calls min/med/max', 19)}${pad('exact', 9)}first layer`,
  );
  for (const r of report.runaways) {
    const first = Object.entries(r.firstLayer)
      .map(([layer, count]) => `${layer}:${count}`)
      .join(' ');
    lines.push(
      `${pad(r.kind, 24)}${pad(r.expectedLayer, 22)}${pad(`${r.killed}/${r.scenarios}`, 9)}${pad(`${r.detectedByExpectedLayer}/${r.scenarios}`, 13)}` +
        `${pad(formatCalls(r.callsUntilKill), 19)}${pad(r.exactKills ? `${r.exactKills.met}/${r.exactKills.of}` : '—', 9)}${first}`,
    );
  }
  const t = report.targets;
  lines.push(
    '',
    `targets: every runaway killed ${t.everyRunawayKilled ? 'YES' : 'NO'}; zero false positives ${t.zeroFalsePositives ? 'YES' : 'NO'}; ` +
      `layer 2 on the 4th call ${t.identicalLoopOnFourthCall ? 'YES' : 'NO'}; layer 4 on the 11th request ${t.burstOnEleventhRequest ? 'YES' : 'NO'}`,
  );
  return lines.join('\n');
}
