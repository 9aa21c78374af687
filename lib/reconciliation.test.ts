import { Match } from 'aws-cdk-lib/assertions';
import {
  describeWithHandlers,
  functionPermissions,
  idAt,
  synthSpendguard,
  type Synthesized,
} from './test-helpers';

describeWithHandlers('SpendguardReconciliation', () => {
  let s: Synthesized;
  const secrets =
    'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:Spendguard/reconciliation/*';
  beforeAll(() => {
    s = synthSpendguard();
  });

  it('EventBridge Scheduler invokes the reconciliation function once a day', () => {
    s.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(0 6 * * ? *)',
      Target: Match.objectLike({
        Arn: { 'Fn::GetAtt': [idAt(s.template, 'Reconciliation/Function'), 'Arn'] },
        Input: '{}',
        RetryPolicy: Match.objectLike({ MaximumRetryAttempts: 2 }),
      }),
    });
  });

  it('runs the lambdas/reconciliation handler with its settings and the credential prefix', () => {
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Reconciliation'),
      Timeout: 300,
      Environment: {
        Variables: Match.objectLike({
          RECONCILIATION_SECRET_PREFIX: 'Spendguard/reconciliation',
          RECONCILIATION_WINDOW_DAYS: '7',
          RECONCILIATION_UNTRACKED_ALERT_USD: '1',
          RECONCILIATION_ACCOUNT_ID: { Ref: 'AWS::AccountId' },
          NOTIFY_TOPIC_ARN: { Ref: idAt(s.template, 'Observability/Topic') },
        }),
      },
    });
  });

  it('reads the stored credentials (never writes them), its items, and publishes notifications', () => {
    const data = `<${idAt(s.template, 'Data/Data')}.Arn>`;
    expect(functionPermissions(s.template, 'Reconciliation/Function')).toEqual(
      [
        `dynamodb:GetItem ${data}`,
        `dynamodb:PutItem ${data}`,
        `dynamodb:Query ${data}`,
        `dynamodb:Query ${data}/index/gsi1`,
        `secretsmanager:DescribeSecret ${secrets}`,
        `secretsmanager:GetSecretValue ${secrets}`,
        `sns:Publish <${idAt(s.template, 'Observability/Topic')}>`,
        // The topic is encrypted with a customer managed key.
        `kms:Decrypt <${idAt(s.template, 'Observability/TopicKey')}.Arn>`,
        `kms:GenerateDataKey* <${idAt(s.template, 'Observability/TopicKey')}.Arn>`,
        // Bedrock reconciliation: the account's token metrics (no resource-level permissions exist)
        // and this account's application inference profiles.
        'cloudwatch:GetMetricData *',
        'cloudwatch:ListMetrics *',
        'bedrock:GetInferenceProfile arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:application-inference-profile/*',
      ].sort(),
    );
  });

  it('the API function knows the account an organization claims for Bedrock, and cannot read its metrics', () => {
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('API'),
      Environment: {
        Variables: Match.objectLike({ RECONCILIATION_ACCOUNT_ID: { Ref: 'AWS::AccountId' } }),
      },
    });
    expect(functionPermissions(s.template, 'Api/Api').filter((p) => p.startsWith('cloudwatch:'))).toEqual([]);
  });

  it('lets the API function store, describe and delete credentials under the same prefix, never read one', () => {
    const api = functionPermissions(s.template, 'Api/Api').filter(
      (p) => p.startsWith('secretsmanager:') && p.includes('reconciliation'),
    );
    expect(api).toEqual(
      ['CreateSecret', 'DeleteSecret', 'DescribeSecret', 'PutSecretValue', 'RestoreSecret'].map(
        (a) => `secretsmanager:${a} ${secrets}`,
      ),
    );
    expect(api.some((p) => p.startsWith('secretsmanager:GetSecretValue'))).toBe(false);
  });

  it('the on-demand run invokes the reconciliation function (the API may invoke it and nothing else)', () => {
    const fn = idAt(s.template, 'Reconciliation/Function');
    const invokes = functionPermissions(s.template, 'Api/Api').filter((p) => p.startsWith('lambda:'));
    expect(invokes).toEqual([`lambda:InvokeFunction <${fn}.Arn>`]);
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: Match.anyValue(),
      Environment: {
        Variables: Match.objectLike({ RECONCILIATION_FUNCTION_NAME: { Ref: fn } }),
      },
    });
  });
});
