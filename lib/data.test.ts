import { Match } from 'aws-cdk-lib/assertions';
import { DATA_TABLE, FLAGS_TABLE } from '../lambdas/shared/table-definitions';
import { describeWithHandlers, idAt, resource, synthSpendguard, type Synthesized } from './test-helpers';

describeWithHandlers('SpendguardData', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthSpendguard();
  });

  it('creates exactly the two tables of table-definitions.ts, as global tables (TableV2)', () => {
    s.template.resourceCountIs('AWS::DynamoDB::GlobalTable', 2);
    s.template.resourceCountIs('AWS::DynamoDB::Table', 0);
  });

  it('makes Flags a global table with a replica per replica region (home region first), fixed name, keys and TTL', () => {
    const flags = resource(s.template, idAt(s.template, 'Data/Flags')) as unknown as {
      Properties: Record<string, unknown> & { Replicas: Array<{ Region: string }> };
    };
    expect(flags.Properties).toMatchObject({
      TableName: 'Spendguard-Flags',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: FLAGS_TABLE.partitionKey.name, KeyType: 'HASH' }],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byOrg',
          KeySchema: [
            { AttributeName: 'orgId', KeyType: 'HASH' },
            { AttributeName: 'flagKey', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
    // eu-west-1 (the stack's region) is dropped from the context list; it holds the table itself.
    expect(flags.Properties.Replicas.map((r) => r.Region).sort()).toEqual([
      'ap-northeast-1',
      'eu-west-1',
      'us-east-1',
    ]);
  });

  it('turns on point-in-time recovery and deletion protection in every replica of both tables', () => {
    const tables = s.template.findResources('AWS::DynamoDB::GlobalTable');
    for (const table of Object.values(tables) as Array<{ Properties: { Replicas: unknown[] } }>) {
      for (const replica of table.Properties.Replicas) {
        expect(replica).toMatchObject({
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: true,
        });
      }
    }
  });

  it('keys the Data table (pk, sk, gsi1) from the shared definition, with TTL and no fixed name', () => {
    s.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      TableName: Match.absent(),
      KeySchema: [
        { AttributeName: DATA_TABLE.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: DATA_TABLE.sortKey?.name, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: 'gsi1' })],
      Replicas: [Match.objectLike({ Region: 'eu-west-1' })],
    });
  });

  it('encrypts with AWS-owned keys (SSEEnabled false) and retains the tables', () => {
    const tables = s.template.findResources('AWS::DynamoDB::GlobalTable');
    for (const table of Object.values(tables) as Array<{
      Properties: Record<string, unknown>;
      DeletionPolicy: string;
    }>) {
      expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: false });
      expect(table.DeletionPolicy).toBe('Retain');
    }
  });
});
