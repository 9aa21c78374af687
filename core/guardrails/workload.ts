/**
 * Seeded workload generator for the guardrail evaluation: organizations of normal agent
 * sessions, and the same with one runaway pattern injected (one per layer, plus variants).
 * Pure and deterministic: the same seed gives the same events.
 *
 * Normal sessions model what production agents do:
 * - contexts that grow by varied increments (the model's answer plus a tool output, a user
 *   message or an error of varied size), occasionally compacted (summarization);
 * - side calls to a cheaper model (classifiers) and, in mixed organizations, occasional
 *   escalations to a premium model;
 * - failed calls retried by the SDK with the identical body (at most 3 identical requests);
 * - retries after a tool error with different content;
 * - quick tool-call sequences: bursts of up to 10 requests per minute per key, some exactly at
 *   the limit (a client-side limiter spaces the 11th by ≥ 60 s; sometimes by exactly 60 s);
 * - small organizations that use a flagship model exclusively but stay below the layer-5 floor;
 * - SDK events (no body fingerprint; events flushed every 5 s) and proxy events (fingerprint,
 *   posted when the response ends), so event times arrive out of order across sessions;
 * - sessions named by the caller, and unnamed ones (the keyId + model fallback).
 *
 * Envelopes the generator enforces by construction, because the spec defines them as the
 * boundary of normal: at most 10 requests per key per sliding minute (layer 4), and premium
 * spend in any trailing hour either at most $4.50 (so the $5 floor at 90 % cannot be met) or at
 * most 60 % of the hour's spend (layer 5: other premium calls fall back to the non-premium main
 * model; the count is reported). Layers 2 and 3
 * get no such help: their false-positive rate is a real measurement of the rule against
 * varied content.
 */
import { SeededRandom } from '../forecast/random';
import type { GuardrailEvent, LayerId } from './types';
import { DEFAULT_POLICY } from './policy';
import type { GuardrailPolicy } from './policy';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { ceil, exp, floor, imul, max, min, round } = Math;

/** A model with list prices in integer nano-USD per token. */
export interface WorkloadModel {
  provider: string;
  model: string;
  inputNanosPerToken: number;
  outputNanosPerToken: number;
  premium: boolean;
  contextWindow: number;
}

const m = (
  provider: string,
  model: string,
  inputNanosPerToken: number,
  outputNanosPerToken: number,
  premium: boolean,
  contextWindow: number,
): WorkloadModel => ({ provider, model, inputNanosPerToken, outputNanosPerToken, premium, contextWindow });

/** The models the generator uses (approximate list prices). */
export const WORKLOAD_MODELS = {
  gpt4oMini: m('openai', 'gpt-4o-mini', 150, 600, false, 128_000),
  gpt41: m('openai', 'gpt-4.1', 2_000, 8_000, false, 1_000_000),
  o3Pro: m('openai', 'o3-pro', 20_000, 80_000, true, 200_000),
  haiku: m('anthropic', 'claude-3-5-haiku', 800, 4_000, false, 200_000),
  sonnet: m('anthropic', 'claude-sonnet-4', 3_000, 15_000, false, 200_000),
  opus: m('anthropic', 'claude-opus-4-1', 15_000, 75_000, true, 200_000),
  orSonnet: m('openrouter', 'anthropic/claude-sonnet-4', 3_000, 15_000, false, 200_000),
  orMini: m('openrouter', 'openai/gpt-4o-mini', 150, 600, false, 128_000),
  orOpus: m('openrouter', 'anthropic/claude-opus-4.1', 15_000, 75_000, true, 200_000),
} as const satisfies Record<string, WorkloadModel>;

interface Palette {
  main: WorkloadModel;
  cheap: WorkloadModel;
  premium: WorkloadModel;
}

const PALETTES: readonly Palette[] = [
  { main: WORKLOAD_MODELS.gpt41, cheap: WORKLOAD_MODELS.gpt4oMini, premium: WORKLOAD_MODELS.o3Pro },
  { main: WORKLOAD_MODELS.gpt4oMini, cheap: WORKLOAD_MODELS.gpt4oMini, premium: WORKLOAD_MODELS.o3Pro },
  { main: WORKLOAD_MODELS.sonnet, cheap: WORKLOAD_MODELS.haiku, premium: WORKLOAD_MODELS.opus },
  { main: WORKLOAD_MODELS.haiku, cheap: WORKLOAD_MODELS.haiku, premium: WORKLOAD_MODELS.opus },
  { main: WORKLOAD_MODELS.orSonnet, cheap: WORKLOAD_MODELS.orMini, premium: WORKLOAD_MODELS.orOpus },
];

