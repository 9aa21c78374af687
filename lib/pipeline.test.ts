import { Match } from 'aws-cdk-lib/assertions';
import { describeWithHandlers, idAt, resource, synthSpendguard, type Synthesized } from './test-helpers';

describeWithHandlers('SpendguardPipeline', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthSpendguard();
  });

  it('creates an on-demand Kinesis stream encrypted with the AWS-managed key, kept 7 days', () => {
    s.template.resourceCountIs('AWS::Kinesis::Stream', 1);
    s.template.hasResourceProperties('AWS::Kinesis::Stream', {
      StreamModeDetails: { StreamMode: 'ON_DEMAND' },
      StreamEncryption: { EncryptionType: 'KMS', KeyId: 'alias/aws/kinesis' },
      RetentionPeriodHours: 168,
    });
  });

  it.each([
    ['pricing', 'Pipeline/PricingConsumer', 'Pipeline/PricingDeadLetters'],
    ['guardrail', 'Pipeline/GuardrailConsumer', 'Pipeline/GuardrailDeadLetters'],
  ])(
    'maps the stream to the %s consumer with bounded, ordered, partial-failure retries and a DLQ',
    (_n, fn, dlq) => {
      s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: idAt(s.template, fn) },
        EventSourceArn: { 'Fn::GetAtt': [idAt(s.template, 'Pipeline/Events'), 'Arn'] },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: 50,
        MaximumBatchingWindowInSeconds: 1,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 10,
        MaximumRecordAgeInSeconds: 6 * 3600,
        ParallelizationFactor: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: {
          OnFailure: { Destination: { 'Fn::GetAtt': [idAt(s.template, dlq), 'Arn'] } },
        },
      });
    },
  );

  it('encrypts both dead-letter queues (SQS-managed SSE), keeps messages 14 days and refuses plain HTTP', () => {
    for (const dlq of ['Pipeline/PricingDeadLetters', 'Pipeline/GuardrailDeadLetters']) {
      expect(resource(s.template, idAt(s.template, dlq)).Properties).toMatchObject({
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
      s.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: idAt(s.template, dlq) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('gives ingest the stream name and the table and secret variables its services read', () => {
    const env = (
      resource(s.template, idAt(s.template, 'Pipeline/Ingest')).Properties as {
        Environment: { Variables: Record<string, unknown> };
      }
    ).Environment.Variables;
    expect(Object.keys(env).sort()).toEqual(
      [
        'DATA_TABLE',
        'EVENTS_STREAM',
        'FLAGS_TABLE',
        'NODE_OPTIONS',
        // The API's WAF is on by default: ingest refuses calls that skip its CloudFront distribution.
        'ORIGIN_SECRET_ARN',
        'PEPPER_SECRET_ARN',
        'POWERTOOLS_LOG_LEVEL',
        'POWERTOOLS_METRICS_NAMESPACE',
        'POWERTOOLS_SERVICE_NAME',
      ].sort(),
    );
    expect(env.EVENTS_STREAM).toEqual({ Ref: idAt(s.template, 'Pipeline/Events') });
  });

  it('points the guardrail consumer at the notification topic and the price snapshot', () => {
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          POWERTOOLS_SERVICE_NAME: 'guardrail-consumer',
          NOTIFY_TOPIC_ARN: { Ref: idAt(s.template, 'Observability/Topic') },
          PRICES_KEY: 'prices/latest.json',
          PRICES_BUCKET: { Ref: idAt(s.template, 'Prices/Bucket') },
        }),
      },
    });
  });
});
