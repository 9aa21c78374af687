/**
 * The stand-in for a Lambda event source mapping on a Kinesis stream: reads every shard with
 * GetRecords, hands the same handler the same `KinesisStreamEvent` Lambda would, and honours
 * `batchItemFailures` as Lambda does with `ReportBatchItemFailures`.
 *
 * Semantics (each mirrors the event source mapping):
 * - Shards are read in parallel; within a shard one batch at a time, strictly in sequence order.
 * - A batch succeeds when the handler resolves with nothing, `{ batchItemFailures: [] }` or no list.
 * - `batchItemFailures` checkpoints up to (not including) the lowest reported sequence number and
 *   retries from it; an empty, unknown or missing `itemIdentifier` fails the whole batch, as does a
 *   handler that throws.
 * - After `maxRetryAttempts` retries of a batch starting at the same record, that batch (from the
 *   failed record on) goes to `onDeadLetter` (the on-failure destination) and the shard moves past it.
 * - Checkpoints (last completed sequence number per shard) resume a restarted poller (AFTER_SEQUENCE_NUMBER),
 *   TRIM_HORIZON the first time. Delivery is at least once: a record whose checkpoint was not yet
 *   written when the process died is delivered again.
 */
import {
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type GetShardIteratorCommandInput,
  type KinesisClient,
  ListShardsCommand,
  type ListShardsCommandInput,
  DescribeStreamSummaryCommand,
  type _Record,
} from '@aws-sdk/client-kinesis';
import type {
  Context,
  KinesisStreamBatchResponse,
  KinesisStreamEvent,
  KinesisStreamRecord,
} from 'aws-lambda';

import { type CheckpointStore, createMemoryCheckpointStore } from './checkpoint-store';
import { LOCAL_REGION } from './clients';
import { BatchItemFailureError, InvalidOptionsError, PollerStoppedError } from './errors';
import { createLambdaContext, LOCAL_ACCOUNT_ID } from './lambda-context';
import { createConsoleLogger, type RuntimeLogger } from './logger';

/**
 * A Kinesis-triggered Lambda handler. A Middy-wrapped handler fits as it is.
 * Returning `void` means the whole batch succeeded.
 */
export type KinesisBatchHandler = (
  event: KinesisStreamEvent,
  context: Context,
) => Promise<KinesisStreamBatchResponse | void> | KinesisStreamBatchResponse | void;

/**
 * The on-failure destination: receives the records given up on and the last error. Throwing makes
 * the poller retry the dead-lettering (the shard does not move on until it succeeds).
 */
export type DeadLetterHandler = (
  records: readonly KinesisStreamRecord[],
  error: Error,
) => Promise<void> | void;

/** Options of {@link startKinesisPoller}. */
export interface KinesisPollerOptions {
  /** A client that reaches kinesalite (see `createLocalKinesisClient`). */
  readonly kinesis: KinesisClient;
  readonly streamName: string;
  readonly handler: KinesisBatchHandler;
  /**
   * Name in the handler's Lambda context and in log lines.
   * @default `${streamName}-consumer`
   */
  readonly functionName?: string;
  /**
   * Most records per invocation (Lambda's BatchSize).
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * Retries of a failing batch before it is dead-lettered (Lambda's MaximumRetryAttempts; AWS's
   * default of "until the record expires" would stall a laptop for a day).
   * @default 3
   */
  readonly maxRetryAttempts?: number;
  /** @default logs the records' sequence numbers at error level and moves on */
  readonly onDeadLetter?: DeadLetterHandler;
  /**
   * Where checkpoints live. Give each poller its own store (one file per consumer).
   * @default in memory (every start replays the stream from TRIM_HORIZON)
   */
  readonly checkpoints?: CheckpointStore;
  /**
   * First wait after an empty GetRecords; doubles per empty poll up to `maxIdlePollMs`.
   * @default 50
   */
  readonly idlePollMs?: number;
  /** @default 200 */
  readonly maxIdlePollMs?: number;
  /**
   * Wait before retrying a failed batch.
   * @default 100
   */
  readonly retryDelayMs?: number;
  /** @default console logger */
  readonly logger?: RuntimeLogger;
}

