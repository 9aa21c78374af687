/**
 * The two DynamoDB tables, mapped from the one shared definition (`lambdas/shared/table-definitions.ts`)
 * so that the cloud and the local stack cannot drift apart.
 */
import { Aws, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  DATA_TABLE,
  FLAGS_TABLE,
  type IndexDefinition,
  type KeyAttribute,
  type TableDefinition,
} from '../lambdas/shared/table-definitions';
import type { SpendguardFunction } from './function';

/** The item operations the handlers use; a binding grants exactly the ones named. */
export type TableOperation = 'GetItem' | 'BatchGetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query';

/** Properties of {@link SpendguardData}. */
export interface SpendguardDataProps {
  /**
   * Regions of the Flags table's replicas (besides the stack's own region), near the CloudFront
   * regional edge caches where the edge guard runs.
   * @default [] (the edge guard reads the home region)
   */
  readonly replicaRegions?: readonly string[];
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** The Flags table's name (see retainedNames). @default `<stack>-Flags` */
  readonly flagsTableName?: string;
}

const attribute = (a: KeyAttribute): dynamodb.Attribute => ({
  name: a.name,
  type: a.type === 'S' ? dynamodb.AttributeType.STRING : dynamodb.AttributeType.NUMBER,
});

const gsi = (i: IndexDefinition): dynamodb.GlobalSecondaryIndexPropsV2 => ({
  indexName: i.indexName,
  partitionKey: attribute(i.partitionKey),
  sortKey: i.sortKey ? attribute(i.sortKey) : undefined,
});

/**
 * The Flags table (the spec's GUARDRAIL_FLAGS namespace: a global table with a replica per chosen
 * region) and the single-table Data table. Both are on-demand, with point-in-time recovery, TTL on
 * `expiresAt` (every reader still compares it with its clock: TTL deletes lazily), and AWS-owned
 * encryption.
 *
 * Encryption: AWS-owned keys. The tables hold no secrets (API keys are stored as HMACs, flag keys are
 * opaque HMACs, events are token counts and metadata), a customer-managed key would add a KMS call's
 * cost and a key per replica region to every edge read, and an AWS-owned key cannot be disabled by
 * mistake, which would stop the guard. Customers who need their own key can switch both tables to
 * `TableEncryptionV2.customerManagedKey` (with a key in every replica region).
 *
 * The Flags table has a fixed name (`<stack>-Flags`, or `<stack>-gN-Flags` for a later generation, see
 * lib/retained-names.ts): Lambda@Edge has no environment variables, so the name is baked into the edge
 * bundle at synth.
 */
export class SpendguardData extends Construct {
  public readonly flagsTable: dynamodb.TableV2;
  public readonly dataTable: dynamodb.TableV2;
  /** The Flags table's name, known at synth. */
  public readonly flagsTableName: string;
  /** The Flags table's home region followed by its replica regions. */
  public readonly flagsTableRegions: readonly string[];

  constructor(scope: Construct, id: string, props: SpendguardDataProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const replicaRegions = [...(props.replicaRegions ?? [])];
    this.flagsTableName = props.flagsTableName ?? `${stack.stackName}-${FLAGS_TABLE.logicalId}`;
    this.flagsTableRegions = [stack.region, ...replicaRegions];

    const tableProps = (def: TableDefinition): dynamodb.TablePropsV2 => ({
      partitionKey: attribute(def.partitionKey),
      sortKey: def.sortKey ? attribute(def.sortKey) : undefined,
      globalSecondaryIndexes: def.globalSecondaryIndexes.map(gsi),
      timeToLiveAttribute: def.timeToLiveAttribute,
      billing: dynamodb.Billing.onDemand(),
      encryption: dynamodb.TableEncryptionV2.dynamoOwnedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
    });

    this.flagsTable = new dynamodb.TableV2(this, FLAGS_TABLE.logicalId, {
      ...tableProps(FLAGS_TABLE),
      tableName: this.flagsTableName,
      replicas: replicaRegions.map((region) => ({ region })),
    });
    this.dataTable = new dynamodb.TableV2(this, DATA_TABLE.logicalId, tableProps(DATA_TABLE));
  }

  /** Sets `DATA_TABLE` and grants exactly `operations` (Query also on the table's GSI). */
  public bindDataTable(fn: SpendguardFunction, operations: readonly TableOperation[]): void {
    fn.addEnvironment('DATA_TABLE', this.dataTable.tableName);
    grantOperations(fn, this.dataTable, DATA_TABLE, operations);
  }

  /**
   * Grants `actions` (default `PutItem`) on the Data table only to items whose partition key matches one
   * of `partitions` (`*` = any organization id), through the `dynamodb:LeadingKeys` condition: a function
   * that writes one kind of item cannot write API keys, ledger entries or another partition's items
   * (issue 21).
   * @example data.bindDataPutsTo(relay, [itemKeys.budgetCounter('*').pk], ['UpdateItem']) // BUDGET#ORG#*
   */
  public bindDataPutsTo(
    fn: SpendguardFunction,
    partitions: readonly string[],
    actions: ReadonlyArray<'PutItem' | 'UpdateItem'> = ['PutItem'],
  ): void {
    fn.addEnvironment('DATA_TABLE', this.dataTable.tableName);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: actions.map((a) => `dynamodb:${a}`),
        resources: [this.dataTable.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] } },
      }),
    );
  }

  /** Sets `FLAGS_TABLE` and grants exactly `operations` (Query also on the `byOrg` index), home region only. */
  public bindFlagsTable(fn: SpendguardFunction, operations: readonly TableOperation[]): void {
    fn.addEnvironment('FLAGS_TABLE', this.flagsTable.tableName);
    grantOperations(fn, this.flagsTable, FLAGS_TABLE, operations);
  }

  /** The Flags table's ARN in every region it lives in (the edge guard reads the nearest one). */
  public flagsTableArnsInAllRegions(): string[] {
    return this.flagsTableRegions.map(
      (region) => `arn:${Aws.PARTITION}:dynamodb:${region}:${Aws.ACCOUNT_ID}:table/${this.flagsTableName}`,
    );
  }
}

function grantOperations(
  fn: SpendguardFunction,
  table: dynamodb.TableV2,
  def: TableDefinition,
  operations: readonly TableOperation[],
): void {
  if (operations.length === 0) return;
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: [...new Set(operations)].sort().map((op) => `dynamodb:${op}`),
      resources: [table.tableArn],
    }),
  );
  if (operations.includes('Query') && def.globalSecondaryIndexes.length > 0) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: def.globalSecondaryIndexes.map((index) => `${table.tableArn}/index/${index.indexName}`),
      }),
    );
  }
}
