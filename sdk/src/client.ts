/**
 * One client: the event buffer, its flushing, the local budget and the server-flag cache. Every
 * tracked fetch (the global one of `initServiceAuto`, each `wrapFetch`) is bound to a client; wrappers
 * with the same API key and endpoint share one.
 *
 * Hot path (per provider call, before the provider is contacted): read the URL and method, one catalog
 * lookup, two integer comparisons for the budget, one cached flag read. Everything else — usage
 * parsing, pricing, the fingerprint's SHA-256, event building, delivery — happens after the response
 * arrived, off the application's path.
 */
import { detectProvider, getProvider } from '../../core/providers/catalog';
import type { ProviderEntry } from '../../core/providers/types';
import { requestedModel } from '../../core/usage/normalize';
import type { UsageResult } from '../../core/usage/types';
import { blockedResponse, SpendCounter, type BudgetBreach } from './budget';
import {
  buildBudgetWarningEvent,
  buildCallEvent,
  costOf,
  fingerprintOf,
  usageContextOf,
  usageToRecord,
  UNPARSED,
  type CallFacts,
  type CallOutcome,
} from './event';
import { inspectRequest } from './inspect';
import { createLogger, describe, type Logger } from './log';
import type { ClientConfig, Labels } from './options';
import { bodyKindOf, observeJson, tapStream } from './response-tap';
import { EnforcementState } from './enforcement';
import { BudgetLease, readLeaseAnswer } from './lease';
import { RingBuffer } from './ring-buffer';
import { monotonicNow, nextTask, setUnrefTimeout, unrefTimer, uuidV4 } from './runtime';
import { callApi, describeResult, leaseFailureOf, readOrgStatus, type ApiResult } from './server-status';
import { DEFAULT_RETRY_POLICY, postBatch, type RetryPolicy } from './transport';
import type {
  ClientEvent,
  ClientStats,
  FetchLike,
  FlushOptions,
  FlushResult,
  SpendguardClient,
} from './types';

/** A finished call's usage and price. */
type Priced = Pick<CallOutcome, 'usage' | 'cost'>;

/** What a tracked fetch adds to its client: labels and an optional forced provider. */
export interface Binding {
  labels: Labels;
  provider: string | undefined;
}

/**
 * Who asked for a flush: the application (`explicit`: awaited, its waits keep the process alive until
 * the deadline), the timer or the exit hook (`background`: never keeps the process alive), or a page
 * going away (`page`: `keepalive` requests).
 */
type FlushMode = 'explicit' | 'background' | 'page';

/** Default time a flush may take. */
const DEFAULT_FLUSH_TIMEOUT_MS = 10_000;
/** Timeout of a lease or status request. */
const API_TIMEOUT_MS = 5000;
/** Longest wait between two checks of the server state while calls are made. */
const MAX_SYNC_DELAY_MS = 10_000;
/** Calls in the last minute make a client active: its lease is kept and renewed. */
const ACTIVE_WINDOW_MS = 60_000;

/** The public id of an `abn_<publicId>_<secret>` key (a session flag naming it covers calls without a session). */
function publicIdOf(apiKey: string | null): string | null {
  const parts = apiKey?.split('_');
  return parts !== undefined && parts.length === 3 ? (parts[1] ?? null) : null;
}

export class Client implements SpendguardClient {
  config: ClientConfig;
  readonly log: Logger;
  /** Retry tunables; tests shorten them. */
  retryPolicy: RetryPolicy = DEFAULT_RETRY_POLICY;
  private buffer: RingBuffer<ClientEvent>;
  private readonly spend = new SpendCounter();
  private readonly notices = new Set<string>();
  /** The server's kill flags, from flush and lease answers (or `GET /v1/budget`). */
  private enforcement: EnforcementState;
  /** This process's share of the organization's hard cap; null with `serverBudget: false`. */
  private lease: BudgetLease | null;
  private syncTimer: (() => void) | null = null;
  private lastCallAt = 0;
  private pollInFlight = false;
  private readonly pending = new Set<Promise<void>>();
  private timer: { cancel: () => void; due: number } | null = null;
  private flushChain: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** No background flush before this time (epoch ms), after a failed delivery. */
  private backoffUntil = 0;
  private warnedNoTarget = false;
  private counters = { calls: 0, blocked: 0, sent: 0, discarded: 0, internalErrors: 0 };

