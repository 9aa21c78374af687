/**
 * Waits until dynalite and kinesalite answer a request, with retries, before anything else talks to
 * them. `listen()` resolving means the port is bound, not that a request will be answered in time: on a
 * loaded 2-core machine (three Jest workers beside other jobs) a first request could wait past the
 * client's connection timeout, and every test of a suite then failed on that timeout instead of waiting.
 */
import { type DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { type KinesisClient, ListStreamsCommand } from '@aws-sdk/client-kinesis';
import { StandInsNotReadyError } from './errors';

/** Options of {@link waitForStandIns}. */
export interface ReadinessOptions {
  /** Overall bound. @default 60000 */
  readonly timeoutMs?: number;
  /** Bound of one attempt; an attempt that takes longer is abandoned and retried. @default 5000 */
  readonly attemptTimeoutMs?: number;
  /** First pause between attempts, doubled up to 1 s. @default 50 */
  readonly initialDelayMs?: number;
}

/**
 * Resolves once both stand-ins answered a cheap request (ListTables, ListStreams); retries refused,
 * reset and slow attempts with exponential pauses; rejects with {@link StandInsNotReadyError} (the last
 * error as `cause`) once `timeoutMs` has passed.
 *
 * @example
 * await waitForStandIns({ dynamo: clients.dynamo, kinesis: clients.kinesis }); // then provision
 */
export async function waitForStandIns(
  clients: { readonly dynamo: DynamoDBClient; readonly kinesis: KinesisClient },
  options: ReadinessOptions = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const attemptMs = options.attemptTimeoutMs ?? 5_000;
  const ready = { dynamo: false, kinesis: false };
  let delay = options.initialDelayMs ?? 50;
  let lastError: unknown;
  for (let attempt = 1; ; attempt++) {
    const attempts: Promise<void>[] = [];
    if (!ready.dynamo) {
      attempts.push(
        clients.dynamo
          .send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(attemptMs) })
          .then(() => void (ready.dynamo = true)),
      );
    }
    if (!ready.kinesis) {
      attempts.push(
        clients.kinesis
          .send(new ListStreamsCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(attemptMs) })
          .then(() => void (ready.kinesis = true)),
      );
    }
    const failed = (await Promise.allSettled(attempts)).find((r) => r.status === 'rejected');
    if (ready.dynamo && ready.kinesis) return;
    lastError = failed?.status === 'rejected' ? failed.reason : lastError;
    if (Date.now() + delay >= deadline) {
      const waiting = [!ready.dynamo && 'dynalite', !ready.kinesis && 'kinesalite']
        .filter(Boolean)
        .join(' and ');
      throw new StandInsNotReadyError(
        `${waiting} did not answer within ${options.timeoutMs ?? 60_000} ms (${attempt} attempts)`,
        {
          cause: lastError,
        },
      );
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 1_000);
  }
}