/** A running poller. */
export interface KinesisPoller {
  /** The shards being read, in ListShards order. */
  readonly shardIds: readonly string[];
  /**
   * Resolves once every shard has been processed up to the stream's tip as it was when `drain()` was
   * called: every record put before the call has been handled (or dead-lettered) and checkpointed.
   * Rejects with {@link PollerStoppedError} if `stop()` comes first.
   */
  drain(): Promise<void>;
  /**
   * Stops polling. Resolves after each shard's in-flight batch has finished and been checkpointed;
   * records fetched but not yet handed over are left for the next start. Idempotent.
   */
  stop(): Promise<void>;
}

/** Longest back-off after unexpected errors (kinesalite unreachable, checkpoint write failed). */
const MAX_ERROR_BACKOFF_MS = 5000;

interface ResolvedOptions {
  readonly kinesis: KinesisClient;
  readonly streamName: string;
  readonly streamArn: string;
  readonly handler: KinesisBatchHandler;
  readonly functionName: string;
  readonly batchSize: number;
  readonly maxRetryAttempts: number;
  readonly onDeadLetter: DeadLetterHandler;
  readonly checkpoints: CheckpointStore;
  readonly idlePollMs: number;
  readonly maxIdlePollMs: number;
  readonly retryDelayMs: number;
  readonly logger: RuntimeLogger;
  readonly isStopping: () => boolean;
}

/**
 * Discovers the stream's shards and starts one reader per shard.
 *
 * @example
 * const poller = await startKinesisPoller({
 *   kinesis: clients.kinesis,
 *   streamName: LOCAL_RESOURCE_NAMES.eventsStream,
 *   functionName: 'spendguard-pricing',
 *   handler: pricingHandler,
 *   checkpoints: createFileCheckpointStore('.spendguard/checkpoints/spendguard-events.pricing.json'),
 * });
 * // on Ctrl-C: await poller.drain(); await poller.stop();
 */
export async function startKinesisPoller(options: KinesisPollerOptions): Promise<KinesisPoller> {
  const batchSize = options.batchSize ?? 100;
  const maxRetryAttempts = options.maxRetryAttempts ?? 3;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
    throw new InvalidOptionsError(`batchSize must be an integer from 1 to 10000, got ${batchSize}`);
  }
  if (!Number.isInteger(maxRetryAttempts) || maxRetryAttempts < 0) {
    throw new InvalidOptionsError(`maxRetryAttempts must be a non-negative integer, got ${maxRetryAttempts}`);
  }
  const logger = options.logger ?? createConsoleLogger('kinesis-poller');
  const functionName = options.functionName ?? `${options.streamName}-consumer`;

  const summary = await options.kinesis.send(
    new DescribeStreamSummaryCommand({ StreamName: options.streamName }),
  );
  const streamArn = summary.StreamDescriptionSummary?.StreamARN ?? '';
  const shardIds = await listShardIds(options.kinesis, options.streamName);

  let stopping = false;
  const resolved: ResolvedOptions = {
    kinesis: options.kinesis,
    streamName: options.streamName,
    streamArn,
    handler: options.handler,
    functionName,
    batchSize,
    maxRetryAttempts,
    onDeadLetter:
      options.onDeadLetter ??
      ((records, error) =>
        logger.error('records dead-lettered', {
          functionName,
          error: error.message,
          sequenceNumbers: records.map((record) => record.kinesis.sequenceNumber),
        })),
    checkpoints: options.checkpoints ?? createMemoryCheckpointStore(),
    idlePollMs: options.idlePollMs ?? 50,
    maxIdlePollMs: options.maxIdlePollMs ?? 200,
    retryDelayMs: options.retryDelayMs ?? 100,
    logger,
    isStopping: () => stopping,
  };

  const workers = await Promise.all(
    shardIds.map(
      async (shardId) => new ShardReader(resolved, shardId, await resolved.checkpoints.get(shardId)),
    ),
  );
  for (const worker of workers) worker.start();

  let stopped: Promise<void> | undefined;
  return {
    shardIds,
    drain: async () => {
      if (stopping) throw new PollerStoppedError();
      await Promise.all(workers.map((worker) => worker.waitForTip()));
    },
    stop: () => {
      stopping = true;
      stopped ??= Promise.all(workers.map((worker) => worker.stop())).then(() => undefined);
      return stopped;
    },
  };
}

