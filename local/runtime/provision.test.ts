import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { ListShardsCommand } from '@aws-sdk/client-kinesis';

import { DATA_TABLE, LOCAL_RESOURCE_NAMES } from '../../lambdas/shared/table-definitions';
import { createLocalAwsClients, type LocalAwsClients } from './clients';
import { ResourceDriftError } from './errors';
import { ensureTable, provisionLocalResources, toCreateTableInput } from './provision';
import { type StandIns, startStandIns } from './stand-ins';

let standIns: StandIns;
let clients: LocalAwsClients;

beforeAll(async () => {
  standIns = await startStandIns({ memory: true });
  clients = createLocalAwsClients(standIns);
});

afterAll(async () => {
  clients.destroy();
  await standIns.close();
});

describe('provisionLocalResources', () => {
  it('creates the tables with their indexes and the stream, and accepts them on the next run', async () => {
    // Act
    const first = await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
    const second = await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });

    // Assess
    expect(first.tables).toEqual([
      { tableName: LOCAL_RESOURCE_NAMES.flagsTable, created: true, timeToLive: 'unsupported' },
      { tableName: LOCAL_RESOURCE_NAMES.dataTable, created: true, timeToLive: 'unsupported' },
    ]);
    expect(first.stream).toMatchObject({
      streamName: LOCAL_RESOURCE_NAMES.eventsStream,
      created: true,
      openShardCount: 2,
    });
    expect(second.tables.map((table) => table.created)).toEqual([false, false]);
    expect(second.stream.created).toBe(false);
    expect(second.stream.streamArn).toBe(first.stream.streamArn);

    const data = await clients.dynamo.send(
      new DescribeTableCommand({ TableName: LOCAL_RESOURCE_NAMES.dataTable }),
    );
    expect(data.Table?.TableStatus).toBe('ACTIVE');
    expect(data.Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(data.Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.IndexStatus])).toEqual([
      ['gsi1', 'ACTIVE'],
    ]);
    const shards = await clients.kinesis.send(
      new ListShardsCommand({ StreamName: LOCAL_RESOURCE_NAMES.eventsStream }),
    );
    expect(shards.Shards).toHaveLength(2);
  });

  it('refuses an existing table whose shape drifted from the shared definition', async () => {
    // Prepare: a Data table as an older version might have left it, without the GSI.
    await clients.dynamo.send(
      new CreateTableCommand(
        toCreateTableInput('drifted-data', { ...DATA_TABLE, globalSecondaryIndexes: [] }),
      ),
    );

    // Act
    const provisioning = ensureTable(clients.dynamo, 'drifted-data', DATA_TABLE);

    // Assess
    await expect(provisioning).rejects.toThrow(ResourceDriftError);
    await expect(ensureTable(clients.dynamo, 'drifted-data', DATA_TABLE)).rejects.toThrow(
      /index gsi1 is missing/,
    );
  });
});

describe('toCreateTableInput', () => {
  it('defines each key attribute once and projects every index fully', () => {
    const input = toCreateTableInput('t', DATA_TABLE);

    expect(input.AttributeDefinitions).toEqual([
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
      { AttributeName: 'gsi1pk', AttributeType: 'S' },
      { AttributeName: 'gsi1sk', AttributeType: 'S' },
    ]);
    expect(input.BillingMode).toBe('PAY_PER_REQUEST');
    expect(input.GlobalSecondaryIndexes?.[0]?.Projection).toEqual({ ProjectionType: 'ALL' });
  });
});
