/**
 * Wire types of the Spendguard HTTP API, mirroring docs/api.md. Where docs/api.md names a response
 * without its fields (ledger entry, budget record, policy, forecast) the shape below is the one this
 * dashboard reads; docs/dashboard.md lists those assumptions.
 */

/** One problem of a 400 response; `path` points into the request, e.g. `budget.dailySoftCapUsd`. */
export interface Problem {
  path: string;
  message: string;
}

/** Every error body: `{"error": {"code", "message", "problems"?}}`. */
export interface ErrorBody {
  error: { code: string; message: string; problems?: Problem[] };
}

// ---- runtime configuration (GET ./config.json) ----

export interface LocalAuthConfig {
  mode: 'local';
  idToken: string;
}

export interface CognitoAuthConfig {
  mode: 'cognito';
  region: string;
  userPoolId: string;
  clientId: string;
  /** Hosted UI domain: a full URL, a host name, or the bare domain prefix. */
  domain: string;
}

export type AuthConfig = LocalAuthConfig | CognitoAuthConfig;

export interface RuntimeConfig {
  apiUrl: string;
  proxyUrl: string;
  auth: AuthConfig;
}

// ---- ledger ----

export type LedgerSource = 'sdk' | 'proxy' | 'ingest';
export type CostSource = 'PROVIDER_REGISTRY' | 'FALLBACK_ECONOMICS';

/** One call of the Forensic Ledger, as the dashboard uses it (see `normalizeLedgerEntry`). */
export interface LedgerEntry {
  eventId: string;
  /** ISO 8601 UTC. */
  ts: string;
  source: LedgerSource | string;
  kind: string;
  keyId: string | null;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** Cache reads and writes, included in `inputTokens`' billing but listed apart. */
  cacheTokens: number;
  costUsd: number;
  costSource: CostSource | string;
  /** The usage was estimated (a stream without a usage frame). */
  estimated: boolean;
  projectId: string | null;
  featureId: string | null;
  environment: string | null;
  sessionId: string | null;
  statusCode: number | null;
  latencyMs: number | null;
}

export interface LedgerQuery {
  from?: string;
  to?: string;
  provider?: string;
  model?: string;
  projectId?: string;
  featureId?: string;
  source?: LedgerSource;
  limit?: number;
  cursor?: string;
}

export interface LedgerPage {
  entries: LedgerEntry[];
  nextCursor: string | null;
}

// ---- spend ----

export interface ModelSpend {
  provider: string;
  model: string;
  costUsd: number;
  calls: number;
}

export interface ProviderSpend {
  provider: string;
  costUsd: number;
  calls: number;
}

export interface HourlySpend {
  /** Start of the UTC hour, ISO 8601 (`2026-11-22T13:00:00Z` or `2026-11-22T13`). */
  hour: string;
  costUsd: number;
  calls: number;
}

export interface MinuteSpend {
  minute: string;
  costUsd: number;
}

export interface SpendResponse {
  todayUsd: number;
  monthUsd: number;
  byModel: ModelSpend[];
  byProvider: ProviderSpend[];
  hourly: HourlySpend[];
  minutes: MinuteSpend[];
}

// ---- forecast ----

/** The probability (0–1) that a cap is reached within a horizon, spend to date included. */
export interface BudgetCrossing {
  /** `daily` or `monthly`. */
  budget: string;
  capUsd: number | null;
  probability: number;
}

/**
 * One horizon of the Monte Carlo forecast (`restOfDay`, `restOfMonth`, `next7Days`, `next30Days`): the
 * percentiles are the spend projected between now and `endsAt`; `toDateUsd` is what the period has
 * already spent (today for restOfDay, this month for restOfMonth, else 0), so a period's projected
 * total is `toDateUsd + pXXUsd`.
 */
export interface ForecastHorizon {
  name: string;
  endsAt: string | null;
  p50Usd: number;
  p95Usd: number;
  p99Usd: number;
  meanUsd: number | null;
  toDateUsd: number;
  budgets: BudgetCrossing[];
}

/** One daily point of the fan chart: projected cumulative month spend (to date included) at the end of `date`. */
export interface ForecastPoint {
  date: string;
  p50Usd: number;
  p95Usd: number;
  p99Usd: number;
}

export interface ForecastResponse {
  computedAt: string | null;
  horizons: ForecastHorizon[];
  daily: ForecastPoint[];
}

// ---- budget and policy ----

export type BudgetAction = 'block' | 'warn' | 'log';

/**
 * The budget record (spec 1.4 names, core/schemas/budget.ts): hard caps `dailyLimitUsd` and
 * `monthlyLimitUsd`, soft caps `dailySoftLimitUsd` and `monthlySoftLimitUsd`, in USD. GET answers
 * `null` for an unset cap; PUT replaces the whole record and takes an unset cap as an absent member.
 */
