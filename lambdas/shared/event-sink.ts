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