  constructor(
    config: ClientConfig,
    /** The fetch the SDK's own requests use: the original, never an instrumented one. */
    private readonly baseFetch: () => FetchLike | undefined,
  ) {
    this.config = config;
    this.log = createLogger(() => this.config.debug);
    this.buffer = new RingBuffer(config.bufferCapacity);
    this.enforcement = new EnforcementState(publicIdOf(config.apiKey));
    this.lease = config.serverBudget ? new BudgetLease(`sdk-${uuidV4()}`) : null;
  }

  /** Applies new settings (a second `initServiceAuto`, a `wrapFetch` with the same key). */
  configure(config: ClientConfig): void {
    const old = this.config;
    this.config = config;
    if (config.bufferCapacity !== old.bufferCapacity) {
      const next = new RingBuffer<ClientEvent>(config.bufferCapacity);
      const items = this.buffer.take(this.buffer.size);
      next.restoreDropped(this.buffer.takeDropped());
      for (const item of items) next.push(item);
      this.buffer = next;
    }
    if (config.apiKey !== old.apiKey || config.serverBudget !== old.serverBudget) {
      // Another key: another organization's flags and budget.
      this.enforcement = new EnforcementState(publicIdOf(config.apiKey));
      this.lease = config.serverBudget ? new BudgetLease(`sdk-${uuidV4()}`) : null;
      this.warmUp();
    }
  }

