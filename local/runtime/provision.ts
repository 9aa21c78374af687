/**
 * Creates the local tables and stream from the one shared definition (lambdas/shared/table-definitions.ts),
 * so the laptop runs against the same keys, indexes and TTL attribute as the CDK stacks deploy.
 * Idempotent: run it at every start; what exists is checked, not recreated.
 */
import {
  type AttributeDefinition,
  type CreateTableCommandInput,
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type KeySchemaElement,
  type TableDescription,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateStreamCommand,
  DescribeStreamSummaryCommand,
  type KinesisClient,
  type StreamDescriptionSummary,
} from '@aws-sdk/client-kinesis';

import {
  DATA_TABLE,
  EVENTS_STREAM,
  FLAGS_TABLE,
  type IndexDefinition,
  type KeyAttribute,
  LOCAL_RESOURCE_NAMES,
  type TableDefinition,
} from '../../lambdas/shared/table-definitions';
import { ProvisioningTimeoutError, ResourceDriftError } from './errors';
import { waitForStandIns } from './readiness';

/** Physical names of the local resources. */
export interface LocalResourceNames {
  readonly flagsTable: string;
  readonly dataTable: string;
  readonly eventsStream: string;
}

/** What {@link provisionLocalResources} found or did for one table. */
export interface TableProvisioning {
  readonly tableName: string;
  /** `false` when the table already existed (and matched the definition). */
  readonly created: boolean;
  /**
   * `enabled`: TTL is on for the definition's attribute. `unsupported`: the stand-in has no
   * UpdateTimeToLive (dynalite), so nothing is deleted by TTL locally; readers compare `expiresAt`
   * with the clock anyway (DESIGN decision 4). `none`: the definition has no TTL attribute.
   */
  readonly timeToLive: 'enabled' | 'unsupported' | 'none';
}

/** What {@link provisionLocalResources} found or did for the stream. */
export interface StreamProvisioning {
  readonly streamName: string;
  readonly created: boolean;
  readonly streamArn: string;
  readonly openShardCount: number;
}

/** Result of {@link provisionLocalResources}. */
export interface LocalProvisioning {
  readonly tables: readonly TableProvisioning[];
  readonly stream: StreamProvisioning;
}

/** Options of {@link provisionLocalResources}. */
export interface ProvisionOptions {
  readonly dynamo: DynamoDBClient;
  readonly kinesis: KinesisClient;
  /** @default LOCAL_RESOURCE_NAMES */
  readonly names?: LocalResourceNames;
  /**
   * How long to wait for each resource to become ACTIVE. The stand-ins started by `startStandIns`
   * create resources instantly; the bound only matters against other stand-ins.
   * @default 10000
   */
  readonly timeoutMs?: number;
  /**
   * How long to wait for the stand-ins to answer at all before provisioning (see readiness.ts).
   * @default 60000
   */
  readonly readyTimeoutMs?: number;
}

const POLL_MS = 20;

/**
 * Creates the Flags and Data tables and the Events stream if they do not exist yet, and waits until
 * they are ACTIVE. An existing table whose keys or indexes differ from the definition raises
 * {@link ResourceDriftError} (dynalite cannot add an index to an existing table: delete the data dir).
 *
 * @example
 * const result = await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
 * // result.tables[0] → { tableName: 'spendguard-flags', created: true, timeToLive: 'unsupported' }
 */
export async function provisionLocalResources(options: ProvisionOptions): Promise<LocalProvisioning> {
  const names = options.names ?? LOCAL_RESOURCE_NAMES;
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Every suite and the local stack provision first: waiting here makes them all wait for readiness.
  await waitForStandIns(options, { timeoutMs: options.readyTimeoutMs ?? 60_000 });
  const tables = await Promise.all([
    ensureTable(options.dynamo, names.flagsTable, FLAGS_TABLE, timeoutMs),
    ensureTable(options.dynamo, names.dataTable, DATA_TABLE, timeoutMs),
  ]);
  const stream = await ensureStream(
    options.kinesis,
    names.eventsStream,
    EVENTS_STREAM.localShardCount,
    timeoutMs,
  );
  return { tables, stream };
}

/**
 * The CreateTable request for a definition: on-demand billing like the CDK table, every GSI
 * projecting ALL attributes (the CDK default).
 */
export function toCreateTableInput(tableName: string, definition: TableDefinition): CreateTableCommandInput {
  const attributes = new Map<string, KeyAttribute['type']>();
  const collect = (key: KeyAttribute | undefined): void => {
    if (key !== undefined) attributes.set(key.name, key.type);
  };
  collect(definition.partitionKey);
  collect(definition.sortKey);
  for (const index of definition.globalSecondaryIndexes) {
    collect(index.partitionKey);
    collect(index.sortKey);
  }
  const attributeDefinitions: AttributeDefinition[] = [...attributes].map(([name, type]) => ({
    AttributeName: name,
    AttributeType: type,
  }));
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: attributeDefinitions,
    KeySchema: keySchema(definition),
    ...(definition.globalSecondaryIndexes.length === 0
      ? {}
      : {
          GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: keySchema(index),
            Projection: { ProjectionType: 'ALL' },
          })),
        }),
  };
}

