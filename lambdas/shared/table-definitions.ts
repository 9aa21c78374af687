/**
 * The one definition of Spendguard's tables and stream, read by the CDK stacks (lib/) and by the
 * local stack (local/), so that the cloud and the laptop cannot drift apart.
 * Plain data: no AWS imports, so both sides can map it onto their own APIs.
 */

/** An attribute of a key schema. DynamoDB types: S string, N number. */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N';
}

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
}

export interface TableDefinition {
  /** Logical id in CDK and the physical name prefix locally. */
  readonly logicalId: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly globalSecondaryIndexes: readonly IndexDefinition[];
  /** TTL attribute (epoch seconds). DynamoDB deletes lazily, so every reader also compares it with its clock. */
  readonly timeToLiveAttribute?: string;
}

/**
 * GUARDRAIL_FLAGS (spec 2.4): one item per active API key of a blocked organization, keyed by the
 * opaque HMAC of the key prefix (core/keys flagKeyFor). A global table in AWS, read at the edge.
 */
export const FLAGS_TABLE: TableDefinition = {
  logicalId: 'Flags',
  partitionKey: { name: 'flagKey', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: 'byOrg',
      partitionKey: { name: 'orgId', type: 'S' },
      sortKey: { name: 'flagKey', type: 'S' },
    },
  ],
  timeToLiveAttribute: 'expiresAt',
};

/**
 * Everything else, single-table: API keys, ledger entries, spend aggregates, budgets and policies,
 * guardrail state, forecasts. Item key layout is documented in docs/data-model.md and built only by
 * lambdas/shared/item-keys.ts.
 */
export const DATA_TABLE: TableDefinition = {
  logicalId: 'Data',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: 'gsi1',
      partitionKey: { name: 'gsi1pk', type: 'S' },
      sortKey: { name: 'gsi1sk', type: 'S' },
    },
  ],
  timeToLiveAttribute: 'expiresAt',
};

/** The telemetry stream. Partition key = organization id, so one consumer sees an organization in order. */
export const EVENTS_STREAM = {
  logicalId: 'Events',
  /** Local shard count; in AWS the stream is on-demand. */
  localShardCount: 2,
} as const;

/** Names the local stack gives the resources (in AWS, CDK names them and passes them in the environment). */
export const LOCAL_RESOURCE_NAMES = {
  flagsTable: 'spendguard-flags',
  dataTable: 'spendguard-data',
  eventsStream: 'spendguard-events',
} as const;
