import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  ExpiredIteratorException,
  GetRecordsCommand,
  type KinesisClient,
  PutRecordCommand,
} from '@aws-sdk/client-kinesis';
import type { KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';

import { createFileCheckpointStore, createMemoryCheckpointStore } from './checkpoint-store';
import { createLocalAwsClients, type LocalAwsClients } from './clients';
import { BatchItemFailureError, PollerStoppedError } from './errors';
import {
  type KinesisBatchHandler,
  type KinesisPoller,
  type KinesisPollerOptions,
  startKinesisPoller,
} from './kinesis-poller';
import { silentLogger } from './logger';
import { ensureStream } from './provision';
import { type StandIns, startStandIns } from './stand-ins';

interface Payload {
  readonly key: string;
  readonly n: number;
}

let standIns: StandIns;
let clients: LocalAwsClients;
let streamCounter = 0;
const pollers: KinesisPoller[] = [];

beforeAll(async () => {
  standIns = await startStandIns({ memory: true });
  clients = createLocalAwsClients(standIns);
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
});

afterAll(async () => {
  clients.destroy();
  await standIns.close();
});

/** A fresh stream per test, so tests cannot see each other's records. */
async function newStream(shardCount: number): Promise<string> {
  streamCounter += 1;
  const name = `poller-test-${streamCounter}`;
  await ensureStream(clients.kinesis, name, shardCount);
  return name;
}

async function put(streamName: string, key: string, n: number): Promise<string> {
  const output = await clients.kinesis.send(
    new PutRecordCommand({
      StreamName: streamName,
      PartitionKey: key,
      Data: Buffer.from(JSON.stringify({ key, n } satisfies Payload)),
    }),
  );
  return output.SequenceNumber ?? '';
}

async function putMany(streamName: string, key: string, from: number, to: number): Promise<string[]> {
  const sequenceNumbers: string[] = [];
  for (let n = from; n < to; n += 1) sequenceNumbers.push(await put(streamName, key, n));
  return sequenceNumbers;
}

function decode(record: KinesisStreamRecord): Payload {
  return JSON.parse(Buffer.from(record.kinesis.data, 'base64').toString('utf8')) as Payload;
}

function numbers(event: KinesisStreamEvent): number[] {
  return event.Records.map((record) => decode(record).n);
}

async function start(
  streamName: string,
  handler: KinesisBatchHandler,
  overrides: Partial<KinesisPollerOptions> = {},
): Promise<KinesisPoller> {
  const poller = await startKinesisPoller({
    kinesis: clients.kinesis,
    streamName,
    handler,
    idlePollMs: 5,
    maxIdlePollMs: 20,
    retryDelayMs: 5,
    logger: silentLogger,
    ...overrides,
  });
  pollers.push(poller);
  return poller;
}

describe('startKinesisPoller', () => {
  it('delivers every record in order per partition key and per shard, as Lambda-shaped events', async () => {
    // Prepare
    const streamName = await newStream(2);
    const keys = ['org-a', 'org-b', 'org-c', 'org-d', 'org-e', 'org-f'];
    for (let n = 0; n < 10; n += 1) {
      for (const key of keys) await put(streamName, key, n);
    }
    const events: KinesisStreamEvent[] = [];

    // Act
    const poller = await start(
      streamName,
      async (event) => {
        events.push(event);
      },
      { batchSize: 7 },
    );
    await poller.drain();

    // Assess
    const records = events.flatMap((event) => event.Records);
    expect(records).toHaveLength(60);
    expect(Math.max(...events.map((event) => event.Records.length))).toBeLessThanOrEqual(7);
    for (const key of keys) {
      const seen = records
        .filter((record) => record.kinesis.partitionKey === key)
        .map((record) => decode(record).n);
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
    for (const shardId of poller.shardIds) {
      const sequence = records
        .filter((record) => record.eventID.startsWith(`${shardId}:`))
        .map((record) => BigInt(record.kinesis.sequenceNumber));
      expect(sequence).toEqual([...sequence].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    // Each event holds records of one shard only.
    for (const event of events) {
      const shards = new Set(event.Records.map((record) => record.eventID.split(':')[0]));
      expect(shards.size).toBe(1);
    }
    const first = records[0];
    expect(first).toMatchObject({
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventName: 'aws:kinesis:record',
      awsRegion: 'us-east-1',
      eventSourceARN: `arn:aws:kinesis:us-east-1:000000000000:stream/${streamName}`,
      kinesis: { kinesisSchemaVersion: '1.0' },
    });
    expect(first?.eventID).toBe(`${first?.eventID.split(':')[0]}:${first?.kinesis.sequenceNumber}`);
    expect(typeof first?.kinesis.approximateArrivalTimestamp).toBe('number');
    expect(first?.kinesis.approximateArrivalTimestamp).toBeLessThan(Date.now() / 1000 + 1);
  });

  it('redelivers from the lowest reported batchItemFailure and never what came before it', async () => {
    // Prepare
    const streamName = await newStream(1);
    const sequenceNumbers = await putMany(streamName, 'org-a', 0, 10);
    const calls: number[][] = [];
    const checkpoints = createMemoryCheckpointStore();

    // Act
    const poller = await start(
      streamName,
      async (event): Promise<KinesisStreamBatchResponse> => {
        calls.push(numbers(event));
        if (calls.length > 1) return { batchItemFailures: [] };
        // Unordered on purpose: Lambda retries from the lowest sequence number reported.
        return {
          batchItemFailures: [
            { itemIdentifier: sequenceNumbers[6] ?? '' },
            { itemIdentifier: sequenceNumbers[4] ?? '' },
          ],
        };
      },
      { checkpoints },
    );
    await poller.drain();

    // Assess
    expect(calls).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      [4, 5, 6, 7, 8, 9],
    ]);
    expect(await checkpoints.get(poller.shardIds[0] ?? '')).toBe(sequenceNumbers[9]);
  });

  it('retries the whole batch when the handler throws', async () => {
    // Prepare
    const streamName = await newStream(1);
    await putMany(streamName, 'org-a', 0, 5);
    const calls: number[][] = [];

    // Act
    const poller = await start(streamName, async (event) => {
      calls.push(numbers(event));
      if (calls.length === 1) throw new Error('transient');
    });
    await poller.drain();

    // Assess
    expect(calls).toEqual([
      [0, 1, 2, 3, 4],
      [0, 1, 2, 3, 4],
    ]);
  });

  it.each([
    ['an empty itemIdentifier', ''],
    ['an itemIdentifier that is not in the batch', '12345'],
  ])('retries the whole batch for %s', async (_name, itemIdentifier) => {
    // Prepare
    const streamName = await newStream(1);
    await putMany(streamName, 'org-a', 0, 3);
    const calls: number[][] = [];

    // Act
    const poller = await start(streamName, async (event) => {
      calls.push(numbers(event));
      return calls.length === 1 ? { batchItemFailures: [{ itemIdentifier }] } : undefined;
    });
    await poller.drain();

    // Assess
    expect(calls).toEqual([
      [0, 1, 2],
      [0, 1, 2],
    ]);
  });

  it('dead-letters a batch after maxRetryAttempts and carries on with the next records', async () => {
    // Prepare
    const streamName = await newStream(1);
    const sequenceNumbers = await putMany(streamName, 'org-a', 0, 8);
    const calls: number[][] = [];
    const deadLetters: { records: number[]; error: Error }[] = [];

    // Act
    const poller = await start(
      streamName,
      async (event) => {
        calls.push(numbers(event));
        const poison = event.Records.find((record) => decode(record).n === 2);
        return {
          batchItemFailures: poison === undefined ? [] : [{ itemIdentifier: poison.kinesis.sequenceNumber }],
        };
      },
      {
        batchSize: 5,
        maxRetryAttempts: 2,
        onDeadLetter: (records, error) => {
          deadLetters.push({ records: records.map(decode).map((payload) => payload.n), error });
        },
      },
    );
    await poller.drain();

    // Assess: first attempt, two retries of the batch starting at the poison record, then the rest.
    expect(calls).toEqual([[0, 1, 2, 3, 4], [2, 3, 4, 5, 6], [2, 3, 4, 5, 6], [7]]);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]?.records).toEqual([2, 3, 4, 5, 6]);
    expect(deadLetters[0]?.error).toBeInstanceOf(BatchItemFailureError);
    expect((deadLetters[0]?.error as BatchItemFailureError).failedSequenceNumbers).toEqual([
      sequenceNumbers[2],
    ]);
  });

  it('dead-letters with the thrown error when the handler keeps throwing (no retries with maxRetryAttempts 0)', async () => {
    // Prepare
    const streamName = await newStream(1);
    await putMany(streamName, 'org-a', 0, 2);
    const deadLetters: Error[] = [];
    let calls = 0;

    // Act
    const poller = await start(
      streamName,
      async () => {
        calls += 1;
        throw new Error('poison');
      },
      { maxRetryAttempts: 0, onDeadLetter: (_records, error) => void deadLetters.push(error) },
    );
    await poller.drain();

    // Assess
    expect(calls).toBe(1);
    expect(deadLetters.map((error) => error.message)).toEqual(['poison']);
  });

  it('resumes from the checkpoint file after a restart without redelivering completed records', async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), 'spendguard-checkpoints-'));
    const checkpointFile = join(dataDir, 'checkpoints', 'events.pricing.json');
    const streamName = await newStream(2);
    try {
      for (let n = 0; n < 5; n += 1) {
        await put(streamName, 'org-a', n);
        await put(streamName, 'org-b', n);
      }
      const firstRun: number[] = [];
      const first = await start(streamName, (event) => void firstRun.push(...numbers(event)), {
        checkpoints: createFileCheckpointStore(checkpointFile),
      });
      await first.drain();
      await first.stop();
      for (let n = 5; n < 8; n += 1) {
        await put(streamName, 'org-a', n);
        await put(streamName, 'org-b', n);
      }

      // Act
      const secondRun: number[] = [];
      const second = await start(streamName, (event) => void secondRun.push(...numbers(event)), {
        checkpoints: createFileCheckpointStore(checkpointFile),
      });
      await second.drain();

      // Assess
      expect(firstRun.sort((a, b) => a - b)).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
      expect(secondRun.sort((a, b) => a - b)).toEqual([5, 5, 6, 6, 7, 7]);
      const file = JSON.parse(await readFile(checkpointFile, 'utf8')) as { shards: Record<string, string> };
      expect(Object.keys(file.shards).length).toBeGreaterThan(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('drain() resolves only once everything put before the call has been handled', async () => {
    // Prepare
    const streamName = await newStream(2);
    let handled = 0;
    const poller = await start(
      streamName,
      async (event) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        handled += event.Records.length;
      },
      { batchSize: 1 },
    );
    await poller.drain(); // idle stream: resolves at once
    for (let n = 0; n < 12; n += 1) await put(streamName, `org-${n % 4}`, n);

    // Act
    await poller.drain();

    // Assess
    expect(handled).toBe(12);
  });

  it('stop() waits for the in-flight batch, checkpoints it, and makes drain() reject', async () => {
    // Prepare
    const streamName = await newStream(1);
    const sequenceNumbers = await putMany(streamName, 'org-a', 0, 3);
    const checkpoints = createMemoryCheckpointStore();
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const poller = await start(
      streamName,
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
          entered();
        }),
      { checkpoints },
    );
    await inHandler;

    // Act
    let stopped = false;
    const stopping = poller.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    const stoppedBeforeRelease = stopped;
    release();
    await stopping;

    // Assess
    expect(stoppedBeforeRelease).toBe(false);
    expect(await checkpoints.get(poller.shardIds[0] ?? '')).toBe(sequenceNumbers[2]);
    await expect(poller.drain()).rejects.toBeInstanceOf(PollerStoppedError);
  });

  it('gets a new iterator from the checkpoint when the current one has expired', async () => {
    // Prepare: a client whose second GetRecords reports an expired iterator.
    const streamName = await newStream(1);
    await putMany(streamName, 'org-a', 0, 6);
    let getRecordsCalls = 0;
    const flaky = {
      send: (command: unknown) => {
        if (command instanceof GetRecordsCommand) {
          getRecordsCalls += 1;
          if (getRecordsCalls === 2) {
            return Promise.reject(
              new ExpiredIteratorException({ message: 'Iterator expired', $metadata: {} }),
            );
          }
        }
        return (clients.kinesis.send as (command: unknown) => Promise<unknown>)(command);
      },
    } as unknown as KinesisClient;
    const seen: number[] = [];

    // Act
    const poller = await start(streamName, (event) => void seen.push(...numbers(event)), {
      kinesis: flaky,
      batchSize: 2,
    });
    await poller.drain();

    // Assess: nothing skipped, nothing twice.
    expect(getRecordsCalls).toBeGreaterThan(2);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
