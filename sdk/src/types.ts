/**
 * The public types of `@service/sdk`. Self-contained on purpose: the published declaration file must
 * not reference the monorepo's `core/` modules, which are bundled into the JavaScript, not shipped.
 */

/** The `fetch` signature the SDK wraps (the WHATWG one). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Deployment environment recorded on every event. */
export type Environment = 'production' | 'staging' | 'development';

/** What happens when the client-side budget is reached (spec 1.4, legacy Auto Kill). */
export type BudgetAction = 'block' | 'warn' | 'log';

/** Client-side budget (spec 1.4). Spend is counted in this process, per UTC day and UTC month. */
export interface BudgetOptions {
  /** Spend per UTC day, in USD, at which the action applies. Must be > 0; other values are ignored. */
  dailyLimitUsd?: number;
  /** Spend per UTC calendar month, in USD. Must be > 0; other values are ignored. */
  monthlyLimitUsd?: number;
  /**
   * - `block`: a synthetic HTTP 429 is returned and the provider is not called;
   * - `warn`: the call proceeds and a `budget_warning` event goes to the Forensic Ledger;
   * - `log`: the breach is logged (with `debug: true`), nothing else.
   * @default 'block'
   */
  action?: BudgetAction;
}

/** Per-call labels recorded on events. */
export interface EventLabels {
  /** Project the calls belong to. @default 'default' (or `SPENDGUARD_PROJECT_ID`) */
  projectId?: string;
  /** @default from `SPENDGUARD_ENVIRONMENT`, else `NODE_ENV` (`production` unless it says otherwise) */
  environment?: Environment;
  /** Agent session (guardrail layer 3 tracks context growth per session). */
  sessionId?: string;
  /** Feature label, for spend per feature. */
  featureId?: string;
}

/** Options shared by {@link initServiceAuto} and {@link wrapFetch}. */
export interface ServiceOptions extends EventLabels {
  /** Organization API key, `abn_<publicId>_<secret>`. @default `SPENDGUARD_API_KEY` */
  apiKey?: string;
  /** Console logging; nothing is ever logged when false. @default false */
  debug?: boolean;
  /** Telemetry flush interval in milliseconds (≥ 100). @default 5000 */
  flushIntervalMs?: number;
  /** Maximum events per flush (1–100); reaching it triggers a flush. @default 50 */
  maxBatchSize?: number;
  /** Client-side budget (spec 1.4). No budget: Auto Kill is inactive. */
  budget?: BudgetOptions;
  /** Base URL of the Spendguard API (`POST <endpoint>/v1/events`). @default `SPENDGUARD_ENDPOINT` */
  endpoint?: string;
  /** Events kept in memory while waiting for a flush; the oldest are dropped (and counted) beyond it. @default 1000 */
  bufferCapacity?: number;
  /**
   * Refuse calls locally while a server kill flag applies to them: an organization- or key-scope
   * SUSPENDED flag (every call) or a session-scope one (calls of that `sessionId`). The flags come with
   * every flush answer and lease answer, so a flag is seen within `flushIntervalMs` + 1 s; fail-open when
   * the backend cannot be reached. @default true
   */
  serverFlags?: boolean;
  /**
   * Draw direct calls on the organization's hard budget cap through a lease (`POST /v1/budget/lease`,
   * renewed in the background): once the cap is reached, calls get the synthetic 429. Fail-open (and
   * counted in `stats().failOpen`) when the backend cannot be reached. @default true
   */
  serverBudget?: boolean;
}

/** Options of {@link initServiceAuto}. */
export type InitOptions = ServiceOptions;

/** Options of {@link wrapFetch}. */
export interface WrapFetchOptions extends ServiceOptions {
  /**
   * Treat every POST through this fetch as a call to this provider (`'llama'` for open-weight models
   * on custom endpoints, or any catalog id such as `'openai'` for an OpenAI-compatible gateway).
   * @default detected from the URL; calls to unknown hosts pass through untracked
   */
  provider?: string;
}

/** Options of {@link verifyService}. */
export interface VerifyOptions {
  apiKey?: string;
  debug?: boolean;
  endpoint?: string;
  /** Timeout of each check's request in milliseconds. @default 5000 */
  timeoutMs?: number;
  /** The fetch used for the checks. @default the original global fetch */
  fetch?: FetchLike;
}

