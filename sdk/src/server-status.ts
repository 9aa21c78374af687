/**
 * The organization's kill flag as the server reports it (`GET /v1/budget` → `flag.state`, `status`),
 * cached and refreshed in the background, so that a SUSPENDED organization is blocked locally too
 * (the edge proxy blocks it; direct calls through the SDK would not be otherwise).
 *
 * Never on the request path: a call reads the cached value and, when it is stale, starts one refresh
 * that the call does not wait for. Fail-open: any error (network, non-200, unexpected body) leaves the
 * last good answer in force for at most two cache lifetimes, then nothing blocks.
 */
import { drain, timedRequest } from './http';
import type { Logger } from './log';
import type { FetchLike, OrgStatus } from './types';

/** How long an answer is used before the next call refreshes it. */
export const SERVER_STATUS_TTL_MS = 30_000;

interface Snapshot {
  readonly suspended: boolean;
  /** When the flag expires (epoch ms), if the server said. */
  readonly expiresAtMs: number | null;
  readonly at: number;
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
   * Seconds until the suspension ends when the cached answer says SUSPENDED, else null. Starts a
   * background refresh when the answer is stale.
   */
  suspendedFor(nowMs: number): number | null {
    const snap = this.snapshot;
    if (snap === null || nowMs - snap.at >= SERVER_STATUS_TTL_MS) void this.refresh();
    if (snap === null || !snap.suspended || nowMs - snap.at >= 2 * SERVER_STATUS_TTL_MS) return null;
    const end = snap.expiresAtMs ?? snap.at + SERVER_STATUS_TTL_MS * 2;
    return end > nowMs ? Math.ceil((end - nowMs) / 1000) : null;
  }

  /** True when the last answer said SUSPENDED. */
  get lastSuspended(): boolean {
    return this.snapshot?.suspended === true;
  }

  /** Starts a refresh unless one is running; resolves when it ends. Never rejects. */
  refresh(): Promise<void> {
    const target = this.target();
    if (this.inFlight !== null || target === null) return this.inFlight ?? Promise.resolve();
    this.inFlight = fetchOrgStatus(this.fetchFn, target.url, target.apiKey, 5000)
      .then((result) => {
        if (result.kind !== 'ok') {
          this.log.debug(
            `status refresh failed: ${result.kind === 'http' ? `HTTP ${result.status}` : result.reason}`,
          );
          return;
        }
        const suspended = result.flagState === 'SUSPENDED';
        if (suspended && !this.lastSuspended) this.log.warn('organization SUSPENDED: calls are blocked');
        this.snapshot = { suspended, expiresAtMs: result.flagExpiresAtMs, at: Date.now() };
      })
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
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

/** Calls `GET <url>` with the key and reads the answer. Never rejects. */
export function fetchOrgStatus(
  fetchFn: FetchLike,
  url: string,
  apiKey: string,
  timeoutMs: number,
): Promise<OrgStatusResult> {
  const init = { method: 'GET', headers: { 'Service-API-Key': apiKey } };
  return timedRequest(fetchFn, url, init, timeoutMs, async (r): Promise<OrgStatusResult> => {
    if (r.status !== 200) {
      drain(r);
      return { kind: 'http', status: r.status };
    }
    return readOrgStatus(await r.json());
  }).catch((err: unknown) => ({
    kind: 'error',
    reason: err instanceof Error ? err.message : 'request failed',
  }));
}

/**
 * Reads a `GET /v1/budget` body: `flag` is null or `{ state: 'SUSPENDED' | 'THROTTLED', expiresAt }`
 * (ISO time), `status` is `ok`, `soft_cap`, `over_budget`, `throttled` or `suspended`.
 */
export function readOrgStatus(body: unknown): OrgStatusResult {
  const b = (typeof body === 'object' && body !== null ? body : {}) as {
    status?: unknown;
    flag?: { state?: unknown; expiresAt?: unknown } | null;
    spend?: { todayUsd?: unknown; monthUsd?: unknown };
  };
  const status = typeof b.status === 'string' ? b.status : 'unknown';
  const flag = typeof b.flag === 'object' && b.flag !== null ? b.flag : null;
  const state =
    typeof flag?.state === 'string'
      ? flag.state.toUpperCase()
      : status.toLowerCase() === 'suspended'
        ? 'SUSPENDED'
        : null;
  const expires = typeof flag?.expiresAt === 'string' ? Date.parse(flag.expiresAt) : NaN;
  const org: OrgStatus = { status };
  const spend = b.spend;
  if (typeof spend?.todayUsd === 'number' && typeof spend.monthUsd === 'number') {
    org.spend = { todayUsd: spend.todayUsd, monthUsd: spend.monthUsd };
  }
  return {
    kind: 'ok',
    status: org,
    flagState: state,
    flagExpiresAtMs: Number.isNaN(expires) ? null : expires,
  };
}
