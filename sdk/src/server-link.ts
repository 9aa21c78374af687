/**
 * The client's link to the server's decisions: the kill flags (`enforcement` blocks of flush and lease
 * answers, `GET /v1/budget` as the fallback) and the budget lease (`POST /v1/budget/lease`, `/release`).
 *
 * The call path only reads memory ({@link ServerLink.check}); requests start from a timer or from the
 * task after a call's cost is counted ({@link ServerLink.sync}), never inside a call. See docs/sdk.md,
 * "Server enforcement".
 */
import { blockedResponse } from './budget';
import { EnforcementState } from './enforcement';
import { BudgetLease, readLeaseAnswer, type LeaseDecision } from './lease';
import { loadAdmissionReaders } from './load-admission-readers';
import type { Logger } from './log';
import type { ClientConfig } from './options';
import { settleWithin, setUnrefTimeout, uuidV4 } from './runtime';
import { callApi, describeResult, leaseFailureOf, readOrgStatus, type ApiResult } from './server-status';
import type { ClientStats, FetchLike } from './types';

/** Timeout of a lease or status request. */
export const API_TIMEOUT_MS = 5000;
/** Longest wait between two checks of the server state while calls are made. */
const MAX_SYNC_DELAY_MS = 10_000;
/** Calls in the last minute make a client active: its lease is kept and renewed. */
const ACTIVE_WINDOW_MS = 60_000;
/** Longest time a call waits for the lease answer it needs (the request's own timeout, plus a margin). */
export const MAX_LEASE_WAIT_MS = API_TIMEOUT_MS + 1_000;
/** A request that fails this long after its own timeout was cut by a freeze of the process. */
const FROZEN_SLACK_MS = 1_000;
/** How long a call that does not fit yet keeps asking (room comes back as other holders settle). */
const FIT_WAIT_MS = 3_000;
/** Pause between two such asks. */
const FIT_POLL_MS = 250;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** `pending` or `ms`, whichever ends first. */
const within = (pending: Promise<void>, ms: number): Promise<void> =>
  settleWithin(pending, ms, () => undefined);

/** The public id of an `abn_<publicId>_<secret>` key (a session flag naming it covers calls without a session). */
function publicIdOf(apiKey: string | null): string | null {
  const parts = apiKey?.split('_');
  return parts !== undefined && parts.length === 3 ? (parts[1] ?? null) : null;
}

/** What the link needs from its client. */
export interface LinkHost {
  readonly config: ClientConfig;
  readonly log: Logger;
  readonly closed: boolean;
  /** The original fetch. */
  baseFetch(): FetchLike | undefined;
  /** Keeps a background request so that `flush()` and `settle()` wait for it. */
  track(task: Promise<unknown>): void;
  internalError(err: unknown): void;
  /** Waits for the queued event work (its costs go into the lease's reports). */
  settle(timeoutMs: number): Promise<void>;
  /** True when a flush is armed to start by `atMs` (its answer will carry the flags). */
  flushDueBy(atMs: number): boolean;
}

export class ServerLink {
  /** The server's kill flags. */
  enforcement: EnforcementState;
  /** This process's share of the organization's hard cap; null with `serverBudget: false`. */
  lease: BudgetLease | null;
  #timer: (() => void) | null = null;
  #lastCallAt = 0;
  #pollInFlight = false;
  /** False once a flush answer came without an `enforcement` block (an older backend): poll instead. */
  #flushesCarryFlags = true;
  /** The lease request in flight, resolved when it is answered or failed. */
  #leaseRequest: Promise<void> | null = null;
  /** The final report went (shutdown): no lease request follows it. */
  #released = false;

  readonly #host: LinkHost;

  constructor(host: LinkHost) {
    this.#host = host;
    this.enforcement = new EnforcementState(publicIdOf(host.config.apiKey));
    this.lease = host.config.serverBudget ? new BudgetLease(`sdk-${uuidV4()}`) : null;
  }