/** Creates one table (or accepts the existing one), waits for ACTIVE and turns TTL on where possible. */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  definition: TableDefinition,
  timeoutMs = 10_000,
): Promise<TableProvisioning> {
  let created = true;
  try {
    await client.send(new CreateTableCommand(toCreateTableInput(tableName, definition)));
  } catch (error) {
    if (errorName(error) !== 'ResourceInUseException') throw error;
    created = false;
  }
  const table = await waitFor(
    `table ${tableName}`,
    async () => (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table,
    (description) =>
      description?.TableStatus === 'ACTIVE' &&
      (description.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE'),
    timeoutMs,
  );
  if (!created) assertMatches(tableName, definition, table);
  const timeToLive = await enableTimeToLive(client, tableName, definition.timeToLiveAttribute);
  return { tableName, created, timeToLive };
}

/** Creates the stream (or accepts the existing one) and waits for ACTIVE. */
export async function ensureStream(
  client: KinesisClient,
  streamName: string,
  shardCount: number,
  timeoutMs = 10_000,
): Promise<StreamProvisioning> {
  let created = true;
  try {
    await client.send(new CreateStreamCommand({ StreamName: streamName, ShardCount: shardCount }));
  } catch (error) {
    if (errorName(error) !== 'ResourceInUseException') throw error;
    created = false;
  }
  const summary = await waitFor(
    `stream ${streamName}`,
    async () =>
      (await client.send(new DescribeStreamSummaryCommand({ StreamName: streamName })))
        .StreamDescriptionSummary,
    (description: StreamDescriptionSummary | undefined) => description?.StreamStatus === 'ACTIVE',
    timeoutMs,
  );
  // A different shard count in an old data dir is no drift worth failing for: ordering per partition
  // key holds with any number of shards, and the poller reads whatever shards exist.
  return {
    streamName,
    created,
    streamArn: summary?.StreamARN ?? '',
    openShardCount: summary?.OpenShardCount ?? 0,
  };
}

function keySchema(definition: TableDefinition | IndexDefinition): KeySchemaElement[] {
  return [
    { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
    ...(definition.sortKey === undefined
      ? []
      : [{ AttributeName: definition.sortKey.name, KeyType: 'RANGE' as const }]),
  ];
}

function describeKeys(schema: readonly KeySchemaElement[] | undefined): string {
  return (schema ?? []).map((key) => `${key.AttributeName ?? '?'}:${key.KeyType ?? '?'}`).join(',');
}

function assertMatches(
  tableName: string,
  definition: TableDefinition,
  table: TableDescription | undefined,
): void {
  const problems: string[] = [];
  const expectedKeys = describeKeys(keySchema(definition));
  const actualKeys = describeKeys(table?.KeySchema);
  if (expectedKeys !== actualKeys) problems.push(`key schema is ${actualKeys}, expected ${expectedKeys}`);
  const actualIndexes = new Map(
    (table?.GlobalSecondaryIndexes ?? []).map((index) => [
      index.IndexName ?? '',
      describeKeys(index.KeySchema),
    ]),
  );
  for (const index of definition.globalSecondaryIndexes) {
    const expected = describeKeys(keySchema(index));
    const actual = actualIndexes.get(index.indexName);
    if (actual === undefined) problems.push(`index ${index.indexName} is missing`);
    else if (actual !== expected)
      problems.push(`index ${index.indexName} is ${actual}, expected ${expected}`);
  }
  if (problems.length > 0) {
    throw new ResourceDriftError(
      `Table ${tableName} exists with another shape than lambdas/shared/table-definitions.ts ` +
        `(${problems.join('; ')}). Delete the local data dir to recreate it.`,
    );
  }
}

async function enableTimeToLive(
  client: DynamoDBClient,
  tableName: string,
  attributeName: string | undefined,
): Promise<TableProvisioning['timeToLive']> {
  if (attributeName === undefined) return 'none';
  const current = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const description = current.TimeToLiveDescription;
  if (description?.TimeToLiveStatus === 'ENABLED' && description.AttributeName === attributeName) {
    return 'enabled';
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: attributeName, Enabled: true },
      }),
    );
    return 'enabled';
  } catch (error) {
    // dynalite implements DescribeTimeToLive (always DISABLED) but not UpdateTimeToLive.
    if (errorName(error) === 'UnknownOperationException') return 'unsupported';
    throw error;
  }
}

async function waitFor<T>(
  what: string,
  describe: () => Promise<T>,
  isReady: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await describe();
    if (isReady(value)) return value;
    if (Date.now() >= deadline) {
      throw new ProvisioningTimeoutError(`${what} did not become ACTIVE within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}
