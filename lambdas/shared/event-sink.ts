import { type KinesisClient, PutRecordsCommand, type PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import type { EventEnvelope } from '../../core/events/telemetry-event';

/** Where accepted telemetry goes: the Kinesis stream in AWS and in the local stack. */
export interface EventSink {
  /** Resolves once every envelope is durably on the stream; rejects with SinkUnavailableError otherwise. */
  put(envelopes: EventEnvelope[]): Promise<void>;
}

/** The stream would not take the records after bounded retries; ingest answers 503 with Retry-After. */
export class SinkUnavailableError extends Error {
  override readonly name = 'SinkUnavailableError';
}

/** Kinesis caps a record at 1 MiB and a PutRecords call at 500 records. */
export const MAX_RECORD_BYTES = 1024 * 1024;
const MAX_RECORDS_PER_CALL = 500;

export interface KinesisEventSinkOptions {
  client: KinesisClient;
  streamName: string;
  /** Attempts per PutRecords batch, first try included. */
  maxAttempts?: number;
  /** Base backoff in ms; doubled per attempt with full jitter. */
  baseDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/**
 * Puts envelopes on Kinesis with partition key = organization id, so all of an organization's
 * events reach one shard in order (design decision 5). An envelope larger than one record is split
 * by events. PutRecords partial failures are retried with backoff; whatever still fails is an error,
 * never a silent drop.
 */
export class KinesisEventSink implements EventSink {
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly opts: KinesisEventSinkOptions) {
    this.maxAttempts = opts.maxAttempts ?? 4;
    this.baseDelayMs = opts.baseDelayMs ?? 25;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = opts.random ?? Math.random;
  }

  async put(envelopes: EventEnvelope[]): Promise<void> {
    const entries = envelopes.flatMap(toRecords);
    for (let i = 0; i < entries.length; i += MAX_RECORDS_PER_CALL) {
      await this.putWithRetry(entries.slice(i, i + MAX_RECORDS_PER_CALL));
    }
  }

  private async putWithRetry(entries: PutRecordsRequestEntry[]): Promise<void> {
    let pending = entries;
    let lastError: unknown;
    for (let attempt = 0; attempt < this.maxAttempts && pending.length > 0; attempt++) {
      if (attempt > 0) await this.sleep(this.random() * this.baseDelayMs * 2 ** attempt);
      try {
        const out = await this.opts.client.send(
          new PutRecordsCommand({ StreamName: this.opts.streamName, Records: pending }),
        );
        if (!out.FailedRecordCount) return;
        // Only the records that failed are sent again (resending the others would duplicate them).
        const results = out.Records ?? [];
        pending = pending.filter((_, idx) => Boolean(results[idx]?.ErrorCode));
        lastError = new Error(results.find((r) => r.ErrorCode)?.ErrorMessage ?? 'PutRecords partial failure');
      } catch (err) {
        lastError = err;
      }
    }
    if (pending.length > 0) {
      throw new SinkUnavailableError('event stream unavailable', { cause: lastError });
    }
  }
}

/** Serializes an envelope into as few records as fit in MAX_RECORD_BYTES (usually one). */
export function toRecords(envelope: EventEnvelope): PutRecordsRequestEntry[] {
  const whole = Buffer.from(JSON.stringify(envelope));
  if (whole.byteLength <= MAX_RECORD_BYTES || envelope.events.length === 1) {
    return [{ PartitionKey: envelope.orgId, Data: whole }];
  }
  const half = Math.ceil(envelope.events.length / 2);
  return [
    ...toRecords({ ...envelope, events: envelope.events.slice(0, half) }),
    ...toRecords({ ...envelope, events: envelope.events.slice(half) }),
  ];
}

/** Counts what the spool had to drop (the relay's metrics fit). */
export interface SpoolMetrics {
  count(name: 'RelayEventFailed', dimensions: { Reason: 'spool_full' }, value?: number): void;
}

/** Options of {@link SpoolingEventSink}. */
export interface SpoolingEventSinkOptions {
  /** Where envelopes go (the Kinesis sink). */
  readonly inner: EventSink;
  /** Most envelopes held while the stream is unavailable; more are dropped and counted. @default 10,000 */
  readonly maxEnvelopes?: number;
  /** First retry delay in ms, doubled after each failed attempt. @default 200 */
  readonly baseDelayMs?: number;
  /** Longest delay between retries, in ms. @default 2,000 */
  readonly maxDelayMs?: number;
  /** Envelopes per retry put. @default 500 */
  readonly batchSize?: number;
  readonly metrics?: SpoolMetrics;
  /** Runs `fn` after `ms` (tests pass a virtual clock). @default setTimeout, unref'd */
  readonly schedule?: (fn: () => Promise<void>, ms: number) => void;
}

/** What the spool holds at most by default: ~10,000 relay events, each a few kB at most (≤ ~40 MB). */
export const DEFAULT_SPOOL_ENVELOPES = 10_000;

/**
 * The relay's sink (issue 15.12): puts go straight to `inner` while it works; when a put fails, the
 * envelopes wait in a bounded in-memory spool and are retried in order, off the call path, with
 * backoff (0.2 s doubling to 2 s), until the stream takes them. While anything is spooled, new
 * envelopes queue behind it (an organization's events keep their order). Past `maxEnvelopes` the
 * newest are dropped and counted (`RelayEventFailed`, Reason `spool_full`); `put` never rejects.
 *
 * Not for ingest: ingest must answer 503 when the stream refuses a batch (the client keeps it and
 * retries), so it uses the Kinesis sink directly. In Lambda the spool drains while the container
 * runs (later invocations); a container recycled with envelopes spooled loses them.
 */
export class SpoolingEventSink implements EventSink {
  private readonly queue: EventEnvelope[] = [];
  private readonly maxEnvelopes: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly batchSize: number;
  private readonly schedule: (fn: () => Promise<void>, ms: number) => void;
  private draining = false;
  private delayMs: number;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly opts: SpoolingEventSinkOptions) {
    this.maxEnvelopes = opts.maxEnvelopes ?? DEFAULT_SPOOL_ENVELOPES;
    this.baseDelayMs = opts.baseDelayMs ?? 200;
    this.maxDelayMs = opts.maxDelayMs ?? 2000;
    this.batchSize = opts.batchSize ?? 500;
    this.delayMs = this.baseDelayMs;
    this.schedule =
      opts.schedule ??
      ((fn, ms) => {
        setTimeout(() => void fn(), ms).unref();
      });
  }

  /** Envelopes waiting for the stream. */
  get spooled(): number {
    return this.queue.length;
  }

  async put(envelopes: EventEnvelope[]): Promise<void> {
    if (envelopes.length === 0) return;
    if (this.queue.length === 0 && !this.draining) {
      try {
        await this.opts.inner.put(envelopes);
        return;
      } catch {
        // the stream is unavailable: spool below
      }
    }
    this.enqueue(envelopes);
  }

  /** Resolves once nothing is spooled (tests, and the local proxy's close). */
  drained(): Promise<void> {
    if (this.queue.length === 0 && !this.draining) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private enqueue(envelopes: EventEnvelope[]): void {
    const room = Math.max(0, this.maxEnvelopes - this.queue.length);
    this.queue.push(...envelopes.slice(0, room));
    const dropped = envelopes.length - Math.min(room, envelopes.length);
    if (dropped > 0) this.opts.metrics?.count('RelayEventFailed', { Reason: 'spool_full' }, dropped);
    if (!this.draining && this.queue.length > 0) {
      this.draining = true;
      this.schedule(() => this.drain(), this.delayMs);
    }
  }

  private async drain(): Promise<void> {
    const batch = this.queue.slice(0, this.batchSize);
    let delivered = false;
    try {
      // A batch that failed part-way is sent again whole: at least once; consumers dedupe by eventId.
      await this.opts.inner.put(batch);
      this.queue.splice(0, batch.length);
      this.delayMs = this.baseDelayMs;
      delivered = true;
    } catch {
      this.delayMs = Math.min(this.delayMs * 2, this.maxDelayMs);
    }
    if (this.queue.length > 0) {
      this.schedule(() => this.drain(), delivered ? 0 : this.delayMs);
      return;
    }
    this.draining = false;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
