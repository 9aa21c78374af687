import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CreateTableCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { GetRecordsCommand, GetShardIteratorCommand, PutRecordCommand } from '@aws-sdk/client-kinesis';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

import { createLocalAwsClients } from './clients';
import { InvalidOptionsError } from './errors';
import { ensureStream } from './provision';
import { startStandIns, type StandInsOptions } from './stand-ins';

describe('startStandIns', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'spendguard-stand-ins-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps items and stream records in the data dir across a restart', async () => {
    // Prepare
    const first = await startStandIns({ dataDir });
    const firstClients = createLocalAwsClients(first);
    await firstClients.dynamo.send(
      new CreateTableCommand({
        TableName: 'persisted',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    // dynalite, like DynamoDB, makes a table ACTIVE after a moment: a put before that is a 404 under load.
    await waitUntilTableExists({ client: firstClients.dynamo, maxWaitTime: 30 }, { TableName: 'persisted' });
    await firstClients.documentClient.send(
      new PutCommand({ TableName: 'persisted', Item: { pk: 'org-1', spend: 42, note: undefined } }),
    );
    // kinesalite turns a stream ACTIVE on a timer even with createStreamMs 0; a put before that is a 404.
    await ensureStream(firstClients.kinesis, 'persisted', 1);
    const put = await firstClients.kinesis.send(
      new PutRecordCommand({ StreamName: 'persisted', PartitionKey: 'org-1', Data: Buffer.from('hello') }),
    );
    firstClients.destroy();
    await first.close();

    // Act
    const second = await startStandIns({ dataDir });
    const secondClients = createLocalAwsClients(second);
    try {
      const item = await secondClients.documentClient.send(
        new GetCommand({ TableName: 'persisted', Key: { pk: 'org-1' } }),
      );
      const iterator = await secondClients.kinesis.send(
        new GetShardIteratorCommand({
          StreamName: 'persisted',
          ShardId: put.ShardId,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      );
      const records = await secondClients.kinesis.send(
        new GetRecordsCommand({ ShardIterator: iterator.ShardIterator }),
      );

      // Assess
      expect(item.Item).toEqual({ pk: 'org-1', spend: 42 });
      expect(records.Records?.map((record) => Buffer.from(record.Data ?? []).toString())).toEqual(['hello']);
    } finally {
      secondClients.destroy();
      await second.close();
    }
  });

  it('starts in memory on the given ports and closes idempotently', async () => {
    // Prepare
    const probe = await startStandIns({ memory: true });
    const ports = [new URL(probe.dynamoEndpoint).port, new URL(probe.kinesisEndpoint).port].map(Number);
    await probe.close();

    // Act
    const standIns = await startStandIns({ memory: true, dynamoPort: ports[0], kinesisPort: ports[1] });
    await Promise.all([standIns.close(), standIns.close()]);

    // Assess
    expect(standIns.dynamoEndpoint).toBe(`http://127.0.0.1:${ports[0]}`);
    expect(standIns.kinesisEndpoint).toBe(`http://127.0.0.1:${ports[1]}`);
  });

  it('releases the stores when a port is busy, so the data dir can be opened again', async () => {
    // Prepare
    const running = await startStandIns({ memory: true });
    const busyPort = Number(new URL(running.kinesisEndpoint).port);

    // Act
    const failed = startStandIns({ dataDir, kinesisPort: busyPort });

    // Assess
    await expect(failed).rejects.toThrow(/EADDRINUSE/);
    await running.close();
    const reopened = await startStandIns({ dataDir });
    await reopened.close();
  });

  it.each([
    ['both dataDir and memory', { dataDir: '/tmp/x', memory: true }, /not both/],
    ['neither dataDir nor memory', {}, /dataDir \(persisted\) or memory: true/],
  ])('refuses %s', async (_name, options, message) => {
    await expect(startStandIns(options as unknown as StandInsOptions)).rejects.toThrow(InvalidOptionsError);
    await expect(startStandIns(options as unknown as StandInsOptions)).rejects.toThrow(message);
  });
});