/** Kinds of runaway the generator can inject. */
export type RunawayKind =
  | 'identical_loop'
  | 'identical_loop_sdk'
  | 'aggregator_drift_loop'
  | 'linear_growth_loop'
  | 'burst'
  | 'premium_hijack'
  | 'overspend';

/** The layer each runaway kind is meant to be stopped by. */
export const RUNAWAY_LAYER: Readonly<Record<RunawayKind, LayerId>> = Object.freeze({
  identical_loop: 'identicalLoop',
  identical_loop_sdk: 'identicalLoop',
  aggregator_drift_loop: 'rpsBurst',
  linear_growth_loop: 'contextGrowth',
  burst: 'rpsBurst',
  premium_hijack: 'premiumConcentration',
  overspend: 'financialLimits',
});

export const RUNAWAY_KINDS: readonly RunawayKind[] = Object.freeze(
  Object.keys(RUNAWAY_LAYER) as RunawayKind[],
);

/** One generated organization: its events in arrival (sequence) order and its policy. */
export interface WorkloadOrg {
  orgId: string;
  policy: GuardrailPolicy;
  events: GuardrailEvent[];
  /** Normal sessions in this organization. */
  sessions: number;
  /** Premium calls the generator downgraded to stay inside layer 5's envelope. */
  premiumDowngrades: number;
}

/** A generated organization with one runaway agent injected. */
export interface RunawayScenario extends WorkloadOrg {
  kind: RunawayKind;
  expectedLayer: LayerId;
  runaway: {
    keyId: string;
    sessionId?: string;
    /** Sequence numbers of the runaway's calls, in arrival order. */
    seqs: string[];
    /**
     * The runaway call (1-based) on which the rule must trip when the target is exact: the 4th
     * identical call (layer 2), or the 11th request inside a 60-s window (layer 4, computed by a
     * brute-force oracle over the key's timestamps). Undefined when only detection is required.
     */
    expectedKillCall?: number;
  };
}

/** One call as an agent issues it. */
interface CallSpec {
  model: WorkloadModel;
  promptTokens: number;
  completionTokens: number;
  fingerprint?: string;
  failed?: boolean;
  /** Sent to a premium model because the organization's model routing was hijacked. */
  hijacked?: boolean;
  latencyMs: number;
}

interface KeySpec {
  keyId: string;
  source: 'proxy' | 'sdk';
  namesSessions: boolean;
  /** Offset of the SDK's 5-s flush timer. */
  flushOffsetMs: number;
}

interface PendingEvent {
  event: Omit<GuardrailEvent, 'seq'>;
  arrival: number;
  order: number;
  runaway: boolean;
}

interface Agent {
  key: KeySpec;
  sessionId?: string;
  nextAt: number;
  runaway: boolean;
  /** Bypass the per-key limiter / the premium envelope (runaways do). */
  unlimited: boolean;
  /** Arrival strictly in time order (a single in-order client). */
  inOrderDelivery: boolean;
  step(t: number, org: OrgBuilder): { call: CallSpec; nextDelayMs: number | null };
}

const HOUR = 3_600_000;

function randomFingerprint(rng: SeededRandom): string {
  let hex = 'sha256:';
  for (let i = 0; i < 8; i++) hex += rng.nextUint32().toString(16).padStart(8, '0');
  return hex;
}

function logNormalInt(rng: SeededRandom, median: number, sigma: number, lo: number, hi: number): number {
  return max(lo, min(hi, round(median * exp(sigma * rng.normal()))));
}

function latencyFor(rng: SeededRandom, completionTokens: number): number {
  return round(300 + completionTokens * rng.between(6, 20) + logNormalInt(rng, 400, 0.6, 50, 10_000));
}

function costOf(call: CallSpec): number {
  if (call.failed) return 0;
  return (
    call.promptTokens * call.model.inputNanosPerToken + call.completionTokens * call.model.outputNanosPerToken
  );
}

