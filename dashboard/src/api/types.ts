/**
 * Types of the Spendguard HTTP API as the dashboard reads it. The wire shapes are the API's contract,
 * inferred from the zod schemas in core/schemas/api and imported as types only (erased at build time,
 * so neither zod nor core enters the bundle): a schema change breaks this package's type check. What
 * is declared here is the dashboard's own: its runtime config, the normalized views of responses it
 * reads leniently (ledger entry, forecast, budget policy) and request forms.
 */
import type * as Wire from '../../../core/schemas/api/wire-types';

/** One problem of a 400 response; `path` points into the request, e.g. `budget.dailySoftCapUsd`. */
export type Problem = Wire.Problem;

/** Every error body: `{"error": {"code", "message", "problems"?}}`. */
export type ErrorBody = Wire.ErrorBody;

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

export type LedgerSource = Wire.LedgerEntryView['source'];
export type CostSource = Wire.LedgerEntryView['costSource'];

/**
 * One call of the Forensic Ledger as the dashboard shows it (see `normalizeLedgerEntry`): the API's
 * entry narrowed to the fields shown, with the three cache counts summed into `cacheTokens` (cache
 * reads and writes, included in `inputTokens`' billing but listed apart).
 */
export type LedgerEntry = Pick<
  Wire.LedgerEntryView,
  | 'eventId'
  | 'ts'
  | 'source'
  | 'kind'
  | 'keyId'
  | 'provider'
  | 'model'
  | 'inputTokens'
  | 'outputTokens'
  | 'costUsd'
  | 'costSource'
  | 'estimated'
  | 'projectId'
  | 'featureId'
  | 'environment'
  | 'sessionId'
  | 'statusCode'
  | 'latencyMs'
> & { cacheTokens: number };

/** The filters of GET /v1/ledger; each may be left out (`limit` then defaults to 50). */
export type LedgerQuery = Partial<Wire.LedgerQuery>;

export interface LedgerPage {
  entries: LedgerEntry[];
  nextCursor: string | null;
}

// ---- spend ----

export type SpendResponse = Wire.SpendResponse;
export type ModelSpend = SpendResponse['byModel'][number];
export type ProviderSpend = SpendResponse['byProvider'][number];
/** One UTC hour with calls, `hour` as `YYYY-MM-DDTHH`. */
export type HourlySpend = SpendResponse['hourly'][number];
export type MinuteSpend = SpendResponse['minutes'][number];

// ---- forecast ----

type WireForecastView = NonNullable<Wire.ForecastResponse['forecast']>;
type WireHorizon = WireForecastView['horizons'][number];

/** The probability (0–1) that a hard cap (`daily` or `monthly`) is reached within a horizon, spend to date included. */
export type BudgetCrossing = WireHorizon['budgets'][number];

/**
 * One horizon of the Monte Carlo forecast (`restOfDay`, `restOfMonth`, `next7Days`, `next30Days`), as
 * the dashboard reads it (see `normalizeForecast`): the percentiles are the spend projected between now
 * and `endsAt`; `toDateUsd` is what the period has already spent (today for restOfDay, this month for
 * restOfMonth, else 0), so a period's projected total is `toDateUsd + pXXUsd`.
 */
export type ForecastHorizon = Pick<WireHorizon, 'p50Usd' | 'p95Usd' | 'p99Usd' | 'toDateUsd' | 'budgets'> & {
  /** The API's `horizon`. */
  name: string;
  /** The API's `end`. */
  endsAt: string | null;
  meanUsd: number | null;
};

/** One daily point of the fan chart: projected cumulative month spend (to date included) at the end of `date`. */
export type ForecastPoint = WireForecastView['fan'][number];

/** `GET /v1/forecast` as the dashboard reads it: no horizons and no fan before the first run. */
export interface ForecastResponse {
  computedAt: string | null;
  horizons: ForecastHorizon[];
  daily: ForecastPoint[];
}

// ---- budget and policy ----

