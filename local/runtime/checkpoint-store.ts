/**
 * Where the Kinesis poller remembers, per shard, the last sequence number its handler completed:
 * the local counterpart of the position Lambda's event source mapping keeps for a function.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

import { LocalRuntimeError } from './errors';

/** Per-shard checkpoints of one consumer (one poller) of one stream. */
export interface CheckpointStore {
  /** Last sequence number completed in `shardId`, or `undefined` to start at TRIM_HORIZON. */
  get(shardId: string): Promise<string | undefined>;
  /** Records that every record of `shardId` up to and including `sequenceNumber` is done. */
  put(shardId: string, sequenceNumber: string): Promise<void>;
}

/** Checkpoints that last as long as the object: for tests and `--memory` runs. */
export function createMemoryCheckpointStore(): CheckpointStore {
  const checkpoints = new Map<string, string>();
  return {
    get: async (shardId) => checkpoints.get(shardId),
    put: async (shardId, sequenceNumber) => {
      checkpoints.set(shardId, sequenceNumber);
    },
  };
}

interface CheckpointFile {
  readonly version: 1;
  readonly shards: Record<string, string>;
}

/**
 * Checkpoints in a small JSON file (for example `<dataDir>/checkpoints/spendguard-events.pricing.json`),
 * so a restarted poller resumes where the last one stopped instead of replaying the stream.
 *
 * Each put rewrites the file through a temporary file and a rename, so a crash leaves either the old
 * or the new checkpoints, never half a file. Writes are not fsynced: a checkpoint lost to a power cut
 * means a replay, which the handlers absorb (DESIGN decision 5: a redelivered record changes nothing).
 * Use one file per poller; two pollers writing one file would overwrite each other.
 */
export function createFileCheckpointStore(filePath: string): CheckpointStore {
  let loaded: Promise<Map<string, string>> | undefined;
  let writes: Promise<void> = Promise.resolve();

  const load = (): Promise<Map<string, string>> => {
    loaded ??= readCheckpointFile(filePath);
    return loaded;
  };

  return {
    get: async (shardId) => (await load()).get(shardId),
    put: async (shardId, sequenceNumber) => {
      const checkpoints = await load();
      checkpoints.set(shardId, sequenceNumber);
      // Shards checkpoint concurrently; chaining keeps the file writes (and renames) in order, each
      // writing the latest state of every shard.
      const write = writes.then(() => writeCheckpointFile(filePath, checkpoints));
      writes = write.catch(() => undefined);
      await write;
    },
  };
}

async function readCheckpointFile(filePath: string): Promise<Map<string, string>> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new LocalRuntimeError(
      `Checkpoint file ${filePath} is not valid JSON; delete it to replay the stream`,
      {
        cause: error,
      },
    );
  }
  const shards = (parsed as Partial<CheckpointFile> | null)?.shards;
  if (typeof shards !== 'object' || shards === null) {
    throw new LocalRuntimeError(
      `Checkpoint file ${filePath} has no "shards" object; delete it to replay the stream`,
    );
  }
  return new Map(
    Object.entries(shards).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

async function writeCheckpointFile(
  filePath: string,
  checkpoints: ReadonlyMap<string, string>,
): Promise<void> {
  const content: CheckpointFile = { version: 1, shards: Object.fromEntries(checkpoints) };
  await mkdir(dirname(filePath), { recursive: true });
  const temporary = `${filePath}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, 'utf8');
  await rename(temporary, filePath);
}
