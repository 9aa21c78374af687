/**
 * The typed client of the Spendguard HTTP API (docs/api.md). Every call sends
 * `Authorization: Bearer <ID token>`; every non-2xx answer becomes an {@link ApiError} carrying the
 * API's `error.message` and `problems`.
 */
import type {
  Admission,
  AdmissionPeriod,
  ApiKey,
  Budget,
  BudgetAction,
  BudgetCrossing,
  BudgetResponse,
  BudgetUpdate,
  CreatedKey,
  EnforceRequest,
  EnforceResponse,
  ErrorBody,
  ForecastHorizon,
  ForecastPoint,
  ForecastResponse,
  KeyScope,
  KillFlag,
  LedgerEntry,
  LedgerPage,
  LedgerQuery,
  Policy,
  Problem,
  SessionsResponse,
  SpendResponse,
  Trip,
} from './types';
import type { CredentialsResponse, ReconciledProvider, ReconciliationResponse } from './reconciliation';
import type { AuditPage } from './audit';

/** A failed API call: HTTP status (0 when the API could not be reached), code, message and problems. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
  }
}

export interface ApiClientOptions {
  /** Base URL of the API (`apiUrl` of config.json); '' means the dashboard's own origin. */
  apiUrl: string;
  /** The current ID token, or null when signed out. */
  getToken: () => string | null;
  /**
   * Called on a 401. Resolve true when a fresh token is now available (the request is retried once),
   * false to give up (the 401 is thrown).
   */
  onUnauthorized?: () => Promise<boolean>;
}

type Query = Record<string, string | number | undefined>;

interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
}

