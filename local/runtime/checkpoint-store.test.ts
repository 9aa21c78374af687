import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createFileCheckpointStore, createMemoryCheckpointStore } from './checkpoint-store';
import { LocalRuntimeError } from './errors';

describe('checkpoint stores', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spendguard-checkpoint-store-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the latest checkpoint of every shard through concurrent writes and a reload', async () => {
    // Prepare
    const file = join(dir, 'nested', 'events.guardrail.json');
    const store = createFileCheckpointStore(file);

    // Act
    await Promise.all([
      store.put('shardId-000000000000', '1'),
      store.put('shardId-000000000001', '10'),
      store.put('shardId-000000000000', '2'),
    ]);
    const reloaded = createFileCheckpointStore(file);

    // Assess
    expect(await reloaded.get('shardId-000000000000')).toBe('2');
    expect(await reloaded.get('shardId-000000000001')).toBe('10');
    expect(await reloaded.get('shardId-000000000002')).toBeUndefined();
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      version: 1,
      shards: { 'shardId-000000000000': '2', 'shardId-000000000001': '10' },
    });
  });

  it('starts empty without a file, and refuses a corrupt one', async () => {
    // Prepare
    const corrupt = join(dir, 'corrupt.json');
    await writeFile(corrupt, '{ not json');

    // Act
    const missing = createFileCheckpointStore(join(dir, 'absent.json')).get('shardId-000000000000');
    const broken = createFileCheckpointStore(corrupt).get('shardId-000000000000');

    // Assess
    await expect(missing).resolves.toBeUndefined();
    await expect(broken).rejects.toThrow(LocalRuntimeError);
  });

  it('keeps checkpoints in memory per store instance', async () => {
    const store = createMemoryCheckpointStore();

    await store.put('shardId-000000000000', '7');

    expect(await store.get('shardId-000000000000')).toBe('7');
    expect(await createMemoryCheckpointStore().get('shardId-000000000000')).toBeUndefined();
  });
});