/** One check of {@link verifyService}. */
export interface VerifyCheck {
  name: 'apiKeyFormat' | 'endpoint' | 'backendReachable' | 'apiKeyAccepted' | 'organizationActive';
  ok: boolean;
  message: string;
}

/** The organization's state as the server reports it (`GET /v1/budget`). */
export interface OrgStatus {
  /** `ACTIVE`, `SUSPENDED`, `THROTTLED` or what the server says. */
  status: string;
  /** Spend today and this month, when reported. */
  spend?: { todayUsd?: number; monthUsd?: number };
}

/** The result of {@link verifyService}: `ok` when every check passed. Never thrown. */
export interface VerifyResult {
  ok: boolean;
  checks: VerifyCheck[];
  orgStatus?: OrgStatus;
}

/** Options of `flush`. */
export interface FlushOptions {
  /** Give up (keeping the unsent events) after this many milliseconds. @default 10000 */
  timeoutMs?: number;
}

/** What a flush did. */
export interface FlushResult {
  /** Events accepted by the backend. */
  sent: number;
  /** Events still buffered afterwards (to be retried later). */
  pending: number;
  /** Events given up on (rejected by the backend, or no endpoint / key configured). */
  discarded: number;
}

/** Counters of a client, for tests and troubleshooting. */
export interface ClientStats {
  /** Provider calls intercepted (tracked). */
  calls: number;
  /** Calls answered with the synthetic budget 429. */
  blocked: number;
  /** Events currently buffered. */
  buffered: number;
  /** Events dropped because the buffer was full, not yet reported to the backend. */
  droppedUnreported: number;
  /** Events dropped because the buffer was full, since start. */
  droppedTotal: number;
  /** Events accepted by the backend since start. */
  sent: number;
  /** Events discarded (backend rejected them, or no endpoint / key). */
  discarded: number;
  /** Internal errors swallowed. */
  internalErrors: number;
  /** Whether an organization- or key-scope SUSPENDED flag currently refuses every call. */
  serverSuspended: boolean;
  /** Agent sessions (`sessionId`; `''` for calls without one) refused by a session-scope flag. */
  suspendedSessions: string[];
  /** Calls let through without the shared budget's say because the backend could not be reached (spec Law 4). */
  failOpen: number;
  /** The shared-budget lease, or null with `serverBudget: false`. */
  lease: LeaseStats | null;
}

/** The state of a client's budget lease (CONTRACTS: `POST /v1/budget/lease`). */
export interface LeaseStats {
  holderId: string;
  /**
   * `none` (not taken yet), `uncapped` (no hard cap: report only), `capped` (drawing on a slice),
   * `exhausted` (cap reached: calls refused), or why it fails open: `unreachable`, `unsupported`
   * (the backend has no lease routes), `refused` (401/403).
   */
  state: 'none' | 'uncapped' | 'capped' | 'exhausted' | 'unreachable' | 'unsupported' | 'refused';
  /** The slice held, in USD. */
  grantedUsd: number;
  /** Spend drawn on it so far, in USD. */
  usedUsd: number;
  /** Worst cases reserved on it by calls in flight, in USD. */
  reservedUsd: number;
  /** Lease requests that failed. */
  errors: number;
}

/** The handle returned by {@link initServiceAuto} (and shared by every {@link wrapFetch} with the same key). */
export interface SpendguardClient {
  /** Sends every buffered event now (waiting for events still being finalized). Never rejects. */
  flush(options?: FlushOptions): Promise<FlushResult>;
  /**
   * Flushes, stops the timers and, for the automatic client, restores the original `globalThis.fetch`
   * (when nothing replaced it since). Never rejects.
   */
  shutdown(options?: FlushOptions): Promise<FlushResult>;
  /** Counters. */
  stats(): ClientStats;
}

/** The client telemetry event (spec 2.1, plus optional fields) as posted to `POST /v1/events`. */
export interface ClientEvent {
  id: string;
  timestamp: string;
  kind?: 'call' | 'budget_warning';
  provider: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  estimatedCostUsd: number;
  costSource: 'PROVIDER_REGISTRY' | 'FALLBACK_ECONOMICS';
  latencyMs: number;
  statusCode: number;
  projectId: string;
  environment: Environment;
  [field: string]: unknown;
}