async function listShardIds(kinesis: KinesisClient, streamName: string): Promise<string[]> {
  const shardIds: string[] = [];
  let nextToken: string | undefined;
  do {
    // ListShards takes either the stream name or a continuation token, never both.
    const input: ListShardsCommandInput =
      nextToken === undefined ? { StreamName: streamName } : { NextToken: nextToken };
    const page = await kinesis.send(new ListShardsCommand(input));
    for (const shard of page.Shards ?? []) {
      if (shard.ShardId !== undefined) shardIds.push(shard.ShardId);
    }
    nextToken = page.NextToken;
  } while (nextToken !== undefined);
  return shardIds;
}

/** Outcome of one handler invocation: everything done, or the index of the first record to retry. */
type BatchOutcome =
  { readonly ok: true } | { readonly ok: false; readonly failedIndex: number; readonly error: Error };

interface TipWaiter {
  /** Satisfied by an empty GetRecords that started after this many polls. */
  readonly afterPoll: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** Reads one shard, one batch at a time. */
class ShardReader {
  private iterator: string | undefined;
  private failure: { readonly startSequenceNumber: string; readonly attempts: number } | undefined;
  private pollsStarted = 0;
  private idleMs: number;
  private errorBackoffMs: number;
  /** The shard is closed (resharded) and read to its end: nothing more will come. */
  private exhausted = false;
  private waiters: TipWaiter[] = [];
  private interruptSleep: ((byDrain: boolean) => void) | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: ResolvedOptions,
    private readonly shardId: string,
    private checkpoint: string | undefined,
  ) {
    this.idleMs = options.idlePollMs;
    this.errorBackoffMs = options.retryDelayMs;
  }

  start(): void {
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.interruptSleep?.(false);
    await this.running;
  }

  waitForTip(): Promise<void> {
    if (this.exhausted) return Promise.resolve();
    if (this.options.isStopping()) return Promise.reject(new PollerStoppedError());
    return new Promise((resolve, reject) => {
      this.waiters.push({ afterPoll: this.pollsStarted, resolve, reject });
      // Cut an idle wait short so drain() is not slowed down by the back-off.
      this.interruptSleep?.(true);
    });
  }

  private async run(): Promise<void> {
    while (!this.options.isStopping() && !this.exhausted) {
      try {
        await this.step();
        this.errorBackoffMs = this.options.retryDelayMs;
      } catch (error) {
        // Not the handler's failure (that is handled in step): Kinesis unreachable, a checkpoint that
        // could not be written… Log, back off, and start again from the checkpoint.
        this.options.logger.warn('kinesis poller: shard read failed, retrying', {
          functionName: this.options.functionName,
          shardId: this.shardId,
          error: describeError(error),
        });
        this.iterator = undefined;
        await this.sleep(this.errorBackoffMs, false);
        this.errorBackoffMs = Math.min(this.errorBackoffMs * 2, MAX_ERROR_BACKOFF_MS);
      }
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) {
      if (this.exhausted) waiter.resolve();
      else waiter.reject(new PollerStoppedError());
    }
  }