/** Builds one organization's event stream: scheduling, per-key limiter, premium envelope, delivery. */
class OrgBuilder {
  readonly pending: PendingEvent[] = [];
  private readonly keyTimes = new Map<string, number[]>();
  private readonly spend: { ts: number; cost: number; premium: boolean }[] = [];
  premiumDowngrades = 0;
  /** From this time on the organization's model routing sends every call to the premium model. */
  hijackAt = Infinity;
  private order = 0;

  constructor(
    readonly rng: SeededRandom,
    readonly orgId: string,
  ) {}

  /** Earliest time ≥ t at which the key may send without an 11th request in 60 s. */
  earliest(keyId: string, t: number): number {
    const times = this.keyTimes.get(keyId);
    if (times === undefined || times.length < 10) return t;
    const tenthLast = times[times.length - 10] as number;
    if (t - tenthLast >= 60_000) return t;
    return tenthLast + 60_000 + (this.rng.chance(0.3) ? 0 : this.rng.int(3000));
  }

  /**
   * Whether a premium call of `cost` keeps the trailing hour inside layer 5's normal envelope:
   * premium spend ≤ $4.50 (the rule can then never trip, however the window ages), or ≤ 60 % of
   * the hour's spend (a mixed organization).
   */
  premiumAllowed(t: number, cost: number): boolean {
    while (this.spend.length > 0 && (this.spend[0] as { ts: number }).ts <= t - HOUR) this.spend.shift();
    let total = cost;
    let premium = cost;
    for (const s of this.spend) {
      total += s.cost;
      if (s.premium) premium += s.cost;
    }
    return premium <= 4_500_000_000 || premium <= 0.6 * total;
  }

  record(agent: Agent, t: number, call: CallSpec): void {
    const keyId = agent.key.keyId;
    let times = this.keyTimes.get(keyId);
    if (times === undefined) this.keyTimes.set(keyId, (times = []));
    times.push(t);
    if (times.length > 10) times.shift();
    const cost = costOf(call);
    this.spend.push({ ts: t, cost, premium: call.model.premium });
    const done = t + call.latencyMs;
    let arrival: number;
    if (agent.inOrderDelivery) arrival = t + 100;
    else if (agent.key.source === 'proxy') arrival = done + 50 + this.rng.int(300);
    else {
      // One flush every 5 s per SDK process: events of one flush arrive together, in call order.
      const off = agent.key.flushOffsetMs;
      const tick = ceil((done - off) / 5000) * 5000 + off;
      arrival = tick + 50 + (imul(tick | 0, 0x9e3779b1) >>> 24);
    }
    const event: Omit<GuardrailEvent, 'seq'> = {
      orgId: this.orgId,
      keyId,
      provider: call.model.provider,
      model: call.model.model,
      promptTokens: call.failed ? 0 : call.promptTokens,
      completionTokens: call.failed ? 0 : call.completionTokens,
      costNanos: cost,
      premium: call.model.premium,
      ts: t,
    };
    if (agent.sessionId !== undefined) event.sessionId = agent.sessionId;
    if (call.fingerprint !== undefined && agent.key.source === 'proxy') event.fingerprint = call.fingerprint;
    this.pending.push({
      event,
      arrival,
      order: this.order++,
      runaway: agent.runaway || call.hijacked === true,
    });
  }

  run(agents: Agent[]): void {
    const active = agents.slice();
    while (active.length > 0) {
      let best = 0;
      for (let i = 1; i < active.length; i++) {
        if ((active[i] as Agent).nextAt < (active[best] as Agent).nextAt) best = i;
      }
      const agent = active[best] as Agent;
      const t = agent.nextAt;
      if (!agent.unlimited) {
        const allowed = this.earliest(agent.key.keyId, t);
        if (allowed > t) {
          agent.nextAt = allowed;
          continue;
        }
      }
      const { call, nextDelayMs } = agent.step(t, this);
      this.record(agent, t, call);
      if (nextDelayMs === null) active.splice(best, 1);
      else agent.nextAt = t + max(1, round(nextDelayMs));
    }
  }