  /** Starts afresh (another key: another organization's flags and budget) and warms up. */
  reset(): void {
    this.enforcement = new EnforcementState(publicIdOf(this.#host.config.apiKey));
    this.lease = this.#host.config.serverBudget ? new BudgetLease(`sdk-${uuidV4()}`) : null;
    this.warmUp();
  }

  /**
   * Takes the first lease (its answer carries the flags too) or reads the organization's state, so that
   * the first calls already see a SUSPENDED flag or an exhausted budget.
   */
  warmUp(): void {
    if (this.lease !== null && this.lease.mode === 'none') this.#requestLease(Date.now());
    else if (this.#host.config.serverFlags) this.pollStatus();
  }

  /**
   * The call path: the synthetic 429 for a call of `sessionId` at `now` refused by a server flag, else
   * undefined. Memory reads only; arms the state check when none is armed.
   */
  check(sessionId: string | undefined, now: number): Response | undefined {
    this.#lastCallAt = now;
    if (this.#timer === null) this.arm(now);
    if (this.#host.config.serverFlags) {
      const flag = this.enforcement.refusal(sessionId, now);
      if (flag !== null) {
        this.#host.log.debug(`blocked: ${flag.scope} ${flag.state}`);
        return blockedResponse({ kind: 'flag', flag }, now);
      }
    }
    return undefined;
  }

  /** Settles when the lease request in flight, if any, is answered or fails (its own timeout bounds it). */
  leaseAnswered(): Promise<void> {
    return this.#leaseRequest ?? Promise.resolve();
  }

  /**
   * Waits (at most {@link MAX_LEASE_WAIT_MS}) for a lease answer that admits a call of worst case
   * `costNanos`: asks the server for room for it (`needUsd`: the largest waiting call's); an
   * exhausted answer is asked again for {@link FIT_WAIT_MS}, since room other holders hold in slices or
   * reservations can come back. Never rejects.
   */
  async waitForLease(costNanos: number): Promise<LeaseDecision> {
    const lease = this.lease;
    if (lease === null) return { kind: 'admitted', reservedNanos: 0 };
    const started = Date.now();
    const deadline = started + MAX_LEASE_WAIT_MS;
    lease.waiting.push(costNanos);
    lease.noteWorstCase(costNanos);
    const leave = (): void => {
      const i = lease.waiting.indexOf(costNanos);
      if (i >= 0) lease.waiting.splice(i, 1);
    };
    try {
      for (let asked = false; ; asked = true) {
        if (!lease.inFlight) this.#requestLease(Date.now());
        const pending = this.#leaseRequest;
        if (pending !== null) {
          await within(pending, deadline - Date.now());
        }
        const now = Date.now();
        const d = lease.admit(costNanos, now);
        if (d.kind === 'admitted' || d.kind === 'refused') return d;
        if (now >= deadline) return d;
        if (d.kind === 'exhausted') {
          // Not retryable: settled spend leaves no room for this call until the period ends.
          if (!d.retryable || now - started >= FIT_WAIT_MS) return d;
          await sleep(Math.min(FIT_POLL_MS, deadline - now));
          this.#requestLease(Date.now(), true);
        } else if (asked && !lease.inFlight) {
          await sleep(Math.min(FIT_POLL_MS, deadline - now));
        }
      }
    } finally {
      leave();
    }
  }

  /**
   * The end of a Lambda invocation: the spend of its calls reported (a lease request, which keeps the
   * slice), and no lease request left in flight, so that a freeze strands nothing. Never rejects.
   */
  async report(timeoutMs = API_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await this.#host.settle(timeoutMs / 2); // the last calls' costs go into the report
    const lease = this.lease;
    if (lease === null) return;
    for (let i = 0; i < 2 && Date.now() < deadline; i++) {
      if (!lease.inFlight && lease.unreported > 0 && lease.working) this.#requestLease(Date.now(), true);
      const pending = this.#leaseRequest;
      if (pending === null) return;
      await within(pending, deadline - Date.now());
    }
  }

  /** A flush was answered (`answer`: its body, null when unreadable) or failed (undefined). */
  flushed(answer: unknown, now: number): void {
    if (answer === undefined) this.#failed(now);
    else {
      this.#flushesCarryFlags = this.#applyEnforcement(
        (answer as { enforcement?: unknown } | null)?.enforcement,
        now,
      );
    }
  }

  /** Stops the timer (shutdown). */
  stop(): void {
    this.#timer?.();
    this.#timer = null;
  }

  /** The flag and lease part of the client's stats. */
  stats(now: number): Pick<ClientStats, 'serverSuspended' | 'suspendedSessions' | 'failOpen' | 'lease'> {
    const lease = this.lease;
    return {
      serverSuspended: this.enforcement.blocked(now),
      suspendedSessions: this.enforcement.suspendedSessions(now),
      failOpen: lease?.failOpenCalls ?? 0,
      lease:
        lease === null
          ? null
          : {
              holderId: lease.holderId,
              state: lease.mode,
              grantedUsd: lease.grantedNanos / 1e9,
              usedUsd: lease.usedNanos / 1e9,
              reservedUsd: lease.reservedNanos / 1e9,
              errors: lease.errors,
            },
    };
  }

  /**
   * Arms the check of the server state (at most one timer): `delayMs`, else when the last answer is a
   * flush interval old (capped at {@link MAX_SYNC_DELAY_MS}, so lease expiry is seen in time).
   */
  arm(now: number, delayMs?: number): void {
    if (this.#host.closed || this.#host.config.endpoint === null || this.#host.config.apiKey === null) return;
    const interval = this.#host.config.flushIntervalMs;
    const delay =
      delayMs ??
      Math.max(0, Math.min(MAX_SYNC_DELAY_MS, interval, this.enforcement.lastAnswerAt + interval - now));
    if (this.#timer !== null) {
      if (delay > 0) return;
      this.#timer();
    }
    this.#timer = setUnrefTimeout(() => {
      this.#timer = null;
      try {
        this.sync(Date.now());
      } catch (err) {
        this.#host.internalError(err);
      }
    }, delay);
  }

  /**
   * Keeps the server state fresh while calls are made (never on the call path): renews the lease when
   * it is due; when the last answer is a flush interval old and no flush is coming (every call refused:
   * nothing to send), asks anyway — the lease route, else `GET /v1/budget` — so that a flag set or
   * cleared on the server is seen within a flush interval.
   */
  sync(now: number): void {
    if (this.#host.closed || this.#host.config.endpoint === null || this.#host.config.apiKey === null) return;
    const lease = this.lease;
    const active = this.#lastCallAt > 0 && now - this.#lastCallAt < ACTIVE_WINDOW_MS;
    if (lease !== null && lease.due(now, active)) {
      this.#requestLease(now);
      return;
    }
    const answered = this.enforcement.lastAnswerAt;
    if (
      !this.#host.config.serverFlags ||
      now - answered < this.#host.config.flushIntervalMs ||
      this.#lastCallAt <= answered
    ) {
      return;
    }
    if (this.#flushesCarryFlags && this.#host.flushDueBy(now + this.#host.config.flushIntervalMs)) {
      return; // the coming flush's answer carries the flags
    }
    if (lease?.inFlight === true || this.#pollInFlight) return; // an answer is on its way
    if (lease !== null && lease.working) this.#requestLease(now);
    else this.pollStatus();
  }

  /** An API request with the key, through the original fetch; null without endpoint, key or fetch. */
  #api(path: string, body: unknown, timeoutMs = API_TIMEOUT_MS): Promise<ApiResult> | null {
    const fetchFn = this.#host.baseFetch();
    const { endpoint, apiKey } = this.#host.config;
    if (fetchFn === undefined || endpoint === null || apiKey === null) return null;
    return callApi(fetchFn, endpoint + path, apiKey, body, timeoutMs);
  }

  /**
   * `POST /v1/budget/lease`: reports consumption, takes or renews the slice, refreshes the flags.
   * `force`: also while backing off after a failure (a call is waiting for it).
   */
  #requestLease(now: number, force = false): void {
    const lease = this.lease;
    if (lease === null || lease.inFlight || this.#released) return;
    if (!force && !lease.working && !lease.due(now, true)) return;
    const request = this.#api('/v1/budget/lease', lease.begin(now));
    if (request === null) return lease.failed('unreachable', now);
    const done = request.then((result) => {
      const at = Date.now();
      if (result.kind === 'error' && at - now > API_TIMEOUT_MS + FROZEN_SLACK_MS) {
        // The timeout fired long after it was due: this process was frozen, not the backend down.
        lease.interrupted();
        return;
      }
      if (result.kind === 'http' && (result.status === 503 || result.status === 429) && result.retryAfter) {
        lease.busy(at);
        this.#host.log.debug(`lease request answered ${result.status} (busy): asked again`);
        return;
      }
      const answer = result.kind === 'ok' ? readLeaseAnswer(result.body, at) : null;
      if (answer !== null) {
        lease.answered(answer, at);
        // A hard cap applies: the next call reserves its worst case, so its readers load now.
        if (lease.mode !== 'uncapped') loadAdmissionReaders().catch(() => undefined);
        this.#applyEnforcement((result as { body: { enforcement?: unknown } }).body.enforcement, at);
        return;
      }
      const failure = leaseFailureOf(result);
      lease.failed(failure, at);
      this.#host.log.debug(
        `lease request failed (${describeResult(result)}): fail open, ${lease.failOpenCalls} calls`,
      );
      if (failure === 'unreachable') this.#failed(at);
      else if (this.#host.config.serverFlags) this.pollStatus();
    });
    const tracked = done.then(
      () => undefined,
      () => undefined,
    );
    this.#leaseRequest = tracked;
    void tracked.finally(() => {
      if (this.#leaseRequest === tracked) this.#leaseRequest = null;
    });
    this.#host.track(done);
  }

  /** `GET /v1/budget`: the organization flag, when no lease answer carries the flags. */
  pollStatus(): void {
    const request = this.#pollInFlight ? null : this.#api('/v1/budget', undefined);
    if (request === null) return;
    this.#pollInFlight = true;
    this.#host.track(
      request
        .then((result) => {
          const at = Date.now();
          if (result.kind !== 'ok') {
            this.#host.log.debug(`status read failed (${describeResult(result)})`);
            return this.#failed(at);
          }
          const body = result.body as { enforcement?: unknown } | undefined;
          if (this.#applyEnforcement(body?.enforcement, at)) return;
          const org = readOrgStatus(body);
          // An older backend: the organization flag only.
          const flags =
            org.kind === 'ok' && org.flagState === 'SUSPENDED'
              ? [
                  {
                    scope: 'organization',
                    state: 'SUSPENDED',
                    expiresAt: new Date(org.flagExpiresAtMs ?? at + 60_000).toISOString(),
                  },
                ]
              : [];
          this.#applyEnforcement({ flags }, at);
        })
        .finally(() => {
          this.#pollInFlight = false;
        }),
    );
  }

  /** Applies an `enforcement` block; false when the value is not one (an older backend sends none). */
  #applyEnforcement(block: unknown, now: number): boolean {
    const before = this.enforcement.summary(now);
    if (!this.enforcement.apply(block, now)) return false;
    const after = this.enforcement.summary(now);
    if (after !== before && after !== '')
      this.#host.log.warn(`SUSPENDED on the server (${after}): calls refused`);
    return true;
  }

  /** The backend could not be reached: after a while the flags are dropped (fail open, spec Law 4). */
  #failed(now: number): void {
    if (this.enforcement.failed(now, Math.max(60_000, 3 * this.#host.config.flushIntervalMs))) {
      this.#host.log.warn('backend unreachable: server flags dropped (fail open)');
    }
  }

  /**
   * `POST /v1/budget/lease/release`: the final report; returns the unused slice (shutdown, end of a
   * Lambda invocation). Never rejects.
   */
  async release(timeoutMs = API_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // No renewal may start after the final report, and one in flight lands first: landing after the
    // release, it would grant the departed holder a slice, charged as spent once it lapsed.
    this.stop();
    await this.#host.settle(timeoutMs / 2); // the last calls' costs go into the final report
    if (this.#leaseRequest !== null) await within(this.#leaseRequest, deadline - Date.now());
    const lease = this.lease;
    this.#released = true;
    if (lease === null || !lease.holding) return;
    const result = await this.#api(
      '/v1/budget/lease/release',
      lease.release(),
      Math.max(1, deadline - Date.now()),
    );
    if (result !== null && result.kind !== 'ok')
      this.#host.log.debug(`lease release failed (${describeResult(result)})`);
  }
}