  /** One GetRecords and, if it returned records, one invocation. */
  private async step(): Promise<void> {
    this.iterator ??= await this.getIterator();
    const poll = ++this.pollsStarted;
    let response: GetRecordsCommandOutput;
    try {
      response = await this.options.kinesis.send(
        new GetRecordsCommand({ ShardIterator: this.iterator, Limit: this.options.batchSize }),
      );
    } catch (error) {
      // Iterators expire after five minutes (a long pause in a debugger): start again from the checkpoint.
      if (errorName(error) === 'ExpiredIteratorException') {
        this.iterator = undefined;
        return;
      }
      throw error;
    }
    // Records fetched after stop() are not handed over; they are not checkpointed, so the next start gets them.
    if (this.options.isStopping()) return;

    const records = response.Records ?? [];
    if (records.length === 0) {
      if (response.NextShardIterator === undefined) {
        this.exhausted = true;
        return;
      }
      // Keep the current iterator rather than NextShardIterator: after an empty read kinesalite moves
      // the next iterator to "now", which could skip a record whose sequence number was assigned just
      // before but written just after this read. Re-reading from the same position is always safe.
      this.resolveWaiters(poll);
      await this.sleep(this.idleMs, true);
      this.idleMs = Math.min(this.idleMs * 2, this.options.maxIdlePollMs);
      return;
    }

    this.idleMs = this.options.idlePollMs;
    const event = this.toEvent(records);
    const outcome = await this.invoke(event);
    if (outcome.ok) {
      await this.commit(sequenceNumberOf(records[records.length - 1]));
      this.failure = undefined;
      this.iterator = response.NextShardIterator;
      return; // poll again at once: there may be more behind a full batch
    }
    await this.handleFailure(event.Records, outcome.failedIndex, outcome.error);
  }

  private async handleFailure(
    records: KinesisStreamRecord[],
    failedIndex: number,
    error: Error,
  ): Promise<void> {
    // What precedes the lowest failure is done: checkpoint it, so it is never delivered again.
    const previous = records[failedIndex - 1];
    if (previous !== undefined) await this.commit(previous.kinesis.sequenceNumber);
    const failedRecord = records[failedIndex];
    if (failedRecord === undefined) return;
    const startSequenceNumber = failedRecord.kinesis.sequenceNumber;
    const attempts =
      this.failure?.startSequenceNumber === startSequenceNumber ? this.failure.attempts + 1 : 1;
    this.failure = { startSequenceNumber, attempts };
    // The next read starts again from the checkpoint, that is at the failed record.
    this.iterator = undefined;

    if (attempts <= this.options.maxRetryAttempts) {
      this.options.logger.warn('kinesis poller: batch failed, retrying', {
        functionName: this.options.functionName,
        shardId: this.shardId,
        sequenceNumber: startSequenceNumber,
        attempt: attempts,
        error: error.message,
      });
      await this.sleep(this.options.retryDelayMs, false);
      return;
    }

    const rejected = records.slice(failedIndex);
    if (await this.deadLetter(rejected, error)) {
      await this.commit(sequenceNumberOfEvent(rejected[rejected.length - 1]));
      this.failure = undefined;
    }
  }

  /** Hands records to the on-failure destination; `false` if stopped before it accepted them. */
  private async deadLetter(records: KinesisStreamRecord[], error: Error): Promise<boolean> {
    for (;;) {
      try {
        await this.options.onDeadLetter(records, error);
        return true;
      } catch (deadLetterError) {
        this.options.logger.error('kinesis poller: onDeadLetter failed, retrying', {
          functionName: this.options.functionName,
          shardId: this.shardId,
          error: describeError(deadLetterError),
        });
        if (this.options.isStopping()) return false;
        await this.sleep(this.options.retryDelayMs, false);
        if (this.options.isStopping()) return false;
      }
    }
  }

  private async invoke(event: KinesisStreamEvent): Promise<BatchOutcome> {
    let response: KinesisStreamBatchResponse | void;
    try {
      response = await this.options.handler(
        event,
        createLambdaContext({ functionName: this.options.functionName }),
      );
    } catch (error) {
      return { ok: false, failedIndex: 0, error: toError(error) };
    }
    return interpretResponse(response, event.Records);
  }

  private async getIterator(): Promise<string | undefined> {
    const base = { StreamName: this.options.streamName, ShardId: this.shardId };
    const checkpoint = this.checkpoint;
    if (checkpoint === undefined) return this.shardIterator({ ...base, ShardIteratorType: 'TRIM_HORIZON' });
    try {
      return await this.shardIterator({
        ...base,
        ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
        StartingSequenceNumber: checkpoint,
      });
    } catch (error) {
      // A checkpoint from another incarnation of the stream (the kinesis data was deleted but the
      // checkpoint file was not): the stream is new, so read it from the start.
      if (errorName(error) !== 'InvalidArgumentException') throw error;
      this.options.logger.warn(
        'kinesis poller: checkpoint does not belong to this stream, reading from TRIM_HORIZON',
        {
          functionName: this.options.functionName,
          shardId: this.shardId,
          checkpoint,
        },
      );
      return this.shardIterator({ ...base, ShardIteratorType: 'TRIM_HORIZON' });
    }
  }