  /** Events sorted by arrival, with sequence numbers; and the runaway's sequence numbers. */
  finish(seqBase: number): { events: GuardrailEvent[]; runawaySeqs: string[] } {
    this.pending.sort((a, b) => a.arrival - b.arrival || a.order - b.order);
    const events: GuardrailEvent[] = [];
    const runawaySeqs: string[] = [];
    this.pending.forEach((p, i) => {
      const seq = `4960${String(seqBase).padStart(12, '0')}${String(i).padStart(40, '0')}`;
      events.push({ seq, ...p.event });
      if (p.runaway) runawaySeqs.push(seq);
    });
    return { events, runawaySeqs };
  }
}

/** A normal agent session. */
class NormalAgent implements Agent {
  nextAt: number;
  runaway = false;
  unlimited = false;
  inOrderDelivery = false;
  private context: number;
  private stepsLeft: number;
  private retry: { call: CallSpec; attemptsLeft: number } | null = null;

  constructor(
    protected readonly rng: SeededRandom,
    readonly key: KeySpec,
    protected readonly palette: Palette,
    start: number,
    readonly sessionId: string | undefined,
    private readonly style: { premiumShare: number; premiumMain: boolean; chatty: boolean; steps?: number },
  ) {
    this.nextAt = start;
    this.context = logNormalInt(rng, 1500, 0.7, 200, 30_000);
    this.stepsLeft = style.steps ?? min(80, 3 + floor(rng.exponential() * 18));
  }

  protected get mainModel(): WorkloadModel {
    return this.style.premiumMain ? this.palette.premium : this.palette.main;
  }

  /** The current context as the next main request, with a fresh fingerprint. */
  protected mainRequest(model: WorkloadModel): CallSpec {
    const completionTokens = logNormalInt(this.rng, 220, 0.8, 5, 4000);
    return {
      model,
      promptTokens: this.context,
      completionTokens,
      fingerprint: randomFingerprint(this.rng),
      latencyMs: latencyFor(this.rng, completionTokens),
    };
  }

  /** What the agent appends after a successful main call: its answer plus something of varied size. */
  protected grow(completionTokens: number, model: WorkloadModel): void {
    const r = this.rng.uniform();
    let added = completionTokens;
    if (r < 0.55) added += logNormalInt(this.rng, 500, 1.2, 5, 40_000);
    else if (r < 0.8) added += logNormalInt(this.rng, 60, 0.9, 2, 3000);
    else if (r < 0.92) added += logNormalInt(this.rng, 120, 0.6, 10, 2000);
    this.context += added;
    if (this.rng.chance(0.03) || this.context > 0.8 * model.contextWindow) {
      this.context = max(500, round(this.context * this.rng.between(0.2, 0.5)));
    }
  }

  protected thinkMs(call: CallSpec): number {
    const r = this.rng.uniform();
    const think =
      r < 0.5
        ? this.rng.between(200, 2000)
        : r < 0.9
          ? this.rng.between(2000, 20_000)
          : this.rng.between(20_000, 300_000);
    return call.latencyMs + (this.style.chatty ? think + this.rng.between(10_000, 90_000) : think);
  }

  step(t: number, org: OrgBuilder): { call: CallSpec; nextDelayMs: number | null } {
    if (this.retry !== null) {
      const retry = this.retry;
      retry.attemptsLeft--;
      const failed = retry.attemptsLeft > 0;
      const call = { ...retry.call, failed };
      if (failed) return { call, nextDelayMs: call.latencyMs + this.rng.between(500, 4000) };
      this.retry = null;
      this.grow(call.completionTokens, call.model);
      return this.finishStep(call);
    }
    const hijacked = t >= org.hijackAt;
    const r = this.rng.uniform();
    if (r < 0.12) {
      const completionTokens = logNormalInt(this.rng, 12, 0.6, 1, 60);
      const call: CallSpec = {
        model: hijacked ? this.palette.premium : this.palette.cheap,
        hijacked,
        promptTokens: logNormalInt(this.rng, 450, 0.35, 80, 4000),
        completionTokens,
        fingerprint: randomFingerprint(this.rng),
        latencyMs: latencyFor(this.rng, completionTokens),
      };
      return { call, nextDelayMs: call.latencyMs + this.rng.between(100, 1500) };
    }
    let model = hijacked ? this.palette.premium : this.mainModel;
    if (!model.premium && r < 0.12 + this.style.premiumShare) model = this.palette.premium;
    let call: CallSpec = { ...this.mainRequest(model), hijacked };
    if (model.premium && !hijacked && !org.premiumAllowed(t, costOf(call))) {
      org.premiumDowngrades++;
      call = { ...call, model: this.palette.main };
    }
    if (this.rng.chance(0.04)) {
      // A 429/5xx: the SDK retries the identical body once or twice; the last attempt succeeds.
      this.retry = { call, attemptsLeft: 1 + this.rng.int(2) };
      return { call: { ...call, failed: true }, nextDelayMs: call.latencyMs + this.rng.between(500, 4000) };
    }
    this.grow(call.completionTokens, call.model);
    return this.finishStep(call);
  }

