/**
 * One client: the event buffer, its flushing, the local budget, and its link to the server (kill flags,
 * budget lease). Every tracked fetch (the global one of `initServiceAuto`, each `wrapFetch`) is bound to
 * a client; wrappers with the same API key and endpoint share one.
 *
 * Hot path (per provider call, before the provider is contacted): read the URL and method, one catalog
 * lookup, memory reads of the server flags and the lease, two integer comparisons for the budget.
 * Everything else — usage parsing, pricing, the fingerprint's SHA-256, event building, delivery, lease
 * renewals — happens after the response arrived, off the application's path (with a `block` budget or a
 * capped lease, the cost is counted as the response completes, so that the next call sees it).
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
import { RingBuffer } from './ring-buffer';
import { monotonicNow, nextTask, settleWithin, setUnrefTimeout, unrefTimer } from './runtime';
import type { BudgetLease, LeaseDecision } from './lease';
import { API_TIMEOUT_MS, ServerLink } from './server-link';
import { admissionReaders, loadAdmissionReaders, type AdmissionReaders } from './load-admission-readers';
import { loadTimeout, MAX_LOAD_WAIT_MS, usageParserLoading } from './on-demand-usage';
import { worstCaseOf } from './worst-case';
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
type Priced = Pick<CallOutcome, 'usage' | 'cost' | 'leased'>;

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

export class Client implements SpendguardClient {
  config: ClientConfig;
  readonly log: Logger;
  /** Retry tunables; tests shorten them. */
  retryPolicy: RetryPolicy = DEFAULT_RETRY_POLICY;
  #buffer: RingBuffer<ClientEvent>;
  readonly #spend = new SpendCounter();
  readonly #notices = new Set<string>();
  /** The server's flags and the budget lease. */
  readonly #link: ServerLink;
  readonly #pending = new Set<Promise<void>>();
  #timer: { cancel: () => void; due: number } | null = null;
  #flushChain: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** No background flush before this time (epoch ms), after a failed delivery. */
  #backoffUntil = 0;
  #warnedNoTarget = false;
  #counters = { calls: 0, blocked: 0, sent: 0, discarded: 0, internalErrors: 0 };
  /** Events of the batch a flush is sending now (out of the buffer until it is answered). */
  #sending = 0;

  /** The fetch the SDK's own requests use: the original, never an instrumented one. */
  readonly #baseFetch: () => FetchLike | undefined;

  constructor(config: ClientConfig, baseFetch: () => FetchLike | undefined) {
    this.config = config;
    this.#baseFetch = baseFetch;
    this.log = createLogger(() => this.config.debug);
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- live getters for the link
    const self = this;
    this.#buffer = new RingBuffer(config.bufferCapacity);
    this.#link = new ServerLink({
      get config() {
        return self.config;
      },
      log: this.log,
      get closed() {
        return self.#closed;
      },
      baseFetch: () => this.#baseFetch(),
      track: (task) => this.track(task),
      internalError: (err) => this.internalError(err),
      settle: (ms) => this.settle(ms),
      flushDueBy: (at) => this.#buffer.size > 0 && this.#timer !== null && this.#timer.due <= at,
    });
  }

  /** Applies new settings (a second `initServiceAuto`, a `wrapFetch` with the same key). */
  configure(config: ClientConfig): void {
    const old = this.config;
    this.config = config;
    if (config.bufferCapacity !== old.bufferCapacity) {
      const next = new RingBuffer<ClientEvent>(config.bufferCapacity);
      const items = this.#buffer.take(this.#buffer.size);
      next.restoreDropped(this.#buffer.takeDropped());
      for (const item of items) next.push(item);
      this.#buffer = next;
    }
    if (config.apiKey !== old.apiKey || config.serverBudget !== old.serverBudget) this.#link.reset();
  }

  /**
   * Takes the first lease (its answer carries the flags too) or reads the organization's state, so that
   * the first calls already see a SUSPENDED flag or an exhausted budget.
   */
  warmUp(): void {
    this.#link.warmUp();
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /**
   * The hot path. Returns undefined to let the call through untracked, a Response to answer it
   * locally (the synthetic 429), or the handle of a tracked call; a promise of one of these when the
   * call's worst case must wait for a budget lease answer (a hard cap applies, or is not known yet).
   */
  begin(
    args: readonly unknown[],
    binding: Binding,
  ): Call | Response | undefined | Promise<Call | Response | undefined> {
    if (this.#closed) return undefined;
    const target = inspectRequest(args);
    if (target === undefined || target.method !== 'POST' || target.aborted) return undefined;
    const provider: ProviderEntry | undefined =
      binding.provider !== undefined ? getProvider(binding.provider) : detectProvider(target.url);
    if (provider === undefined) return undefined;
    return this.beginCall(provider, target.url, target.path, target.body, binding);
  }

  /**
   * The hot path for a call already known to be a provider call (the AWS SDK middleware, which sees no
   * fetch): the same server flags, lease and budget checks as {@link begin}.
   */
  beginCall(
    provider: ProviderEntry,
    url: string,
    path: string,
    body: string | Uint8Array | undefined,
    binding: Binding,
  ): Call | Response | undefined | Promise<Call | Response | undefined> {
    if (this.#closed) return undefined;
    this.#counters.calls++;
    const now = Date.now();
    const facts: CallFacts = {
      provider,
      url,
      path,
      body,
      labels: binding.labels,
      startedAt: now,
      parsed: UNPARSED,
    };
    // A dialect parser that loads on demand (the ESM build) loads while the call is made. A `block`
    // budget counts each cost before the next call begins, so there the first call waits for it.
    const parser = usageParserLoading(provider.usage);
    if (parser !== null && this.config.budget?.action === 'block')
      return parser.then(() => this.#admit(facts, Date.now()));
    return this.#admit(facts, now);
  }

  /** The call's limits (server flags, local budget), then its lease: a call handle, or a refusal. */
  #admit(facts: CallFacts, now: number): Call | Response | undefined | Promise<Call | Response | undefined> {
    const blocked = this.#checkLimits(facts, now);
    if (blocked !== undefined) return blocked;
    const lease = this.#link.lease;
    if (lease === null) return new Call(this, facts, monotonicNow(), null, 0);
    const readers = admissionReaders();
    if (readers !== undefined) return this.#reserve(facts, lease, readers, now);
    return this.#withoutWorstCase(facts, lease, now) ?? this.#reserveOnceLoaded(facts, lease);
  }

  /**
   * The lease's decision when it needs no worst case: no hard cap (uncapped), none known because the
   * backend cannot be reached (fail open, counted), or the key refused (fail closed). Undefined when a
   * cap applies or may apply: the call's worst case decides.
   */
  #withoutWorstCase(facts: CallFacts, lease: BudgetLease, now: number): Call | Response | undefined {
    if (lease.mode === 'uncapped') return new Call(this, facts, monotonicNow(), null, 0);
    if (lease.mode === 'none' || lease.mode === 'capped' || lease.mode === 'exhausted') return undefined;
    const decision = lease.admit(0, now);
    return decision.kind === 'wait' ? undefined : this.#admitted(facts, lease, decision, now);
  }

  /**
   * A hard cap may apply, and the admission readers are not loaded yet. While the first lease answer
   * is on its way, it is awaited first: an organization without a hard cap never loads them.
   */
  async #reserveOnceLoaded(facts: CallFacts, lease: BudgetLease): Promise<Call | Response | undefined> {
    if (lease.mode === 'none') {
      await this.#link.leaseAnswered();
      const decided =
        this.#checkLimits(facts, Date.now()) ?? this.#withoutWorstCase(facts, lease, Date.now());
      if (decided !== undefined) return decided;
    }
    try {
      const readers = await settleWithin(loadAdmissionReaders(), MAX_LOAD_WAIT_MS, () =>
        Promise.reject(loadTimeout()),
      );
      return await this.#reserve(facts, lease, readers, Date.now());
    } catch (err) {
      // Without its worst case a call cannot be held under the cap: refused, retryable (design decision 6).
      this.#counters.internalErrors++;
      this.log.warn(
        'the admission readers could not be loaded: calls under the hard cap are refused',
        describe(err),
      );
      this.#counters.blocked++;
      return blockedResponse({ kind: 'lease', retryAfterSeconds: null }, Date.now());
    }
  }

  /** The call's worst case reserved against the lease's slice before it is made (a hard cap may apply). */
  #reserve(
    facts: CallFacts,
    lease: BudgetLease,
    readers: AdmissionReaders,
    now: number,
  ): Call | Response | Promise<Call | Response | undefined> {
    const worst = worstCaseOf(facts, lease.available(), lease.allowDeferredBilling, readers);
    if (worst.kind === 'deferred') {
      // Billed after it returns: no reservation holds it under the cap, so it is refused as at the relay.
      this.#counters.blocked++;
      this.log.debug(`call to ${facts.provider.id} blocked: ${worst.billing} bills after the call`);
      return blockedResponse({ kind: 'deferred', billing: worst.billing }, now);
    }
    const cost = worst.nanos;
    const decision = lease.admit(cost, now);
    if (decision.kind !== 'wait') return this.#admitted(facts, lease, decision, now);
    return this.#link.waitForLease(cost).then(
      (d) => this.#checkLimits(facts, Date.now(), lease, d) ?? this.#admitted(facts, lease, d, Date.now()),
      () => undefined,
    );
  }

  /** The call handle for an admitted call, or the synthetic 429 for a refused one. */
  #admitted(facts: CallFacts, lease: BudgetLease, d: LeaseDecision, now: number): Call | Response {
    if (d.kind === 'admitted') return new Call(this, facts, monotonicNow(), lease, d.reservedNanos);
    this.#counters.blocked++;
    this.log.debug(`call to ${facts.provider.id} blocked: budget lease ${d.kind}`);
    return blockedResponse(
      d.kind === 'wait'
        ? { kind: 'lease', retryAfterSeconds: null }
        : d.kind === 'refused'
          ? { kind: 'lease_refused', retryAfterSeconds: d.retryAfterSeconds }
          : { kind: 'lease', retryAfterSeconds: d.retryAfterSeconds, retryable: d.retryable },
      now,
    );
  }

  /**
   * Server flags first, then the local budget: the refusal (counted), if any. Memory reads only. Asked
   * again after a wait for a lease answer, which brings the key's flags too: a kill in it stops the
   * call that waited, whose reservation, if any, is given back.
   */
  #checkLimits(facts: CallFacts, now: number, lease?: BudgetLease, d?: LeaseDecision): Response | undefined {
    const refused = this.#refusal(facts, now);
    if (refused !== undefined) {
      this.#counters.blocked++;
      if (d?.kind === 'admitted') lease!.settle(d.reservedNanos, 0);
    }
    return refused;
  }

  #refusal(facts: CallFacts, now: number): Response | undefined {
    const refused = this.#link.check(facts.labels.sessionId, now);
    if (refused !== undefined) return refused;
    const budget = this.config.budget;
    if (budget === null) return undefined;
    const breach = this.#spend.breach(budget, now);
    if (breach === null) return undefined;
    if (budget.action === 'block') {
      this.log.debug(`call to ${facts.provider.id} blocked: ${breach.period} budget reached`);
      return blockedResponse({ kind: 'budget', breach }, now);
    }
    this.#notifyBreach(facts, breach, budget.action, now);
    return undefined;
  }

  /** warn: one `budget_warning` event per period and limit; log: one debug line. */
  #notifyBreach(facts: CallFacts, breach: BudgetBreach, action: 'warn' | 'log', now: number): void {
    const key = `${action}:${breach.period}:${breach.periodStartMs}`;
    if (this.#notices.has(key)) return;
    this.#notices.add(key);
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
    this.#push(buildBudgetWarningEvent(facts.provider.id, model, facts.labels, now));
  }

  /**
   * True when a cost must be counted the moment its response completes, before the application can
   * start its next call: a `block` budget or a capped lease (otherwise pricing waits for a later task).
   */
  get exactCost(): boolean {
    return this.config.budget?.action === 'block' || this.#link.lease?.mode === 'capped';
  }

  /**
   * Prices a finished call and counts its cost (local budget, lease: the reservation it held, if any, is
   * replaced by the cost). Never throws.
   */
  account(
    facts: CallFacts,
    statusCode: number,
    result: UsageResult | null,
    lease: BudgetLease | null,
    reservedNanos: number,
  ): Priced | null {
    try {
      const usage = usageToRecord(facts, result, statusCode);
      const cost = costOf(facts, usage);
      this.#spend.add(cost.costNanos, Date.now());
      const leased = (lease ?? this.#link.lease)?.settle(reservedNanos, cost.costNanos) === true;
      if (result !== null && !result.ok && statusCode >= 200 && statusCode < 300) {
        this.log.debug(`usage not read from ${facts.provider.id} response: ${result.reason}`);
      }
      return { usage, cost, leased };
    } catch (err) {
      // The reservation ends whatever happened: settled at its worst case (the cost is unknown).
      lease?.settle(reservedNanos, reservedNanos);
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
    this.#link.sync(Date.now());
    const fingerprint = fingerprintOf(facts);
    const build = (fp: string | undefined) =>
      this.#push(buildCallEvent(facts, { ...priced, statusCode, latencyMs, stream, fingerprint: fp }));
    // WebCrypto runtimes hash in a promise: the event waits for its fingerprint, and flush() for both.
    if (typeof fingerprint === 'object') this.track(fingerprint.then(build));
    else build(fingerprint);
  }

  /** Work queued for the next {@link later} task. */
  #laterQueue: Array<() => void> = [];
  /** Resolved when the queued work has run ({@link settle} waits on it; no promise per call otherwise). */
  #laterDone: Promise<void> | null = null;
  #resolveLater: (() => void) | null = null;

  /**
   * Runs `work` in a task of its own (one task for everything queued meanwhile), never inside the
   * application's own chain of promise callbacks; `flush()` waits for it.
   */
  later(work: () => void): void {
    this.#laterQueue.push(work);
    if (this.#laterQueue.length === 1) nextTask(() => this.#runLater());
  }

  /** Runs the queued {@link later} work now. */
  #runLater(): void {
    const queue = this.#laterQueue;
    this.#laterQueue = [];
    for (const job of queue) {
      try {
        job();
      } catch (err) {
        this.internalError(err);
      }
    }
    this.#resolveLater?.();
    this.#laterDone = this.#resolveLater = null;
  }

  /** A promise of the queued {@link later} work's end. */
  #laterSettled(): Promise<void> {
    if (this.#laterQueue.length === 0) return Promise.resolve();
    return (this.#laterDone ??= new Promise<void>((resolve) => (this.#resolveLater = resolve)));
  }

  /** Keeps a background task so that `flush()` can wait for it. */
  track(task: Promise<unknown>): void {
    const p: Promise<void> = task.then(
      () => undefined,
      (err: unknown) => this.internalError(err),
    );
    this.#pending.add(p);
    void p.finally(() => this.#pending.delete(p));
  }

  /** A dialect parser could not be loaded: its calls' usage is estimated (warned once). */
  parserFailed(providerId: string, err: unknown): void {
    if (this.#notices.has('parser')) return;
    this.#notices.add('parser');
    this.log.warn(
      `the usage parser for ${providerId} could not be loaded: the usage of such calls is estimated`,
      describe(err),
    );
  }

  internalError(err: unknown): void {
    this.#counters.internalErrors++;
    this.log.debug('internal error (swallowed)', describe(err));
  }

  #push(event: ClientEvent): void {
    if (this.#closed) return;
    this.#buffer.push(event);
    this.#schedule();
  }

  /**
   * Arms the flush timer: at once when a batch is full, else after the interval; after a failed
   * delivery not before the backoff ends (a down backend is not hammered).
   */
  #schedule(): void {
    if (this.#closed || this.#buffer.size === 0) return;
    const now = Date.now();
    const delay = this.#buffer.size >= this.config.maxBatchSize ? 0 : this.config.flushIntervalMs;
    const due = Math.max(now + delay, this.#backoffUntil);
    if (this.#timer !== null && this.#timer.due <= due) return;
    this.#timer?.cancel();
    const cancel = setUnrefTimeout(() => {
      this.#timer = null;
      void this.#enqueueFlush(undefined, 'background');
    }, due - now);
    this.#timer = { cancel, due };
  }

  #ingestTarget(): { url: string; apiKey: string } | null {
    const { endpoint, apiKey } = this.config;
    return endpoint === null || apiKey === null ? null : { url: `${endpoint}/v1/events`, apiKey };
  }

  /**
   * A flush the application awaits: a background flush waiting to retry gives way at once, and this
   * one's own waits keep the process alive until its deadline (the caller wants it done).
   */
  flush(options?: FlushOptions): Promise<FlushResult> {
    this.#explicitFlushes++;
    this.#wake?.();
    return this.#enqueueFlush(options, 'explicit').finally(() => this.#explicitFlushes--);
  }

  /**
   * The process is ending (Node.js `beforeExit`, Deno `beforeunload`): the budget slice it holds goes
   * back with its final report, as at `shutdown()`. Kept, it would count against the cap until it lapses
   * (or, once settled as spent, until the period ends): a CLI run many times a day would use up the cap
   * without spending it. Once released, nothing is held, so the next `beforeExit` finds nothing to do.
   */
  releaseOnExit(): void {
    if (!this.#closed && this.#link.lease?.holding === true) this.track(this.#link.release());
  }

  /** The runtime is ending: one more try, with `keepalive` requests in browsers; never keeps a process alive. */
  flushOnExit(keepalive: boolean): Promise<FlushResult> {
    return this.#enqueueFlush(undefined, keepalive ? 'page' : 'background');
  }

  /** Cuts short the retry wait of a running flush. */
  #wake: (() => void) | null = null;
  /** Explicit flushes queued or running: background flushes do not wait for retries meanwhile. */
  #explicitFlushes = 0;

  #wait(ms: number, keepAlive: boolean): Promise<boolean> {
    if (!keepAlive && this.#explicitFlushes > 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = null;
        resolve(true);
      }, ms);
      if (!keepAlive) unrefTimer(timer);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = null;
        resolve(false);
      };
    });
  }

  #enqueueFlush(options: FlushOptions | undefined, mode: FlushMode): Promise<FlushResult> {
    const timeout = options?.timeoutMs;
    // Counted from the request, not from when the flushes queued before it are done.
    const deadline =
      Date.now() + (typeof timeout === 'number' && timeout >= 0 ? timeout : DEFAULT_FLUSH_TIMEOUT_MS);
    const run = this.#flushChain.then(() => this.#drain(deadline, mode));
    this.#flushChain = run.catch(() => undefined);
    const notSent = (): FlushResult => ({
      sent: 0,
      pending: this.#buffer.size + this.#sending,
      discarded: 0,
    });
    const result = run.catch((err: unknown) => {
      this.internalError(err);
      return notSent();
    });
    if (mode === 'background') return result;
    // The caller is owed an answer by its deadline even while an earlier flush's request still hangs (a
    // Lambda invocation must end in time): what was not sent by then stays buffered.
    return settleWithin(result, deadline - Date.now(), notSent);
  }

  async #drain(deadline: number, mode: FlushMode): Promise<FlushResult> {
    // A page going away may never run another timer: send what is ready, now.
    if (mode === 'page') this.#runLater();
    else await this.settle(deadline - Date.now());
    let sent = 0;
    let discarded = 0;
    const target = this.#ingestTarget();
    if (target === null) {
      discarded = this.#buffer.take(this.#buffer.size).length;
      this.#buffer.takeDropped();
      this.#counters.discarded += discarded;
      if (discarded > 0 && !this.#warnedNoTarget) {
        this.#warnedNoTarget = true;
        this.log.warn(
          `${this.config.apiKey === null ? 'no apiKey' : 'no endpoint'} configured: telemetry is not sent (events discarded)`,
        );
      }
      return { sent, pending: 0, discarded };
    }
    const fetchFn = this.#baseFetch();
    if (fetchFn === undefined) return { sent, pending: this.#buffer.size, discarded };
    while (this.#buffer.size > 0) {
      // Serialize in a task of its own, not inside whatever promise chain resumed this flush.
      if (mode !== 'page') await new Promise<void>((resolve) => nextTask(resolve));
      if (this.#buffer.size === 0) break;
      const batch = this.#buffer.take(this.config.maxBatchSize);
      const dropped = this.#buffer.takeDropped();
      const body = JSON.stringify(
        dropped > 0 ? { events: batch, droppedEvents: dropped } : { events: batch },
      );
      this.#sending = batch.length;
      const outcome = await postBatch({
        fetch: fetchFn,
        url: target.url,
        apiKey: target.apiKey,
        body,
        policy: this.retryPolicy,
        log: this.log,
        deadline,
        keepalive: mode === 'page',
        wait: (ms) => this.#wait(ms, mode === 'explicit'),
      });
      this.#sending = 0;
      if (outcome.kind === 'sent') {
        this.#link.flushed(outcome.answer ?? null, Date.now());
        this.#backoffUntil = 0;
        sent += batch.length;
        this.#counters.sent += batch.length;
        this.log.debug(
          `flushed ${batch.length} event(s)${dropped > 0 ? `, ${dropped} dropped reported` : ''}`,
        );
      } else if (outcome.kind === 'rejected') {
        discarded += batch.length;
        this.#counters.discarded += batch.length;
      } else {
        this.#buffer.requeue(batch);
        this.#buffer.restoreDropped(dropped);
        this.#link.flushed(undefined, Date.now());
        this.#backoffUntil = Date.now() + Math.max(this.config.flushIntervalMs, outcome.retryAfterMs ?? 0);
        this.log.debug(`flush postponed: ${outcome.reason}`);
        break;
      }
    }
    this.#schedule();
    return { sent, pending: this.#buffer.size, discarded };
  }

  /** Waits (at most `timeoutMs`) for the events of finished calls to be built. */
  async settle(timeoutMs = DEFAULT_FLUSH_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // Queued event work, and the requests it may start (a lease renewal): wait until none is left.
    while ((this.#pending.size > 0 || this.#laterQueue.length > 0) && Date.now() < deadline) {
      await settleWithin(
        Promise.allSettled([...this.#pending, this.#laterSettled()]),
        deadline - Date.now(),
        () => undefined,
        true,
      );
    }
  }

  async shutdown(options?: FlushOptions): Promise<FlushResult> {
    const timeout = options?.timeoutMs;
    const [result] = await Promise.all([
      this.flush(options),
      this.#link.release(
        typeof timeout === 'number' && timeout >= 0 ? Math.min(timeout, API_TIMEOUT_MS) : API_TIMEOUT_MS,
      ),
    ]);
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = null;
    this.#link.stop();
    return result;
  }

  stats(): ClientStats {
    const now = Date.now();
    return {
      calls: this.#counters.calls,
      blocked: this.#counters.blocked,
      buffered: this.#buffer.size,
      droppedUnreported: this.#buffer.droppedUnreported,
      droppedTotal: this.#buffer.droppedTotal,
      sent: this.#counters.sent,
      discarded: this.#counters.discarded,
      internalErrors: this.#counters.internalErrors,
      ...this.#link.stats(now),
    };
  }

  /**
   * Reports the spend of the calls made so far and waits for lease requests in flight (end of a Lambda
   * invocation: the slice is kept for the next one, and renewed or released by its expiry). Never rejects.
   */
  reportLease(timeoutMs?: number): Promise<void> {
    return this.#link.report(timeoutMs).catch((err: unknown) => this.internalError(err));
  }

  /** Spend counted by the local budget (nano-USD), for tests. */
  spentNanos(nowMs = Date.now()): { dayNanos: number; monthNanos: number } {
    return this.#spend.spent(nowMs);
  }

  /** Reads `GET /v1/budget` now and waits for the answer (tests). */
  async refreshServerStatus(): Promise<void> {
    this.#link.pollStatus();
    await this.settle();
  }
}

/** One tracked provider call, from the request to its event. */
export class Call {
  #done = false;

  readonly #client: Client;
  readonly #facts: CallFacts;
  readonly #startMono: number;
  /** The lease the call reserved on (null: no lease), and its reservation (0: none). */
  readonly #lease: BudgetLease | null;
  readonly #reservedNanos: number;

  constructor(
    client: Client,
    facts: CallFacts,
    startMono: number,
    lease: BudgetLease | null,
    reservedNanos: number,
  ) {
    this.#client = client;
    this.#facts = facts;
    this.#startMono = startMono;
    this.#lease = lease;
    this.#reservedNanos = reservedNanos;
  }

  /** Called with the provider's response; returns what the application gets. Never throws. */
  onResponse(response: Response): Response {
    try {
      if (!(response instanceof Response)) return response;
      const status = response.status;
      const kind = bodyKindOf(response);
      const ctx = usageContextOf(this.#facts);
      if (kind === 'stream') {
        const tapped = tapStream(response, this.#facts.provider, ctx, (outcome) =>
          this.#finishParsed(status, outcome.usage, true),
        );
        if (tapped === response) this.#finish(status, null, true);
        return tapped;
      }
      if (kind === 'json')
        return observeJson(response, this.#facts.provider, ctx, (usage) =>
          this.#finishParsed(status, usage, false),
        );
      this.#finish(status, null, false);
      return response;
    } catch (err) {
      this.#client.internalError(err);
      return response;
    }
  }

  /**
   * The call's usage, read by the caller itself (the AWS SDK middleware reads deserialized output, or
   * the events of a stream as the application consumes them). Never throws.
   */
  onUsage(status: number, usage: UsageResult | (() => UsageResult) | null, stream: boolean): void {
    try {
      // A function may read with the provider's parser (Converse, InvokeModel bodies): it may be loading.
      if (typeof usage === 'function') this.#finishParsed(status, usage, stream);
      else this.#finish(status, usage, stream);
    } catch (err) {
      this.#client.internalError(err);
    }
  }

  /** The provider call failed (network error, abort): no response, no event. */
  onFailure(err: unknown): void {
    if (this.#done) return;
    this.#done = true;
    // An application that gave up (abort, timeout) after the request left: the provider has it and bills
    // what it generates, so the cap keeps the worst case (issue 18.8, as the relay does). A network
    // failure got no answer: nothing billed as far as the SDK can tell.
    const name = (err as { name?: unknown } | null)?.name;
    const abandoned = name === 'AbortError' || name === 'TimeoutError';
    this.#lease?.settle(this.#reservedNanos, abandoned ? this.#reservedNanos : 0);
    this.#client.log.debug(`call to ${this.#facts.provider.id} failed before a response`, describe(err));
  }

  /**
   * {@link #finish} for usage read by the provider's parser: when that parser is still loading (on
   * demand), the call is recorded once the load has ended (its reservation, if any, held till then).
   */
  #finishParsed(status: number, usage: () => UsageResult, stream: boolean): void {
    const loading = this.#done ? null : usageParserLoading(this.#facts.provider.usage);
    if (loading === null) return this.#finish(status, usage, stream);
    const latencyMs = monotonicNow() - this.#startMono;
    this.#done = true;
    this.#client.track(
      loading.then((err) => {
        if (err !== undefined) this.#client.parserFailed(this.#facts.provider.id, err);
        this.#record(status, usage, stream, latencyMs);
      }),
    );
  }

  /**
   * Records the call in a later task: pricing, fingerprinting and event building never delay the
   * application, which receives the last bytes (or the response) first.
   */
  #finish(status: number, usage: UsageResult | (() => UsageResult) | null, stream: boolean): void {
    if (this.#done) return;
    this.#done = true;
    this.#record(status, usage, stream, monotonicNow() - this.#startMono);
  }

  #record(
    status: number,
    usage: UsageResult | (() => UsageResult) | null,
    stream: boolean,
    latencyMs: number,
  ): void {
    const client = this.#client;
    const facts = this.#facts;
    const lease = this.#lease;
    const reservedNanos = this.#reservedNanos;
    const price = (): Priced | null =>
      client.account(facts, status, typeof usage === 'function' ? usage() : usage, lease, reservedNanos);
    if (client.exactCost || reservedNanos > 0) {
      // Counted before the application gets the end of the body: its next call sees this cost.
      const priced = price();
      client.later(() => client.emit(facts, status, priced, stream, latencyMs));
    } else client.later(() => client.emit(facts, status, price(), stream, latencyMs));
  }
}
