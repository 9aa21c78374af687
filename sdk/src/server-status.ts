/**
 * The organization's kill-flag state as the server reports it (`GET /v1/budget` → `status` / `flag`),
 * cached and refreshed in the background, so that a SUSPENDED organization is blocked locally too
 * (the edge proxy blocks it; direct calls through the SDK would not be otherwise).
 *
 * Never on the request path: a call reads the cached value and, when it is stale, starts one refresh
 * that the call does not wait for. Fail-open: any error (network, 5xx, unexpected body) counts as
 * "not suspended" once the last good answer is older than the cache lifetime.
 */
import type { Logger } from './log';
import type { FetchLike, OrgStatus } from './types';

/** How long an answer is used before the next call refreshes it. */
export const SERVER_STATUS_TTL_MS = 30_000;

/** Timeout of the status request. */
const STATUS_TIMEOUT_MS = 5_000;

interface Snapshot {
  readonly suspended: boolean;
  /** When the flag expires (epoch ms), if the server said. */
  readonly expiresAtMs: number | null;
  readonly fetchedAtMs: number;
}

export class ServerStatus {
  private snapshot: Snapshot | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly fetchFn: FetchLike,
    private readonly target: () => { url: string; apiKey: string } | null,
    private readonly log: Logger,
  ) {}

  /**
   * Seconds until the suspension ends when the organization is suspended now (per the cached answer),
   * else null. Starts a background refresh when the answer is stale.
   */
  suspendedFor(nowMs: number): number | null {
    const snap = this.snapshot;
    if (snap === null || nowMs - snap.fetchedAtMs >= SERVER_STATUS_TTL_MS) this.refresh();
    if (snap === null || !snap.suspended) return null;
    if (nowMs - snap.fetchedAtMs >= 2 * SERVER_STATUS_TTL_MS) return null; // too old: fail open
    if (snap.expiresAtMs !== null) {
      if (snap.expiresAtMs <= nowMs) return null;
      return Math.ceil((snap.expiresAtMs - nowMs) / 1000);
    }
    return Math.ceil(SERVER_STATUS_TTL_MS / 1000);
  }

  /** True when the last answer said SUSPENDED. */
  get lastSuspended(): boolean {
    return this.snapshot?.suspended === true;
  }

  /** Starts a refresh unless one is running; resolves when it ends. Never rejects. */
  refresh(): Promise<void> {
    if (this.inFlight !== null) return this.inFlight;
    const target = this.target();
    if (target === null) return Promise.resolve();
    const run = fetchOrgStatus(this.fetchFn, target.url, target.apiKey, STATUS_TIMEOUT_MS)
      .then((result) => {
        if (result.kind !== 'ok') {
          this.log.debug(`budget status not refreshed: ${result.kind === 'http' ? `HTTP ${result.status}` : result.reason}`);
          return;
        }
        const suspended = result.flagState === 'SUSPENDED';
        if (suspended && this.snapshot?.suspended !== true) this.log.warn('the organization is SUSPENDED: calls are blocked');
        this.snapshot = { suspended, expiresAtMs: result.flagExpiresAtMs, fetchedAtMs: Date.now() };
      })
      .catch(() => undefined)
      .finally(() => {
        this.inFlight = null;
      });
    this.inFlight = run;
    return run;
  }
}

/** The parsed answer of `GET /v1/budget`. */
export type OrgStatusResult =
  | {
      readonly kind: 'ok';
      readonly status: OrgStatus;
      /** `SUSPENDED`, `THROTTLED` or null when no flag is set. */
      readonly flagState: string | null;
      readonly flagExpiresAtMs: number | null;
    }
  | { readonly kind: 'http'; readonly status: number }
  | { readonly kind: 'error'; readonly reason: string };

/** Calls `GET <url>` with the key and reads `status` / `flag`. Never rejects. */
export async function fetchOrgStatus(
  fetchFn: FetchLike,
  url: string,
  apiKey: string,
  timeoutMs: number,
): Promise<OrgStatusResult> {
  const controller = typeof AbortController === 'function' ? new AbortController() : undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller?.abort();
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      (timer as { unref?: () => void }).unref?.();
    });
    const init: RequestInit = { method: 'GET', headers: { 'Service-API-Key': apiKey, accept: 'application/json' } };
    if (controller !== undefined) init.signal = controller.signal;
    const response = await Promise.race([fetchFn(url, init), timeout]);
    if (response.status !== 200) {
      void response.body?.cancel().catch(() => undefined);
      return { kind: 'http', status: response.status };
    }
    const body: unknown = await Promise.race([response.json(), timeout]);
    return readOrgStatus(body);
  } catch (err) {
    return { kind: 'error', reason: err instanceof Error ? err.message : 'request failed' };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/**
 * Reads the flag from a `GET /v1/budget` body: `flag` is null or an object with `state`
 * (`SUSPENDED` | `THROTTLED`) and `expiresAt` (ISO string or epoch seconds); `status` is the
 * organization's state (`ACTIVE`, `SUSPENDED`, …). Either one saying SUSPENDED counts.
 */
export function readOrgStatus(body: unknown): OrgStatusResult {
  if (typeof body !== 'object' || body === null) return { kind: 'error', reason: 'unexpected body' };
  const b = body as Record<string, unknown>;
  const flag = typeof b.flag === 'object' && b.flag !== null ? (b.flag as Record<string, unknown>) : null;
  const flagState = upper(flag?.state) ?? upper(flag?.action) ?? (typeof b.flag === 'string' ? upper(b.flag) : null);
  const statusField = typeof b.status === 'object' && b.status !== null ? (b.status as Record<string, unknown>) : null;
  const statusText = upper(b.status) ?? upper(statusField?.state) ?? null;
  const state = flagState ?? (statusText === 'SUSPENDED' || statusText === 'THROTTLED' ? statusText : null);
  const spendObj = typeof b.spend === 'object' && b.spend !== null ? (b.spend as Record<string, unknown>) : null;
  const status: OrgStatus = { status: statusText ?? state ?? 'ACTIVE' };
  if (spendObj !== null) {
    status.spend = {};
    if (typeof spendObj.todayUsd === 'number') status.spend.todayUsd = spendObj.todayUsd;
    if (typeof spendObj.monthUsd === 'number') status.spend.monthUsd = spendObj.monthUsd;
  }
  return { kind: 'ok', status, flagState: state, flagExpiresAtMs: expiry(flag?.expiresAt) };
}

function upper(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value.toUpperCase() : null;
}

function expiry(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e11 ? value * 1000 : value;
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}