  /**
   * Takes the first lease (its answer carries the flags too) or reads the organization's state, so that
   * the first calls already see a SUSPENDED flag or an exhausted budget.
   */
  warmUp(): void {
    const now = Date.now();
    if (this.lease !== null && this.lease.mode === 'none') this.requestLease(now);
    else if (this.config.serverFlags) this.pollStatus();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * The hot path. Returns undefined to let the call through untracked, a Response to answer it
   * locally (the synthetic 429), or the handle of a tracked call.
   */
  begin(args: readonly unknown[], binding: Binding): Call | Response | undefined {
    if (this.closed) return undefined;
    const target = inspectRequest(args);
    if (target === undefined || target.method !== 'POST' || target.aborted) return undefined;
    const provider: ProviderEntry | undefined =
      binding.provider !== undefined ? getProvider(binding.provider) : detectProvider(target.url);
    if (provider === undefined) return undefined;
    this.counters.calls++;
    const now = Date.now();
    this.lastCallAt = now;
    if (this.syncTimer === null) this.armSync(now);
    const facts: CallFacts = {
      provider,
      url: target.url,
      path: target.path,
      body: target.body,
      labels: binding.labels,
      startedAt: now,
      parsed: UNPARSED,
    };
    const blocked = this.checkLimits(facts, now);
    if (blocked !== undefined) {
      this.counters.blocked++;
      return blocked;
    }
    return new Call(this, facts, monotonicNow());
  }

  /** Server flags first, then the shared budget's lease, then the local budget. Memory reads only. */
  private checkLimits(facts: CallFacts, now: number): Response | undefined {
    if (this.config.serverFlags) {
      const flag = this.enforcement.refusal(facts.labels.sessionId, now);
      if (flag !== null) {
        this.log.debug(`blocked: ${flag.scope} SUSPENDED`);
        return blockedResponse({ kind: 'flag', flag }, now);
      }
    }
    const decision = this.lease?.admit(now) ?? null;
    if (decision !== null) {
      if (decision.kind === 'pending') this.armSync(now, 0);
      this.log.debug(`blocked: budget lease ${decision.kind}`);
      return blockedResponse(
        {
          kind: 'lease',
          retryAfterSeconds: decision.kind === 'exhausted' ? decision.retryAfterSeconds : null,
        },
        now,
      );
    }
    const budget = this.config.budget;
    if (budget === null) return undefined;
    const breach = this.spend.breach(budget, now);
    if (breach === null) return undefined;
    if (budget.action === 'block') {
      this.log.debug(`call to ${facts.provider.id} blocked: ${breach.period} budget reached`);
      return blockedResponse({ kind: 'budget', breach }, now);
    }
    this.notifyBreach(facts, breach, budget.action, now);
    return undefined;
  }

  /** warn: one `budget_warning` event per period and limit; log: one debug line. */
  private notifyBreach(facts: CallFacts, breach: BudgetBreach, action: 'warn' | 'log', now: number): void {
    const key = `${action}:${breach.period}:${breach.periodStartMs}`;
    if (this.notices.has(key)) return;
    this.notices.add(key);
    const message = `${breach.period} budget reached: $${breach.spentNanos / 1e9} of $${breach.limitNanos / 1e9}`;
    if (action === 'log') {
      this.log.debug(message);
      return;
    }
    this.log.warn(`${message}; the call proceeds (action 'warn')`);
    let model = 'unknown';
    try {
      model = requestedModel(usageContextOf(facts)) ?? 'unknown';
    } catch {
      // keep 'unknown'
    }
    this.push(buildBudgetWarningEvent(facts.provider.id, model, facts.labels, now));
  }

  /**
   * True when a cost must be counted the moment its response completes, before the application can
   * start its next call: a `block` budget or a capped lease (otherwise pricing waits for a later task).
   */
  get exactCost(): boolean {
    return this.config.budget?.action === 'block' || this.lease?.mode === 'capped';
  }

  /** Prices a finished call and counts its cost (local budget, lease). Never throws. */
  account(facts: CallFacts, statusCode: number, result: UsageResult | null): Priced | null {
    try {
      const usage = usageToRecord(facts, result, statusCode);
      const cost = costOf(facts, usage);
      this.spend.add(cost.costNanos, Date.now());
      this.lease?.record(cost.costNanos);
      if (result !== null && !result.ok && statusCode >= 200 && statusCode < 300) {
        this.log.debug(`usage not read from ${facts.provider.id} response: ${result.reason}`);
      }
      return { usage, cost };
    } catch (err) {
      this.internalError(err);
      return null;
    }
  }

  /** Records a priced call: fingerprint → event; renews the lease when its slice runs low. */
  emit(
    facts: CallFacts,
    statusCode: number,
    priced: Priced | null,
    stream: boolean,
    latencyMs: number,
  ): void {
    if (priced === null) return;
    this.sync(Date.now());
    const fingerprint = fingerprintOf(facts);
    this.push(buildCallEvent(facts, { ...priced, statusCode, latencyMs, stream, fingerprint }));
  }

  /** Work queued for the next {@link later} task. */
  private laterQueue: Array<() => void> = [];
  /** Resolved when the queued work has run ({@link settle} waits on it; no promise per call otherwise). */
  private laterDone: Promise<void> | null = null;
  private resolveLater: (() => void) | null = null;

  /**
   * Runs `work` in a task of its own (one task for everything queued meanwhile), never inside the
   * application's own chain of promise callbacks; `flush()` waits for it.
   */
  later(work: () => void): void {
    this.laterQueue.push(work);
    if (this.laterQueue.length === 1) nextTask(() => this.runLater());
  }

  /** Runs the queued {@link later} work now. */
  private runLater(): void {
    const queue = this.laterQueue;
    this.laterQueue = [];
    for (const job of queue) {
      try {
        job();
      } catch (err) {
        this.internalError(err);
      }
    }
    this.resolveLater?.();
    this.laterDone = this.resolveLater = null;
  }

  /** A promise of the queued {@link later} work's end. */
  private laterSettled(): Promise<void> {
    if (this.laterQueue.length === 0) return Promise.resolve();
    return (this.laterDone ??= new Promise<void>((resolve) => (this.resolveLater = resolve)));
  }

  /** Keeps a background task so that `flush()` can wait for it. */
  track(task: Promise<unknown>): void {
    const p: Promise<void> = task.then(
      () => undefined,
      (err: unknown) => this.internalError(err),
    );
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  internalError(err: unknown): void {
    this.counters.internalErrors++;
    this.log.debug('internal error (swallowed)', describe(err));
  }

  private push(event: ClientEvent): void {
    if (this.closed) return;
    this.buffer.push(event);
    this.schedule();
  }

  /**
   * Arms the flush timer: at once when a batch is full, else after the interval; after a failed
   * delivery not before the backoff ends (a down backend is not hammered).
   */
  private schedule(): void {
    if (this.closed || this.buffer.size === 0) return;
    const now = Date.now();
    const delay = this.buffer.size >= this.config.maxBatchSize ? 0 : this.config.flushIntervalMs;
    const due = Math.max(now + delay, this.backoffUntil);
    if (this.timer !== null && this.timer.due <= due) return;
    this.timer?.cancel();
    const cancel = setUnrefTimeout(() => {
      this.timer = null;
      void this.enqueueFlush(undefined, 'background');
    }, due - now);
    this.timer = { cancel, due };
  }

  private ingestTarget(): { url: string; apiKey: string } | null {
    const { endpoint, apiKey } = this.config;
    return endpoint === null || apiKey === null ? null : { url: `${endpoint}/v1/events`, apiKey };
  }

  /**
   * Arms the check of the server state (at most one timer): `delayMs`, else when the last answer is a
   * flush interval old (capped at {@link MAX_SYNC_DELAY_MS}, so lease expiry is seen in time).
   */
  private armSync(now: number, delayMs?: number): void {
    if (this.closed || this.config.endpoint === null || this.config.apiKey === null) return;
    const interval = this.config.flushIntervalMs;
    const delay =
      delayMs ??
      Math.max(0, Math.min(MAX_SYNC_DELAY_MS, interval, this.enforcement.lastAnswerAt + interval - now));
    if (this.syncTimer !== null) {
      if (delay > 0) return;
      this.syncTimer();
    }
    this.syncTimer = setUnrefTimeout(() => {
      this.syncTimer = null;
      try {
        this.sync(Date.now());
      } catch (err) {
        this.internalError(err);
      }
    }, delay);
  }

  /**
   * Keeps the server state fresh while calls are made (never on the call path): renews the lease when
   * it is due; when the last answer is a flush interval old and no flush is coming (every call refused:
   * nothing to send), asks anyway — the lease route, else `GET /v1/budget` — so that a flag set or
   * cleared on the server is seen within a flush interval.
   */
  private sync(now: number): void {
    if (this.closed || this.config.endpoint === null || this.config.apiKey === null) return;
    const lease = this.lease;
    const active = this.lastCallAt > 0 && now - this.lastCallAt < ACTIVE_WINDOW_MS;
    if (lease !== null && lease.due(now, active)) {
      this.requestLease(now);
      return;
    }
    const answered = this.enforcement.lastAnswerAt;
    if (
      !this.config.serverFlags ||
      now - answered < this.config.flushIntervalMs ||
      this.lastCallAt <= answered
    ) {
      return;
    }
    if (this.buffer.size > 0 && this.timer !== null && this.timer.due <= now + this.config.flushIntervalMs) {
      return; // the coming flush's answer carries the flags
    }
    if (lease?.inFlight === true || this.pollInFlight) return; // an answer is on its way
    if (lease !== null && lease.working) this.requestLease(now);
    else this.pollStatus();
  }

  /** An API request with the key, through the original fetch; null without endpoint, key or fetch. */
  private api(path: string, body: unknown, timeoutMs = API_TIMEOUT_MS): Promise<ApiResult> | null {
    const fetchFn = this.baseFetch();
    const { endpoint, apiKey } = this.config;
    if (fetchFn === undefined || endpoint === null || apiKey === null) return null;
    return callApi(fetchFn, endpoint + path, apiKey, body, timeoutMs);
  }

  /** `POST /v1/budget/lease`: reports consumption, takes or renews the slice, refreshes the flags. */
  private requestLease(now: number): void {
    const lease = this.lease;
    if (lease === null || lease.inFlight) return;
    const request = this.api('/v1/budget/lease', lease.begin(now));
    if (request === null) return lease.failed('unreachable', now);
    this.track(
      request.then((result) => {
        const at = Date.now();
        const answer = result.kind === 'ok' ? readLeaseAnswer(result.body, at) : null;
        if (answer !== null) {
          lease.answered(answer, at);
          this.applyEnforcement((result as { body: { enforcement?: unknown } }).body.enforcement, at);
          return;
        }
        const failure = leaseFailureOf(result);
        lease.failed(failure, at);
        this.log.debug(
          `lease request failed (${describeResult(result)}): fail open, ${lease.failOpenCalls} calls`,
        );
        if (failure === 'unreachable') this.enforcementFailed(at);
        else if (this.config.serverFlags) this.pollStatus();
      }),
    );
  }

  /** `GET /v1/budget`: the organization flag, when no lease answer carries the flags. */
  private pollStatus(): void {
    const request = this.pollInFlight ? null : this.api('/v1/budget', undefined);
    if (request === null) return;
    this.pollInFlight = true;
    this.track(
      request
        .then((result) => {
          const at = Date.now();
          if (result.kind !== 'ok') {
            this.log.debug(`status read failed (${describeResult(result)})`);
            return this.enforcementFailed(at);
          }
          const body = result.body as { enforcement?: unknown } | undefined;
          if (this.applyEnforcement(body?.enforcement, at)) return;
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
          this.applyEnforcement({ flags }, at);
        })
        .finally(() => {
          this.pollInFlight = false;
        }),
    );
  }

  /** Applies an `enforcement` block; false when the value is not one (an older backend sends none). */
  private applyEnforcement(block: unknown, now: number): boolean {
    const before = this.enforcement.summary(now);
    if (!this.enforcement.apply(block, now)) return false;
    const after = this.enforcement.summary(now);
    if (after !== before && after !== '') this.log.warn(`SUSPENDED on the server (${after}): calls refused`);
    return true;
  }

  /** The backend could not be reached: after a while the flags are dropped (fail open, spec Law 4). */
  private enforcementFailed(now: number): void {
    if (this.enforcement.failed(now, Math.max(60_000, 3 * this.config.flushIntervalMs))) {
      this.log.warn('backend unreachable: server flags dropped (fail open)');
    }
  }

  /**
   * `POST /v1/budget/lease/release`: the final report; returns the unused slice (shutdown, end of a
   * Lambda invocation). Never rejects.
   */
  async releaseLease(timeoutMs = API_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await this.settle(timeoutMs / 2); // the last calls' costs go into the final report
    const lease = this.lease;
    if (lease === null || !lease.holding) return;
    const result = await this.api(
      '/v1/budget/lease/release',
      lease.release(),
      Math.max(1, deadline - Date.now()),
    );
    if (result !== null && result.kind !== 'ok')
      this.log.debug(`lease release failed (${describeResult(result)})`);
  }

  /**
   * A flush the application awaits: a background flush waiting to retry gives way at once, and this
   * one's own waits keep the process alive until its deadline (the caller wants it done).
   */
  flush(options?: FlushOptions): Promise<FlushResult> {
    this.explicitFlushes++;
    this.wake?.();
    return this.enqueueFlush(options, 'explicit').finally(() => this.explicitFlushes--);
  }

  /** The runtime is ending: one more try, with `keepalive` requests in browsers; never keeps a process alive. */
  flushOnExit(keepalive: boolean): Promise<FlushResult> {
    return this.enqueueFlush(undefined, keepalive ? 'page' : 'background');
  }

  /** Cuts short the retry wait of a running flush. */
  private wake: (() => void) | null = null;
  /** Explicit flushes queued or running: background flushes do not wait for retries meanwhile. */
  private explicitFlushes = 0;

  private wait(ms: number, keepAlive: boolean): Promise<boolean> {
    if (!keepAlive && this.explicitFlushes > 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve(true);
      }, ms);
      if (!keepAlive) unrefTimer(timer);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve(false);
      };
    });
  }

  private enqueueFlush(options: FlushOptions | undefined, mode: FlushMode): Promise<FlushResult> {
    const run = this.flushChain.then(() => this.drain(options, mode));
    this.flushChain = run.catch(() => undefined);
    return run.catch((err: unknown) => {
      this.internalError(err);
      return { sent: 0, pending: this.buffer.size, discarded: 0 };
    });
  }

  private async drain(options: FlushOptions | undefined, mode: FlushMode): Promise<FlushResult> {
    const timeout = options?.timeoutMs;
    const deadline =
      Date.now() + (typeof timeout === 'number' && timeout >= 0 ? timeout : DEFAULT_FLUSH_TIMEOUT_MS);
    // A page going away may never run another timer: send what is ready, now.
    if (mode === 'page') this.runLater();
    else await this.settle(deadline - Date.now());
    let sent = 0;
    let discarded = 0;
    const target = this.ingestTarget();
    if (target === null) {
      discarded = this.buffer.take(this.buffer.size).length;
      this.buffer.takeDropped();
      this.counters.discarded += discarded;
      if (discarded > 0 && !this.warnedNoTarget) {
        this.warnedNoTarget = true;
        this.log.warn(
          `${this.config.apiKey === null ? 'no apiKey' : 'no endpoint'} configured: telemetry is not sent (events discarded)`,
        );
      }
      return { sent, pending: 0, discarded };
    }
    const fetchFn = this.baseFetch();
    if (fetchFn === undefined) return { sent, pending: this.buffer.size, discarded };
    while (this.buffer.size > 0) {
      // Serialize in a task of its own, not inside whatever promise chain resumed this flush.
      if (mode !== 'page') await new Promise<void>((resolve) => nextTask(resolve));
      if (this.buffer.size === 0) break;
      const batch = this.buffer.take(this.config.maxBatchSize);
      const dropped = this.buffer.takeDropped();
      const body = JSON.stringify(
        dropped > 0 ? { events: batch, droppedEvents: dropped } : { events: batch },
      );
      const outcome = await postBatch({
        fetch: fetchFn,
        url: target.url,
        apiKey: target.apiKey,
        body,
        policy: this.retryPolicy,
        log: this.log,
        deadline,
        keepalive: mode === 'page',
        wait: (ms) => this.wait(ms, mode === 'explicit'),
      });
      if (outcome.kind === 'sent') {
        this.applyEnforcement(
          (outcome.answer as { enforcement?: unknown } | undefined)?.enforcement,
          Date.now(),
        );
        this.backoffUntil = 0;
        sent += batch.length;
        this.counters.sent += batch.length;
        this.log.debug(
          `flushed ${batch.length} event(s)${dropped > 0 ? `, ${dropped} dropped reported` : ''}`,
        );
      } else if (outcome.kind === 'rejected') {
        discarded += batch.length;
        this.counters.discarded += batch.length;
      } else {
        this.buffer.requeue(batch);
        this.buffer.restoreDropped(dropped);
        this.enforcementFailed(Date.now());
        this.backoffUntil = Date.now() + Math.max(this.config.flushIntervalMs, outcome.retryAfterMs ?? 0);
        this.log.debug(`flush postponed: ${outcome.reason}`);
        break;
      }
    }
    this.schedule();
    return { sent, pending: this.buffer.size, discarded };
  }

  /** Waits (at most `timeoutMs`) for the events of finished calls to be built. */
  async settle(timeoutMs = DEFAULT_FLUSH_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // Queued event work, and the requests it may start (a lease renewal): wait until none is left.
    while ((this.pending.size > 0 || this.laterQueue.length > 0) && Date.now() < deadline) {
      let cancel: () => void = () => undefined;
      const timeout = new Promise<void>(
        (resolve) => (cancel = setUnrefTimeout(resolve, deadline - Date.now())),
      );
      await Promise.race([Promise.allSettled([...this.pending, this.laterSettled()]), timeout]);
      cancel();
    }
  }

  async shutdown(options?: FlushOptions): Promise<FlushResult> {
    const timeout = options?.timeoutMs;
    const [result] = await Promise.all([
      this.flush(options),
      this.releaseLease(
        typeof timeout === 'number' && timeout >= 0 ? Math.min(timeout, API_TIMEOUT_MS) : API_TIMEOUT_MS,
      ),
    ]);
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
    this.syncTimer?.();
    this.syncTimer = null;
    return result;
  }

  stats(): ClientStats {
    const now = Date.now();
    const lease = this.lease;
    return {
      calls: this.counters.calls,
      blocked: this.counters.blocked,
      buffered: this.buffer.size,
      droppedUnreported: this.buffer.droppedUnreported,
      droppedTotal: this.buffer.droppedTotal,
      sent: this.counters.sent,
      discarded: this.counters.discarded,
      internalErrors: this.counters.internalErrors,
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
              errors: lease.errors,
            },
    };
  }

  /** Spend counted by the local budget (nano-USD), for tests. */
  spentNanos(nowMs = Date.now()): { dayNanos: number; monthNanos: number } {
    return this.spend.spent(nowMs);
  }

  /** Reads `GET /v1/budget` now and waits for the answer (tests). */
  async refreshServerStatus(): Promise<void> {
    this.pollStatus();
    await this.settle();
  }
}