  protected finishStep(call: CallSpec): { call: CallSpec; nextDelayMs: number | null } {
    this.stepsLeft--;
    return { call, nextDelayMs: this.stepsLeft <= 0 ? null : this.thinkMs(call) };
  }

  /** Current prompt size (for runaway agents built on a normal prefix). */
  get contextTokens(): number {
    return this.context;
  }
}

/** Normal steps, then the same request again and again. */
class IdenticalLoopAgent extends NormalAgent {
  private prefix: number;
  private loopCall: CallSpec | null = null;
  private loops: number;

  constructor(
    rng: SeededRandom,
    key: KeySpec,
    palette: Palette,
    start: number,
    sessionId: string | undefined,
    private readonly intervalMs: [number, number],
  ) {
    super(rng, key, palette, start, sessionId, {
      premiumShare: 0,
      premiumMain: false,
      chatty: false,
      steps: 1000,
    });
    this.prefix = 2 + rng.int(8);
    this.loops = 30;
    this.unlimited = true;
  }

  override step(t: number, org: OrgBuilder): { call: CallSpec; nextDelayMs: number | null } {
    if (this.prefix > 0) {
      this.prefix--;
      const out = super.step(t, org);
      return out.nextDelayMs === null ? { ...out, nextDelayMs: out.call.latencyMs + 2000 } : out;
    }
    this.runaway = true;
    this.loopCall ??= this.mainRequest(this.palette.main);
    this.loops--;
    return {
      call: this.loopCall,
      nextDelayMs:
        this.loops <= 0
          ? null
          : this.loopCall.latencyMs + this.rng.between(this.intervalMs[0], this.intervalMs[1]),
    };
  }
}

/** A loop through a routing aggregator: same request, prompt count drifting with the upstream tokenizer. */
class AggregatorDriftLoopAgent implements Agent {
  runaway = true;
  unlimited = true;
  inOrderDelivery = true;
  sessionId = undefined;
  private loops = 40;
  private readonly variants: number[];

  constructor(
    private readonly rng: SeededRandom,
    readonly key: KeySpec,
    public nextAt: number,
  ) {
    const base = logNormalInt(rng, 6000, 0.6, 800, 60_000);
    this.variants = [base, base + 7 + rng.int(20), base - 9 - rng.int(30)];
  }

  step(): { call: CallSpec; nextDelayMs: number | null } {
    this.loops--;
    const completionTokens = logNormalInt(this.rng, 150, 0.2, 20, 1000);
    const call: CallSpec = {
      model: WORKLOAD_MODELS.orSonnet,
      promptTokens: this.rng.pick(this.variants),
      completionTokens,
      latencyMs: latencyFor(this.rng, completionTokens),
    };
    return { call, nextDelayMs: this.loops <= 0 ? null : this.rng.between(1000, 4000) };
  }
}

/** Normal steps, then an error loop: the context grows by a near-constant increment per call. */
class LinearGrowthLoopAgent extends NormalAgent {
  private prefix: number;
  private loops = 40;
  private prompt = 0;
  private readonly base: number;
  private readonly completion: number;

  constructor(
    rng: SeededRandom,
    key: KeySpec,
    palette: Palette,
    start: number,
    sessionId: string | undefined,
  ) {
    super(rng, key, palette, start, sessionId, {
      premiumShare: 0,
      premiumMain: false,
      chatty: false,
      steps: 1000,
    });
    this.prefix = 3 + rng.int(8);
    this.base = round(rng.between(150, 1500));
    this.completion = round(rng.between(40, 200));
    this.unlimited = true;
  }

