import { Match } from 'aws-cdk-lib/assertions';
import {
  describeWithHandlers,
  functionPermissions,
  idAt,
  resource,
  synthSpendguard,
  type Synthesized,
} from './test-helpers';

describeWithHandlers('SpendguardPrices', () => {
  let s: Synthesized;
  let bucketId: string;
  beforeAll(() => {
    s = synthSpendguard();
    bucketId = idAt(s.template, 'Prices/Bucket');
  });

  it('keeps snapshots in a versioned, encrypted, private bucket reached over TLS only', () => {
    expect(resource(s.template, bucketId).Properties).toMatchObject({
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LoggingConfiguration: { DestinationBucketName: { Ref: idAt(s.template, 'Observability/AccessLogs') } },
    });
    s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('invokes the refresh weekly (Monday 06:00 UTC) through EventBridge Scheduler, with bounded retries', () => {
    s.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(0 6 ? * MON *)',
      ScheduleExpressionTimezone: 'Etc/UTC',
      Target: {
        Arn: { 'Fn::GetAtt': [idAt(s.template, 'Prices/Refresh'), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 21600 },
      },
    });
  });

  it('lets the refresh write under prices/ and nothing else', () => {
    expect(functionPermissions(s.template, 'Prices/Refresh')).toEqual([
      `s3:PutObject <${bucketId}.Arn>/prices/*`,
    ]);
    expect(resource(s.template, idAt(s.template, 'Prices/Refresh')).Properties).toMatchObject({
      Environment: { Variables: { PRICES_BUCKET: { Ref: bucketId }, PRICES_KEY: 'prices/latest.json' } },
      Timeout: 60,
    });
  });
});