export function createApiClient(options: ApiClientOptions) {
  const base = options.apiUrl.replace(/\/+$/, '');

  async function send(method: string, path: string, opts: RequestOptions): Promise<Response> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined && v !== '') params.set(k, String(v));
    }
    const qs = params.toString();
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = options.getToken();
    if (token) headers.authorization = `Bearer ${token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetch(`${base}${path}${qs ? `?${qs}` : ''}`, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: opts.signal,
      });
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      throw new ApiError(
        0,
        'network',
        `Could not reach the API at ${base || 'this site'}: ${errorText(err)}`,
      );
    }
  }

  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    let response = await send(method, path, opts);
    if (response.status === 401 && options.onUnauthorized && (await options.onUnauthorized())) {
      response = await send(method, path, opts);
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const error = (json as Partial<ErrorBody> | undefined)?.error;
      throw new ApiError(
        response.status,
        typeof error?.code === 'string' ? error.code : `http_${response.status}`,
        typeof error?.message === 'string' && error.message
          ? error.message
          : `HTTP ${response.status} ${response.statusText}`.trim(),
        Array.isArray(error?.problems) ? error.problems : [],
      );
    }
    return json as T;
  }

  return {
    async getBudget(signal?: AbortSignal): Promise<BudgetResponse> {
      return normalizeBudgetResponse(await request<unknown>('GET', '/v1/budget', { signal }));
    },
    async putBudget(update: BudgetUpdate): Promise<BudgetResponse> {
      return normalizeBudgetResponse(await request<unknown>('PUT', '/v1/budget', { body: update }));
    },
    async getSpend(signal?: AbortSignal): Promise<SpendResponse> {
      return normalizeSpend(await request<unknown>('GET', '/v1/spend', { signal }));
    },
    async getForecast(signal?: AbortSignal): Promise<ForecastResponse> {
      return normalizeForecast(await request<unknown>('GET', '/v1/forecast', { signal }));
    },
    /**
     * Starts an on-demand run (202 with a run id), polls it until it has finished, then reads the
     * forecast. A run takes seconds (one organization); the poll gives up after five minutes.
     */
    async runForecast(): Promise<ForecastResponse> {
      const started = await request<{ runId: string }>('POST', '/v1/forecast/run', { body: {} });
      const deadline = Date.now() + 5 * 60_000;
      for (;;) {
        const run = await request<{ status: string }>(
          'GET',
          `/v1/forecast/runs/${encodeURIComponent(started.runId)}`,
        );
        if (run.status === 'failed')
          throw new Error('The forecast run failed; the previous forecast is shown.');
        if (run.status !== 'running') break;
        if (Date.now() > deadline) throw new Error('The forecast run is taking longer than five minutes.');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      return normalizeForecast(await request<unknown>('GET', '/v1/forecast'));
    },
    async getLedger(query: LedgerQuery, signal?: AbortSignal): Promise<LedgerPage> {
      const raw = await request<{ entries?: unknown[]; nextCursor?: string | null }>('GET', '/v1/ledger', {
        query: { ...query },
        signal,
      });
      return {
        entries: (raw?.entries ?? []).map(normalizeLedgerEntry),
        nextCursor: typeof raw?.nextCursor === 'string' && raw.nextCursor ? raw.nextCursor : null,
      };
    },
    async getKeys(signal?: AbortSignal): Promise<ApiKey[]> {
      return (await request<{ keys?: ApiKey[] }>('GET', '/v1/keys', { signal }))?.keys ?? [];
    },
    /** Creates a key; without `scopes` the API gives it every scope. */
    async createKey(name: string, scopes?: readonly KeyScope[]): Promise<CreatedKey> {
      return request<CreatedKey>('POST', '/v1/keys', { body: scopes ? { name, scopes } : { name } });
    },
    async revokeKey(publicId: string): Promise<void> {
      await request<unknown>('DELETE', `/v1/keys/${encodeURIComponent(publicId)}`);
    },
    async getFlags(signal?: AbortSignal): Promise<KillFlag[]> {
      return (await request<{ flags?: KillFlag[] }>('GET', '/v1/flags', { signal }))?.flags ?? [];
    },
    async getTrips(limit = 50, signal?: AbortSignal): Promise<Trip[]> {
      return (
        (await request<{ trips?: Trip[] }>('GET', '/v1/guardrails/trips', { query: { limit }, signal }))
          ?.trips ?? []
      );
    },
    async getSessions(hours = 24, signal?: AbortSignal): Promise<SessionsResponse> {
      const raw = await request<Partial<SessionsResponse>>('GET', '/v1/sessions', {
        query: { hours },
        signal,
      });
      return {
        sessions: Array.isArray(raw?.sessions) ? raw.sessions : [],
        hours: typeof raw?.hours === 'number' ? raw.hours : hours,
        truncated: raw?.truncated === true,
      };
    },
    async enforce(body: EnforceRequest): Promise<EnforceResponse> {
      return request<EnforceResponse>('POST', '/api/guardrails/enforce', { body });
    },
    // Reconciliation (the Accuracy page).
    getReconciliation: (signal?: AbortSignal) =>
      request<ReconciliationResponse>('GET', '/v1/reconciliation', { signal }),
    runReconciliation: () => request<ReconciliationResponse>('POST', '/v1/reconciliation/run', { body: {} }),
    getReconciliationCredentials: (signal?: AbortSignal) =>
      request<CredentialsResponse>('GET', '/v1/reconciliation/credentials', { signal }),
    putReconciliationCredential: (provider: ReconciledProvider, adminKey: string) =>
      request<CredentialsResponse>('PUT', '/v1/reconciliation/credentials', { body: { provider, adminKey } }),
    deleteReconciliationCredential: (provider: ReconciledProvider) =>
      request<CredentialsResponse>(
        'DELETE',
        `/v1/reconciliation/credentials/${encodeURIComponent(provider)}`,
      ),
    // The audit log (the Audit page).
    getAudit: (query: { limit?: number; cursor?: string; action?: string }, signal?: AbortSignal) =>
      request<AuditPage>('GET', '/v1/audit', { query, signal }),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;

// ---- normalization of the fields docs/api.md leaves open ----

type Raw = Record<string, unknown>;

const asRecord = (v: unknown): Raw =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : {};

function num(...candidates: unknown[]): number | undefined {
  for (const c of candidates) if (typeof c === 'number' && Number.isFinite(c)) return c;
  return undefined;
}

function str(...candidates: unknown[]): string | undefined {
  for (const c of candidates) if (typeof c === 'string' && c !== '') return c;
  return undefined;
}

/** `v` when it is one of `allowed` (the schema's values), else `fallback`. */
function oneOf<T extends string>(v: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.find((a) => a === v) ?? fallback;
}

function nullableNum(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const LEDGER_SOURCES: readonly LedgerEntry['source'][] = ['sdk', 'proxy', 'ingest'];
const LEDGER_KINDS: readonly LedgerEntry['kind'][] = ['call', 'budget_warning'];
const COST_SOURCES: readonly LedgerEntry['costSource'][] = [
  'PROVIDER_REPORTED',
  'ORG_RATE',
  'PROVIDER_REGISTRY',
  'FALLBACK_ECONOMICS',
];

/** Reads a ledger entry: dollars from `costUsd` (or `costNanos` / 1e9), tokens from the store's names or the spec's. */
export function normalizeLedgerEntry(value: unknown): LedgerEntry {
  const r = asRecord(value);
  const nanos = num(r.costNanos);
  return {
    eventId: str(r.eventId, r.id) ?? '',
    ts: str(r.ts, r.timestamp) ?? '',
    source: oneOf(r.source, LEDGER_SOURCES, 'sdk'),
    kind: oneOf(r.kind, LEDGER_KINDS, 'call'),
    keyId: str(r.keyId) ?? '',
    provider: str(r.provider) ?? '',
    model: str(r.model) ?? '',
    inputTokens: num(r.inputTokens, r.promptTokens, r.tokens_in) ?? 0,
    outputTokens: num(r.outputTokens, r.completionTokens, r.tokens_out) ?? 0,
    cacheTokens:
      (num(r.cacheReadTokens) ?? 0) + (num(r.cacheWrite5mTokens) ?? 0) + (num(r.cacheWrite1hTokens) ?? 0),
    costUsd: num(r.costUsd, r.cost_usd, r.estimatedCostUsd) ?? (nanos !== undefined ? nanos / 1e9 : 0),
    costSource: oneOf(r.costSource, COST_SOURCES, 'PROVIDER_REGISTRY'),
    estimated: r.estimated === true,
    projectId: str(r.projectId) ?? null,
    featureId: str(r.featureId) ?? null,
    environment: str(r.environment) ?? null,
    sessionId: str(r.sessionId) ?? null,
    statusCode: nullableNum(r.statusCode),
    latencyMs: nullableNum(r.latencyMs),
  };
}

function normalizeSpend(value: unknown): SpendResponse {
  const r = asRecord(value);
  const list = (v: unknown): Raw[] => (Array.isArray(v) ? v.map(asRecord) : []);
  return {
    todayUsd: num(r.todayUsd) ?? 0,
    monthUsd: num(r.monthUsd) ?? 0,
    byModel: list(r.byModel).map((m) => ({
      provider: str(m.provider) ?? '',
      model: str(m.model) ?? '',
      costUsd: num(m.costUsd) ?? 0,
      calls: num(m.calls) ?? 0,
    })),
    byProvider: list(r.byProvider).map((p) => ({
      provider: str(p.provider) ?? '',
      costUsd: num(p.costUsd) ?? 0,
      calls: num(p.calls) ?? 0,
    })),
    hourly: list(r.hourly).map((h) => ({
      hour: str(h.hour) ?? '',
      costUsd: num(h.costUsd) ?? 0,
      calls: num(h.calls) ?? 0,
    })),
    minutes: list(r.minutes).map((m) => ({
      minute: str(m.minute) ?? '',
      costUsd: num(m.costUsd) ?? 0,
      calls: num(m.calls) ?? 0,
    })),
  };
}

const CROSSING_BUDGETS: readonly BudgetCrossing['budget'][] = ['daily', 'monthly'];

function horizonOf(value: unknown, fallbackName: string): ForecastHorizon | undefined {
  const h = asRecord(value);
  const p50 = num(h.p50Usd);
  const p95 = num(h.p95Usd);
  const p99 = num(h.p99Usd);
  if (p50 === undefined || p95 === undefined || p99 === undefined) return undefined;
  const budgets = (Array.isArray(h.budgets) ? h.budgets : []).map(asRecord).flatMap((b) => {
    const probability = num(b.probability);
    const capUsd = num(b.capUsd);
    const budget = CROSSING_BUDGETS.find((k) => k === b.budget);
    return probability === undefined || capUsd === undefined || budget === undefined
      ? []
      : [{ budget, capUsd, probability }];
  });
  return {
    name: str(h.horizon, h.name, h.id) ?? fallbackName,
    endsAt: str(h.end, h.endsAt) ?? null,
    p50Usd: p50,
    p95Usd: p95,
    p99Usd: p99,
    meanUsd: num(h.meanUsd) ?? null,
    toDateUsd: num(h.toDateUsd) ?? 0,
    budgets,
  };
}

/**
 * Reads `GET /v1/forecast`: `{computedAt, forecast: {horizons, fan}}` (the stored view of the forecast
 * task; `forecast.forecast` holds the raw nanos and is not used), or `{computedAt: null, forecast: null}`
 * before the first run. Horizons may also come as an object keyed by name, the fan as `daily`.
 */
export function normalizeForecast(value: unknown): ForecastResponse {
  const r = asRecord(value);
  const f = asRecord(r.forecast ?? r);
  const rawHorizons = f.horizons;
  const horizons: ForecastHorizon[] = [];
  if (Array.isArray(rawHorizons)) {
    rawHorizons.forEach((h, i) => {
      const parsed = horizonOf(h, `horizon ${i + 1}`);
      if (parsed) horizons.push(parsed);
    });
  } else {
    for (const [name, h] of Object.entries(asRecord(rawHorizons))) {
      const parsed = horizonOf(h, name);
      if (parsed) horizons.push(parsed);
    }
  }
  const rawDaily = [f.fan, f.daily].find(Array.isArray) as unknown[] | undefined;
  const daily: ForecastPoint[] = [];
  for (const p of rawDaily ?? []) {
    const d = asRecord(p);
    const date = str(d.date, d.day);
    const p50 = num(d.p50Usd);
    const p95 = num(d.p95Usd);
    const p99 = num(d.p99Usd);
    if (date && p50 !== undefined && p95 !== undefined && p99 !== undefined) {
      daily.push({ date, p50Usd: p50, p95Usd: p95, p99Usd: p99 });
    }
  }
  return { computedAt: str(r.computedAt, f.computedAt) ?? null, horizons, daily };
}

const BUDGET_ACTIONS: readonly BudgetAction[] = ['block', 'warn', 'log'];

/** Reads a budget record: an absent or null cap is no cap; an unknown action reads as `block`. */
export function normalizeBudget(value: unknown): Budget {
  const b = asRecord(value);
  return {
    dailySoftLimitUsd: nullableNum(b.dailySoftLimitUsd),
    dailyLimitUsd: nullableNum(b.dailyLimitUsd),
    monthlySoftLimitUsd: nullableNum(b.monthlySoftLimitUsd),
    monthlyLimitUsd: nullableNum(b.monthlyLimitUsd),
    action: BUDGET_ACTIONS.find((a) => a === b.action) ?? 'block',
    allowDeferredBilling: b.allowDeferredBilling === true,
  };
}

const BUDGET_STATUSES: readonly BudgetResponse['status'][] = [
  'ok',
  'soft_cap',
  'over_budget',
  'throttled',
  'suspended',
];

function normalizeBudgetResponse(value: unknown): BudgetResponse {
  const r = asRecord(value);
  const spend = asRecord(r.spend);
  const remaining = asRecord(r.remaining);
  const flag = asRecord(r.flag);
  return {
    budget: normalizeBudget(r.budget),
    policy: asRecord(r.policy) as Policy,
    spend: { todayUsd: num(spend.todayUsd) ?? 0, monthUsd: num(spend.monthUsd) ?? 0 },
    remaining: { dailyUsd: nullableNum(remaining.dailyUsd), monthlyUsd: nullableNum(remaining.monthlyUsd) },
    status: oneOf(r.status, BUDGET_STATUSES, 'ok'),
    flag: typeof flag.state === 'string' ? (flag as unknown as KillFlag) : null,
    admission: normalizeAdmission(r.admission),
  };
}

function admissionPeriod(value: unknown): AdmissionPeriod | null {
  const p = asRecord(value);
  const settled = num(p.settledUsd);
  const reserved = num(p.reservedUsd);
  if (settled === undefined || reserved === undefined) return null;
  return {
    capUsd: nullableNum(p.capUsd),
    settledUsd: settled,
    reservedUsd: reserved,
    outstandingReservations: num(p.outstandingReservations) ?? 0,
    leasedUsd: num(p.leasedUsd) ?? 0,
    holders: num(p.holders) ?? 0,
  };
}

/** `GET /v1/budget`'s `admission` panel (CONTRACTS §3), or null unless it holds both periods. */
export function normalizeAdmission(value: unknown): Admission | null {
  if (value === null || typeof value !== 'object') return null;
  const r = asRecord(value);
  const day = admissionPeriod(r.day);
  const month = admissionPeriod(r.month);
  return day === null || month === null ? null : { day, month };
}