  override step(t: number, org: OrgBuilder): { call: CallSpec; nextDelayMs: number | null } {
    if (this.prefix > 0) {
      this.prefix--;
      const out = super.step(t, org);
      return out.nextDelayMs === null ? { ...out, nextDelayMs: out.call.latencyMs + 2000 } : out;
    }
    if (!this.runaway) {
      this.runaway = true;
      this.prompt = this.contextTokens;
    } else {
      this.prompt += round(this.base * (1 + this.rng.between(-0.03, 0.03)));
    }
    this.loops--;
    const completionTokens = this.completion + this.rng.int(5);
    const call: CallSpec = {
      model: this.palette.main,
      promptTokens: this.prompt,
      completionTokens,
      fingerprint: randomFingerprint(this.rng),
      latencyMs: latencyFor(this.rng, completionTokens),
    };
    return { call, nextDelayMs: this.loops <= 0 ? null : call.latencyMs + this.rng.between(1000, 12_000) };
  }
}

/** A fan-out: many different requests on one key within a minute. */
class BurstAgent implements Agent {
  runaway = true;
  unlimited = true;
  inOrderDelivery = true;
  sessionId = undefined;
  private left: number;
  private readonly maxGapMs: number;

  constructor(
    private readonly rng: SeededRandom,
    readonly key: KeySpec,
    public nextAt: number,
    private readonly palette: Palette,
  ) {
    this.left = 11 + rng.int(30);
    this.maxGapMs = rng.chance(0.5) ? 5000 : 2000;
  }

  step(): { call: CallSpec; nextDelayMs: number | null } {
    this.left--;
    const completionTokens = logNormalInt(this.rng, 200, 0.7, 5, 2000);
    const call: CallSpec = {
      model: this.palette.main,
      promptTokens: logNormalInt(this.rng, 3000, 0.8, 100, 50_000),
      completionTokens,
      fingerprint: randomFingerprint(this.rng),
      latencyMs: latencyFor(this.rng, completionTokens),
    };
    return { call, nextDelayMs: this.left <= 0 ? null : this.rng.between(200, this.maxGapMs) };
  }
}

/** Steady calls on one model with large, different prompts (premium hijack or overspend). */
class SteadySpenderAgent implements Agent {
  runaway = true;
  unlimited = true;
  inOrderDelivery = false;
  sessionId = undefined;

  constructor(
    private readonly rng: SeededRandom,
    readonly key: KeySpec,
    public nextAt: number,
    private readonly model: WorkloadModel,
    private left: number,
    private readonly prompt: [number, number],
    private readonly gapMs: [number, number],
  ) {}

  step(): { call: CallSpec; nextDelayMs: number | null } {
    this.left--;
    const completionTokens = logNormalInt(this.rng, 400, 0.5, 20, 4000);
    const call: CallSpec = {
      model: this.model,
      promptTokens: round(this.rng.between(this.prompt[0], this.prompt[1])),
      completionTokens,
      fingerprint: randomFingerprint(this.rng),
      latencyMs: latencyFor(this.rng, completionTokens),
    };
    return { call, nextDelayMs: this.left <= 0 ? null : this.rng.between(this.gapMs[0], this.gapMs[1]) };
  }
}

type OrgShape = 'small' | 'team' | 'platform';

interface OrgPlan {
  shape: OrgShape;
  keys: KeySpec[];
  palette: Palette;
  sessions: number;
  spanMs: number;
  premiumMain: boolean;
}

function makeKey(rng: SeededRandom, orgIndex: number, k: number): KeySpec {
  return {
    keyId: `abn_o${orgIndex}k${k}`,
    source: rng.chance(0.5) ? 'proxy' : 'sdk',
    namesSessions: rng.chance(0.5),
    flushOffsetMs: rng.int(5000),
  };
}