  private async shardIterator(input: GetShardIteratorCommandInput): Promise<string | undefined> {
    return (await this.options.kinesis.send(new GetShardIteratorCommand(input))).ShardIterator;
  }

  private async commit(sequenceNumber: string): Promise<void> {
    await this.options.checkpoints.put(this.shardId, sequenceNumber);
    this.checkpoint = sequenceNumber;
  }

  private resolveWaiters(completedPoll: number): void {
    const remaining: TipWaiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.afterPoll < completedPoll) waiter.resolve();
      else remaining.push(waiter);
    }
    this.waiters = remaining;
  }

  /** Waits `ms`; `stop()` always cuts it short, `drain()` only when `interruptibleByDrain`. */
  private sleep(ms: number, interruptibleByDrain: boolean): Promise<void> {
    if (this.options.isStopping()) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.interruptSleep = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.interruptSleep = (byDrain) => {
        if (!byDrain || interruptibleByDrain) finish();
      };
    });
  }

  private toEvent(records: readonly _Record[]): KinesisStreamEvent {
    const { streamArn, functionName } = this.options;
    return {
      Records: records.map((record) => {
        const sequenceNumber = sequenceNumberOf(record);
        return {
          kinesis: {
            kinesisSchemaVersion: '1.0',
            partitionKey: record.PartitionKey ?? '',
            sequenceNumber,
            data: Buffer.from(record.Data ?? new Uint8Array()).toString('base64'),
            // Lambda reports epoch seconds with a fractional part.
            approximateArrivalTimestamp: (record.ApproximateArrivalTimestamp?.getTime() ?? Date.now()) / 1000,
          },
          eventSource: 'aws:kinesis',
          eventVersion: '1.0',
          eventID: `${this.shardId}:${sequenceNumber}`,
          eventName: 'aws:kinesis:record',
          invokeIdentityArn: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/${functionName}-role`,
          awsRegion: LOCAL_REGION,
          eventSourceARN: streamArn,
        };
      }),
    };
  }
}

/**
 * Reads a handler's response the way Lambda does with ReportBatchItemFailures: no response, no list
 * or an empty list is success; a list naming records fails from the lowest of them; an identifier
 * that is empty, not a string or not in the batch fails the whole batch.
 */
function interpretResponse(
  response: KinesisStreamBatchResponse | void,
  records: readonly KinesisStreamRecord[],
): BatchOutcome {
  if (response === undefined || response === null || typeof response !== 'object') return { ok: true };
  const failures: unknown = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return { ok: true };
  if (!Array.isArray(failures)) {
    return wholeBatch('batchItemFailures is not a list');
  }
  if (failures.length === 0) return { ok: true };

  const positions = new Map(records.map((record, index) => [record.kinesis.sequenceNumber, index]));
  const failed: string[] = [];
  let lowest = Number.POSITIVE_INFINITY;
  for (const failure of failures) {
    const identifier: unknown = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    const index = typeof identifier === 'string' && identifier !== '' ? positions.get(identifier) : undefined;
    if (index === undefined) {
      return wholeBatch(`batchItemFailures names ${JSON.stringify(identifier)}, which is not in the batch`);
    }
    failed.push(identifier as string);
    lowest = Math.min(lowest, index);
  }
  return {
    ok: false,
    failedIndex: lowest,
    error: new BatchItemFailureError(`handler reported ${failed.length} failed record(s)`, failed),
  };
}

function wholeBatch(reason: string): BatchOutcome {
  return {
    ok: false,
    failedIndex: 0,
    error: new BatchItemFailureError(`${reason}: the whole batch fails`, []),
  };
}

function sequenceNumberOf(record: _Record | undefined): string {
  // GetRecords always returns sequence numbers; the SDK types every output member as optional.
  return record?.SequenceNumber ?? '';
}

function sequenceNumberOfEvent(record: KinesisStreamRecord | undefined): string {
  return record?.kinesis.sequenceNumber ?? '';
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
