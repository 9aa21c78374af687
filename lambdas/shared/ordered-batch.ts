import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type {
  Context,
  KinesisStreamBatchResponse,
  KinesisStreamEvent,
  KinesisStreamRecord,
} from 'aws-lambda';
import { type EventEnvelope, eventEnvelopeSchema } from '../../core/events/telemetry-event';

/** An envelope and the sequence number of the Kinesis record that carried it. */
export interface SequencedEnvelope {
  seq: string;
  envelope: EventEnvelope;
}

/** A record whose data is not a valid envelope: retrying cannot help, so it goes to the dead-letter queue. */
export class PoisonRecordError extends Error {
  override readonly name = 'PoisonRecordError';
}

export function decodeEnvelope(record: KinesisStreamRecord): SequencedEnvelope {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(record.kinesis.data, 'base64').toString('utf8'));
  } catch (err) {
    throw new PoisonRecordError(`record ${record.kinesis.sequenceNumber} is not JSON`, { cause: err });
  }
  const parsed = eventEnvelopeSchema.safeParse(raw);
  if (!parsed.success) {
    throw new PoisonRecordError(`record ${record.kinesis.sequenceNumber} is not an event envelope`, {
      cause: parsed.error,
    });
  }
  return { seq: record.kinesis.sequenceNumber, envelope: parsed.data };
}

/** Raised for the records after an organization's failed record, which must wait for it. */
class BlockedBehindFailureError extends Error {
  override readonly name = 'BlockedBehindFailureError';
}

/**
 * Runs `handle` over a Kinesis batch one record at a time, in order, with Powertools' batch processor
 * reporting partial failures (`ReportBatchItemFailures`). Once a record of an organization fails, every
 * later record of that organization in the batch is failed without being processed: the consumers'
 * sequence guards only move forward, so a later record must never be applied before an earlier one.
 */
export async function processInOrder(
  event: KinesisStreamEvent,
  context: Context,
  handle: (item: SequencedEnvelope) => Promise<void>,
): Promise<KinesisStreamBatchResponse> {
  const failedPartitions = new Set<string>();
  const processor = new BatchProcessor(EventType.KinesisDataStreams);
  return processPartialResponse(
    event,
    async (record: KinesisStreamRecord) => {
      const partition = record.kinesis.partitionKey;
      if (failedPartitions.has(partition)) {
        throw new BlockedBehindFailureError(`waiting for an earlier record of ${partition}`);
      }
      try {
        await handle(decodeEnvelope(record));
      } catch (err) {
        failedPartitions.add(partition);
        throw err;
      }
    },
    processor,
    { context, processInParallel: false, throwOnFullBatchFailure: false },
  );
}