function planOrg(rng: SeededRandom, orgIndex: number, shape: OrgShape): OrgPlan {
  const keyCount = shape === 'small' ? 1 : shape === 'team' ? 2 + rng.int(3) : 4 + rng.int(5);
  const keys = Array.from({ length: keyCount }, (_, k) => makeKey(rng, orgIndex, k));
  const sessions = shape === 'small' ? 1 + rng.int(4) : shape === 'team' ? 5 + rng.int(16) : 20 + rng.int(41);
  return {
    shape,
    keys,
    palette: rng.pick(PALETTES),
    sessions,
    spanMs: shape === 'small' ? 6 * HOUR : 30 * HOUR,
    premiumMain: shape === 'small' && rng.chance(0.5),
  };
}

function normalAgents(rng: SeededRandom, plan: OrgPlan, start: number, orgIndex: number): Agent[] {
  const agents: Agent[] = [];
  for (let s = 0; s < plan.sessions; s++) {
    const key = rng.pick(plan.keys);
    const palette = rng.chance(0.8) ? plan.palette : rng.pick(PALETTES);
    const sessionId = key.namesSessions ? `sess_o${orgIndex}s${s}` : undefined;
    agents.push(
      new NormalAgent(rng, key, palette, start + rng.int(plan.spanMs), sessionId, {
        premiumShare: plan.premiumMain ? 0 : plan.shape === 'platform' ? 0.02 : 0.05,
        premiumMain: plan.premiumMain,
        chatty: plan.shape === 'small',
      }),
    );
  }
  return agents;
}

/** Caps comfortably above what a normal organization spends (no cap is crossed by normal use). */
function normalPolicy(events: readonly GuardrailEvent[], rng: SeededRandom): GuardrailPolicy {
  const perDay = new Map<number, number>();
  let month = 0;
  for (const e of events) {
    const d = floor(e.ts / 86_400_000);
    perDay.set(d, (perDay.get(d) ?? 0) + e.costNanos);
    month += e.costNanos;
  }
  const maxDay = max(0, ...perDay.values());
  if (rng.chance(0.2)) return DEFAULT_POLICY;
  return {
    ...DEFAULT_POLICY,
    financialLimits: {
      ...DEFAULT_POLICY.financialLimits,
      dailySoftCapNanos: round(maxDay * 1.5) + 5_000_000_000,
      dailyHardCapNanos: round(maxDay * 2) + 10_000_000_000,
      monthlySoftCapNanos: round(month * 3) + 50_000_000_000,
      monthlyHardCapNanos: round(month * 4) + 100_000_000_000,
    },
  };
}

export interface NormalWorkloadOptions {
  seed: number;
  /** Generate organizations until at least this many normal sessions exist. */
  minSessions: number;
  /** Start time (ms); the default spans a UTC month end (day and month roll-overs). */
  start?: number;
}

/** Default start: 2026-03-31 08:00 UTC, so 30-hour organizations cross a day and a month boundary. */
export const WORKLOAD_START = Date.UTC(2026, 2, 31, 8);

/** Organizations of normal sessions only (the false-positive population). */
export function generateNormalWorkload(options: NormalWorkloadOptions): WorkloadOrg[] {
  const rng = new SeededRandom(options.seed);
  const start = options.start ?? WORKLOAD_START;
  const orgs: WorkloadOrg[] = [];
  let sessions = 0;
  for (let i = 0; sessions < options.minSessions; i++) {
    const r = rng.uniform();
    const plan = planOrg(rng, i, r < 0.3 ? 'small' : r < 0.85 ? 'team' : 'platform');
    const orgId = `org_n${options.seed}_${i}`;
    const org = new OrgBuilder(new SeededRandom(rng.nextUint32()), orgId);
    org.run(normalAgents(org.rng, plan, start + rng.int(4 * HOUR), i));
    const { events } = org.finish(i);
    orgs.push({
      orgId,
      policy: normalPolicy(events, rng),
      events,
      sessions: plan.sessions,
      premiumDowngrades: org.premiumDowngrades,
    });
    sessions += plan.sessions;
  }
  return orgs;
}

/** The 1-based index at which `times` (in arrival order) first has `limit + 1` requests within `windowMs`. */
export function slidingWindowOracle(
  times: readonly number[],
  limit: number,
  windowMs: number,
): number | undefined {
  for (let i = 0; i < times.length; i++) {
    const t = times[i] as number;
    let inWindow = 0;
    for (let j = 0; j <= i; j++) {
      const u = times[j] as number;
      if (u <= t && t - u < windowMs) inWindow++;
    }
    if (inWindow > limit) return i + 1;
  }
  return undefined;
}

