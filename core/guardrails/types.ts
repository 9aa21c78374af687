/**
 * Types of the five-layer guardrail engine: its input event, its verdicts, and the contract
 * every layer implements. The engine is pure: time (`now`, ms since epoch) comes in as an
 * argument, state goes in and comes out as plain JSON.
 */
import type { StateLimitsPolicy } from './state-limits';

/**
 * One priced provider call, as the guardrail consumer sees it. The backend maps both the SDK
 * telemetry event (spec 2.1) and the proxy event (spec 2.2) into this shape after pricing.
 */
export interface GuardrailEvent {
  /**
   * Kinesis sequence number of the record (a decimal string of up to 128 digits). Compared
   * numerically (length first, then lexicographically), never as a JavaScript number. When one
   * record carries several events, use `eventSequenceNumber(recordSeq, index)`.
   */
  seq: string;
  /** Organization identifier (`org_<id>`); all of an organization's events share one shard. */
  orgId: string;
  /** Public id / prefix of the API key that made the call. Never the raw key. */
  keyId: string;
  /**
   * Agent session, when the caller names one (SDK `sessionId` option, proxy header
   * `x-spendguard-session`). Without it the engine falls back to `keyId` + `model`.
   */
  sessionId?: string;
  /** Provider identifier in lowercase (`openai`, `anthropic`, `openrouter`, …). */
  provider: string;
  /** Model identifier as priced. */
  model: string;
  /** `sha256:<hex>` of model + messages + tools (proxy events); absent on SDK events. */
  fingerprint?: string;
  /** Prompt tokens, cache reads and writes included. */
  promptTokens: number;
  /** Completion tokens, reasoning included. */
  completionTokens: number;
  /** Server-side price of the call in integer nano-USD (1 USD = 1e9 nanos). */
  costNanos: number;
  /** Whether the model is one of the most expensive ones (core/pricing `isPremiumModel`). */
  premium: boolean;
  /** Time of the call, ms since epoch (UTC). */
  ts: number;
}

/** Stable identifiers of the five layers, in evaluation order. */
export type LayerId =
  'financialLimits' | 'identicalLoop' | 'contextGrowth' | 'rpsBurst' | 'premiumConcentration';

/** Every `triggerType` a verdict can carry (the enforcement endpoint's `triggerType`). */
export type TriggerType =
  | 'budget_daily_soft'
  | 'budget_daily_hard'
  | 'budget_monthly_soft'
  | 'budget_monthly_hard'
  | 'token_loop_identical'
  | 'context_growth_linear'
  | 'rps_burst'
  | 'premium_concentration';

/** How a tripped layer is enforced. */
export type GuardrailMode = 'hard_stop' | 'throttle' | 'alert';

/** Flag action for the enforcement endpoint; `WARN` is a notification only, never a flag. */
export type GuardrailAction = 'SUSPENDED' | 'THROTTLED' | 'WARN';

/** What a verdict is about: the whole organization, one API key, or one agent session. */
export type VerdictScope = 'organization' | 'key' | 'session';

/** The mode → action mapping the enforcement consumer applies. */
export const ACTION_BY_MODE: Readonly<Record<GuardrailMode, GuardrailAction>> = Object.freeze({
  hard_stop: 'SUSPENDED',
  throttle: 'THROTTLED',
  alert: 'WARN',
});

/**
 * A tripped rule: exactly the fields `POST /api/guardrails/enforce` needs (spec 4.2), plus
 * what a human needs to read it. Money-valued observed/threshold values are in USD.
 */
export interface Verdict {
  layer: LayerId;
  triggerType: TriggerType;
  /** Value observed (USD for budgets, a count for loops/bursts, a share 0–1 for concentration). */
  observedValue: number;
  /** Threshold that was crossed, in the same unit as `observedValue`. */
  thresholdValue: number;
  mode: GuardrailMode;
  action: GuardrailAction;
  scope: VerdictScope;
  /** Key of the event that tripped the rule (the flag is keyed by an HMAC of it). */
  keyId: string;
  /** Session of the event that tripped the rule, when the caller named one. */
  sessionId?: string;
  /** Sequence number of the event that tripped the rule. */
  seq: string;
  /** One-line human explanation with the numbers. */
  message: string;
}

/**
 * An event after the engine's normalization, shared by every layer: numbers sanitized
 * (finite, non-negative integers), time clamped, identities hashed once.
 */
export interface LayerEvent {
  readonly event: GuardrailEvent;
  /** Event time used by every layer: `ts`, clamped to at most `now + maxClockSkewMs`. */
  readonly ts: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly costNanos: number;
  readonly premium: boolean;
  /** 53-bit hash of `keyId`. */
  readonly keyHash: number;
  /** 53-bit hash of the session identity: keyId + (sessionId, or model as the fallback). */
  readonly streamHash: number;
  /** 52/53-bit hash of the request fingerprint, or of model + promptTokens as the fallback. */
  readonly fingerprintHash: number;
  /** Where `fingerprintHash` came from. */
  readonly fingerprintSource: 'body' | 'fallback';
  /** `sessionId` when named, else undefined (the fallback session is keyId + model). */
  readonly sessionId: string | undefined;
}

/** The result of one layer step. */
export interface StepResult<S> {
  state: S;
  verdicts: readonly Verdict[];
}

/** The shared empty verdict list of a step that tripped nothing (saves an allocation per layer per event). */
export const NO_VERDICTS: readonly Verdict[] = Object.freeze([]);

/**
 * What a layer reads of an organization's policy: its own section, under its id, and the shared
 * `limits`. A whole `GuardrailPolicy` is one. A layer sees no other layer's section, so the layers do
 * not depend on the policy that is assembled from them.
 */
export type LayerPolicyView<Id extends LayerId, P> = { readonly [K in Id]: P } & {
  readonly limits: StateLimitsPolicy;
};

/**
 * One guardrail layer: a pure step plus the metadata the registry, the docs and the
 * dashboard read. A step never throws and never mutates the state it is given.
 */
export interface GuardrailLayer<S, P, Id extends LayerId> {
  readonly id: Id;
  /** 1–5, the spec's layer number. */
  readonly ordinal: number;
  readonly name: string;
  readonly description: string;
  readonly triggerTypes: readonly TriggerType[];
  /** The layer's section of `DEFAULT_POLICY`. */
  readonly defaults: P;
  /** Whether the step still runs (tracking only, no verdicts) while the layer is disabled. */
  readonly tracksWhenDisabled: boolean;
  /** The layer's section of an organization's policy. */
  policyOf(policy: LayerPolicyView<Id, P>): P & { enabled: boolean };
  initialState(): S;
  step(state: S, event: LayerEvent, policy: LayerPolicyView<Id, P>, now: number): StepResult<S>;
  /** Upper bound of `JSON.stringify(state).length` under this policy. */
  maxStateBytes(policy: LayerPolicyView<Id, P>): number;
}