/** One tracked provider call, from the request to its event. */
export class Call {
  private done = false;

  constructor(
    private readonly client: Client,
    private readonly facts: CallFacts,
    private readonly startMono: number,
  ) {}

  /** Called with the provider's response; returns what the application gets. Never throws. */
  onResponse(response: Response): Response {
    try {
      if (!(response instanceof Response)) return response;
      const status = response.status;
      const kind = bodyKindOf(response);
      const ctx = usageContextOf(this.facts);
      if (kind === 'stream') {
        const tapped = tapStream(response, this.facts.provider, ctx, (outcome) =>
          this.finish(status, outcome.usage, true),
        );
        if (tapped === response) this.finish(status, null, true);
        return tapped;
      }
      if (kind === 'json')
        return observeJson(response, this.facts.provider, ctx, (usage) => this.finish(status, usage, false));
      this.finish(status, null, false);
      return response;
    } catch (err) {
      this.client.internalError(err);
      return response;
    }
  }

  /** The provider call failed (network error, abort): no response, no event. */
  onFailure(err: unknown): void {
    this.done = true;
    this.client.log.debug(`call to ${this.facts.provider.id} failed before a response`, describe(err));
  }

  /**
   * Records the call in a later task: pricing, fingerprinting and event building never delay the
   * application, which receives the last bytes (or the response) first.
   */
  private finish(status: number, usage: UsageResult | (() => UsageResult) | null, stream: boolean): void {
    if (this.done) return;
    this.done = true;
    const latencyMs = monotonicNow() - this.startMono;
    const { client, facts } = this;
    const price = (): Priced | null =>
      client.account(facts, status, typeof usage === 'function' ? usage() : usage);
    if (client.exactCost) {
      // Counted before the application gets the end of the body: its next call sees this cost.
      const priced = price();
      client.later(() => client.emit(facts, status, priced, stream, latencyMs));
    } else client.later(() => client.emit(facts, status, price(), stream, latencyMs));
  }
}