/** One organization (a small team's normal traffic) with one runaway of the given kind. */
export function generateRunawayScenario(
  kind: RunawayKind,
  seed: number,
  start = WORKLOAD_START,
): RunawayScenario {
  const rng = new SeededRandom(seed);
  const orgIndex = 100_000 + (seed % 100_000);
  const orgId = `org_r${seed}_${kind}`;
  const org = new OrgBuilder(new SeededRandom(rng.nextUint32()), orgId);
  const plan: OrgPlan = { ...planOrg(rng, orgIndex, 'team'), spanMs: 2 * HOUR };
  plan.sessions = 3 + rng.int(6);
  const agents = normalAgents(org.rng, plan, start, orgIndex);
  const at = start + 20 * 60_000 + rng.int(60 * 60_000);
  const dedicated: KeySpec = { ...makeKey(rng, orgIndex, 99), keyId: `abn_o${orgIndex}runaway` };
  let policy: GuardrailPolicy = DEFAULT_POLICY;
  let runawayAgent: Agent;
  switch (kind) {
    case 'identical_loop':
      runawayAgent = new IdenticalLoopAgent(
        rng,
        { ...dedicated, source: 'proxy' },
        plan.palette,
        at,
        `sess_loop_${seed}`,
        [500, 15_000],
      );
      break;
    case 'identical_loop_sdk':
      runawayAgent = new IdenticalLoopAgent(
        rng,
        { ...dedicated, source: 'sdk' },
        plan.palette,
        at,
        undefined,
        [500, 15_000],
      );
      break;
    case 'aggregator_drift_loop':
      runawayAgent = new AggregatorDriftLoopAgent(rng, { ...dedicated, source: 'sdk' }, at);
      break;
    case 'linear_growth_loop':
      runawayAgent = new LinearGrowthLoopAgent(
        rng,
        dedicated,
        plan.palette,
        at,
        dedicated.namesSessions ? `sess_grow_${seed}` : undefined,
      );
      break;
    case 'burst':
      runawayAgent = new BurstAgent(rng, dedicated, at, plan.palette);
      break;
    case 'premium_hijack':
      // Hijacked routing: from `at` every call of the organization goes to the premium model,
      // and an injected agent starts calling it in a loop.
      org.hijackAt = at;
      runawayAgent = new SteadySpenderAgent(
        rng,
        dedicated,
        at,
        WORKLOAD_MODELS.opus,
        600,
        [5000, 30_000],
        [5000, 15_000],
      );
      break;
    case 'overspend':
      runawayAgent = new SteadySpenderAgent(
        rng,
        dedicated,
        at,
        WORKLOAD_MODELS.sonnet,
        500,
        [60_000, 180_000],
        [6000, 12_000],
      );
      policy = {
        ...DEFAULT_POLICY,
        financialLimits: {
          ...DEFAULT_POLICY.financialLimits,
          dailySoftCapNanos: 30_000_000_000,
          dailyHardCapNanos: 40_000_000_000,
          monthlyHardCapNanos: 1_000_000_000_000,
        },
      };
      break;
  }
  agents.push(runawayAgent);
  org.run(agents);
  const { events, runawaySeqs } = org.finish(orgIndex);
  const runaway: RunawayScenario['runaway'] = { keyId: runawayAgent.key.keyId, seqs: runawaySeqs };
  if (runawayAgent.sessionId !== undefined) runaway.sessionId = runawayAgent.sessionId;
  if (kind === 'identical_loop' || kind === 'identical_loop_sdk') runaway.expectedKillCall = 4;
  if (kind === 'burst' || kind === 'aggregator_drift_loop') {
    const runawaySet = new Set(runawaySeqs);
    const times = events.filter((e) => runawaySet.has(e.seq)).map((e) => e.ts);
    const expected = slidingWindowOracle(times, policy.rpsBurst.maxRequests, policy.rpsBurst.windowMs);
    if (expected !== undefined) runaway.expectedKillCall = expected;
  }
  return {
    orgId,
    policy,
    events,
    sessions: plan.sessions,
    premiumDowngrades: org.premiumDowngrades,
    kind,
    expectedLayer: RUNAWAY_LAYER[kind],
    runaway,
  };
}