export type BudgetAction = Wire.BudgetStatus['budget']['action'];

/**
 * The budget record (spec 1.4 names, core/schemas/budget.ts): hard caps `dailyLimitUsd` and
 * `monthlyLimitUsd`, soft caps `dailySoftLimitUsd` and `monthlySoftLimitUsd`, in USD. GET answers
 * `null` for an unset cap; PUT replaces the whole record and takes an unset cap as an absent member.
 */
export type Budget = Wire.BudgetStatus['budget'];

/** The PUT form of {@link Budget}: unset caps are left out. */
export type BudgetInput = NonNullable<Wire.PutBudgetRequest['budget']>;

export type GuardrailMode = KillFlag['mode'];

/** A layer's policy section: `enabled`, a mode or modes, and numeric thresholds (nullable for caps). */
export type LayerPolicy = Record<string, unknown> & { enabled?: boolean };

/** A guardrail layer as `GET /v1/budget` `policy.layerInfo` names it. */
export type LayerInfo = Wire.BudgetStatus['policy']['layerInfo'][number];

/**
 * The guardrail policy: `layers` keyed by layer id (`financialLimits`, `identicalLoop`, …) and, on
 * GET, `layerInfo` naming them. Layer 1's caps live in the budget record, not here.
 */
export interface Policy {
  layers?: Record<string, LayerPolicy>;
  layerInfo?: LayerInfo[];
  [key: string]: unknown;
}

/** The PUT form of the policy: only `layers`, each section partial (the API refuses other members). */
export type PolicyInput = NonNullable<Wire.PutBudgetRequest['policy']>;

export type FlagState = KillFlag['state'];

/** What a flag stops: the whole organization, one key, or one agent session of a key. */
export type FlagScope = KillFlag['scope'];

/** An active kill flag (`GET /v1/flags`, `GET /v1/budget` `flag`). */
export type KillFlag = Wire.FlagView;

/** The flag of an agent session (`GET /v1/sessions`): a kill flag without `keysFlagged`. */
export type SessionFlag = Wire.SessionFlagView;

/** Admission of the current UTC day and month (`GET /v1/budget` `admission`, CONTRACTS §3). */
export type Admission = Wire.AdmissionPanel;

/** Admission of one period; `capUsd` is null when no hard cap applies. */
export type AdmissionPeriod = Admission['day'];

/** `GET`/`PUT /v1/budget` as the dashboard reads it (see `normalizeBudgetResponse`). */
export type BudgetResponse = Pick<Wire.BudgetStatus, 'budget' | 'spend' | 'remaining' | 'status' | 'flag'> & {
  /** The policy, edited section by section (lib/policy.ts). */
  policy: Policy;
  /** Null when the API reports no admission panel. */
  admission: Admission | null;
};

/** Body of PUT /v1/budget: the budget, the policy's changed sections, or both. */
export type BudgetUpdate = Wire.PutBudgetRequest;

// ---- keys, flags, trips, enforcement ----

/** What a key may do: proxy calls, telemetry ingest, API reads. */
export type KeyScope = Wire.KeyScope;

// A value, so restated: the dashboard bundle carries nothing of core. `satisfies` ties it to the type.
export const KEY_SCOPES = ['proxy', 'ingest', 'read'] as const satisfies readonly KeyScope[];

export type ApiKey = Wire.ApiKeyView;

/** A created key and its secret, returned this once. */
export type CreatedKey = Wire.CreateKeyResponse;

export type Trip = Wire.Trip;

/** The dashboard only resumes: POST /api/guardrails/enforce with `action: 'ACTIVE'` (spec 4.2). */
export type EnforceRequest = Wire.EnforceClearRequest;

export type EnforceResponse = Wire.EnforceResponse;

// ---- sessions (GET /v1/sessions) ----

export type AgentSession = Wire.SessionView;
export type SessionPromptPoint = AgentSession['promptTokens'][number];

export type SessionsResponse = Wire.SessionListResponse;