export interface Budget {
  dailySoftLimitUsd: number | null;
  dailyLimitUsd: number | null;
  monthlySoftLimitUsd: number | null;
  monthlyLimitUsd: number | null;
  action: BudgetAction;
}

/** The PUT form of {@link Budget}: unset caps are left out. */
export type BudgetInput = Partial<Record<Exclude<keyof Budget, 'action'>, number>> & { action: BudgetAction };

export type GuardrailMode = 'hard_stop' | 'throttle' | 'alert';

/** A layer's policy section: `enabled`, a mode or modes, and numeric thresholds (nullable for caps). */
export type LayerPolicy = Record<string, unknown> & { enabled?: boolean };

export interface LayerInfo {
  id: string;
  ordinal: number;
  name: string;
  description: string;
}

/**
 * The guardrail policy: `layers` keyed by layer id (`financialLimits`, `identicalLoop`, …) and, on
 * GET, `layerInfo` naming them. Layer 1's caps live in the budget record, not here.
 */
export interface Policy {
  layers?: Record<string, LayerPolicy>;
  layerInfo?: LayerInfo[];
  [key: string]: unknown;
}

/** The PUT form of the policy: only `layers` (the API refuses other members). */
export interface PolicyInput {
  layers: Record<string, LayerPolicy>;
}

export type FlagState = 'SUSPENDED' | 'THROTTLED';

/** What a flag stops: the whole organization, one key, or one agent session of a key. */
export type FlagScope = 'organization' | 'key' | 'session';

export interface KillFlag {
  /** Absent from an API that predates kill scopes: the flag then covers the organization. */
  scope?: FlagScope | string;
  /** Public id of the key, for key and session scope. */
  keyId?: string | null;
  sessionId?: string | null;
  state: FlagState | string;
  triggerType: string;
  observedValue: number;
  thresholdValue: number;
  mode: string;
  setAt: string;
  expiresAt: string;
  /** Key prefixes (or their count) the flag was written for. */
  keysFlagged: string[] | number;
}

/** Admission of one period (`GET /v1/budget` `admission.day` / `.month`, CONTRACTS §3). */
export interface AdmissionPeriod {
  /** The hard cap; null when none applies. */
  capUsd: number | null;
  /** Spend the pipeline has settled. */
  settledUsd: number;
  /** Worst-case cost of calls admitted but not settled yet. */
  reservedUsd: number;
  outstandingReservations: number;
  /** Budget handed to lease holders (SDKs, relays) and not yet reported back. */
  leasedUsd: number;
  holders: number;
}

export interface Admission {
  day: AdmissionPeriod | null;
  month: AdmissionPeriod | null;
}

export interface BudgetResponse {
  budget: Budget;
  policy: Policy;
  spend: { todayUsd: number; monthUsd: number };
  remaining: { dailyUsd: number | null; monthlyUsd: number | null };
  status: string;
  flag: KillFlag | null;
  /** Absent when the API does not report admission. */
  admission: Admission | null;
}

export interface BudgetUpdate {
  budget?: BudgetInput;
  policy?: PolicyInput;
}

// ---- keys, flags, trips, enforcement ----

/** What a key may do: proxy calls, telemetry ingest, API reads. */
export type KeyScope = 'proxy' | 'ingest' | 'read';

export const KEY_SCOPES: readonly KeyScope[] = ['proxy', 'ingest', 'read'];

export interface ApiKey {
  publicId: string;
  prefix: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
  /** Absent from an API that predates scopes: every scope. */
  scopes?: KeyScope[];
}

export interface CreatedKey {
  key: ApiKey;
  /** The secret, returned this once. */
  apiKey: string;
}

export interface Trip {
  at: string;
  layer: string;
  triggerType: string;
  observedValue: number;
  thresholdValue: number;
  mode: string;
  action: string;
  keyId: string | null;
  sessionId: string | null;
  message: string;
}

export type EnforceAction = 'SUSPENDED' | 'THROTTLED' | 'ACTIVE';

export interface EnforceRequest {
  apiKey: string;
  action: EnforceAction;
  /** With ACTIVE: clear only this scope (and this key / session); absent: every flag of the organization. */
  scope?: FlagScope;
  keyId?: string;
  sessionId?: string;
}

export interface EnforceResponse {
  success: boolean;
  action: string;
}

// ---- sessions (GET /v1/sessions) ----

export interface SessionPromptPoint {
  ts: string;
  tokens: number;
}

export interface AgentSession {
  sessionId: string;
  keyId: string;
  calls: number;
  costUsd: number;
  firstAt: string;
  lastAt: string;
  /** Whole prompt per call, oldest first: context growth. */
  promptTokens: SessionPromptPoint[];
  repeatedFingerprints: Array<{ fingerprint: string; count: number }>;
  trip: Trip | null;
  flag: KillFlag | null;
}

export interface SessionsResponse {
  sessions: AgentSession[];
  hours: number;
  truncated: boolean;
}
