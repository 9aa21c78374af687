import { Match } from 'aws-cdk-lib/assertions';
import { GUARDRAIL_LAYERS } from './observability';
import { LAMBDA_EDGE_REGIONS } from './regions';
import { describeWithHandlers, idAt, resource, synthSpendguard, type Synthesized } from './test-helpers';

interface Widget {
  type: string;
  properties: { title?: string; metrics?: unknown[][]; markdown?: string };
}

describeWithHandlers('SpendguardObservability', () => {
  let s: Synthesized;
  let widgets: Widget[];
  const widget = (title: string): Widget => {
    const found = widgets.find((w) => w.properties.title === title);
    if (!found) throw new Error(`no widget '${title}'`);
    return found;
  };
  const expressions = (w: Widget): string[] =>
    (w.properties.metrics ?? [])
      .flatMap((m) =>
        m.filter(
          (x): x is { expression: string } => typeof x === 'object' && x !== null && 'expression' in x,
        ),
      )
      .map((x) => x.expression);

  beforeAll(() => {
    s = synthSpendguard({ context: { alarmEmail: 'ops@example.com' } });
    const body = (
      resource(s.template, idAt(s.template, 'Observability/Dashboard')).Properties as {
        DashboardBody: { 'Fn::Join': [string, unknown[]] };
      }
    ).DashboardBody['Fn::Join'][1]
      .map((p) => (typeof p === 'string' ? p : 'TOKEN'))
      .join('');
    widgets = (JSON.parse(body) as { widgets: Widget[] }).widgets;
  });

  it('graphs spend per minute in dollars (SpendNanoUsd / 1e9) and events ingested', () => {
    const spend = expressions(widget('Spend per minute (USD)'));
    expect(spend).toEqual(
      expect.arrayContaining([
        'spend / 1000000000',
        `SUM(SEARCH('Namespace="Spendguard" MetricName="SpendNanoUsd"', 'Sum', 60))`,
      ]),
    );
    expect(expressions(widget('Events ingested per minute')).join()).toContain('MetricName="EventsIngested"');
  });

  it('graphs trips by each of the five layers', () => {
    const trips = expressions(widget('Guardrail trips by layer'));
    expect(trips).toEqual(
      GUARDRAIL_LAYERS.map((l) => `SUM(SEARCH('Namespace="Spendguard" MetricName="Trips_${l}"', 'Sum', 60))`),
    );
  });

  it('graphs fail-opens of the guard in every regional edge cache region, and of the relay', () => {
    const failOpens = widget('Fail-opens (edge guard by region, relay)');
    const metrics = failOpens.properties.metrics ?? [];
    // The dashboard's own region (eu-west-1) is implicit; every other edge region is named.
    const guard = metrics.filter((m) => JSON.stringify(m).includes('GuardFailOpen'));
    const regions = guard.map((m) => (m.at(-1) as { region?: string }).region ?? 'eu-west-1');
    expect(regions.sort()).toEqual([...LAMBDA_EDGE_REGIONS].sort());
    // The relay's fail-open is a call forwarded with an unverified key: the metric it emits.
    expect(expressions(failOpens).join()).toContain('MetricName="RelayUnverified"');
    expect(expressions(failOpens).join()).toContain('MetricName="AdmissionFailOpen"');
  });

  it('graphs the hard cap at the relay, and loops and bypasses stopped at the origin', () => {
    const cap = expressions(widget('Hard cap at the relay (calls per minute)')).join();
    for (const m of ['AdmissionRefused', 'AdmissionStoreUnavailable', 'RelayUsageUnread', 'RelayEventFailed'])
      expect(cap).toContain(`MetricName="${m}"`);
    const origin = expressions(widget('Loops and bypasses stopped at the origin')).join();
    for (const m of ['RelayLoopHold', 'RelayLoopRefused', 'ApiOriginRefused', 'ApiOriginUnavailable'])
      expect(origin).toContain(`MetricName="${m}"`);
  });

  it('graphs proxy latency p50/p99, consumer iterator age, and dead-letter depth', () => {
    const latency = JSON.stringify(widget('Proxy latency (ms)').properties.metrics);
    expect(latency).toContain('"stat":"p50"');
    expect(latency).toContain('"stat":"p99"');
    // The relay function's duration: the proxy's whole-call latency as CloudWatch records it.
    expect(latency).toContain('"Duration"');
    const age = JSON.stringify(widget('Consumer iterator age (ms)').properties.metrics);
    expect(age.match(/IteratorAge/g)).toHaveLength(2);
    const dlq = JSON.stringify(widget('Dead letters (messages waiting)').properties.metrics);
    expect(dlq.match(/ApproximateNumberOfMessagesVisible/g)).toHaveLength(2);
  });

  it('sends every alarm (and its recovery) to the encrypted topic', () => {
    const alarms = s.template.findResources('AWS::CloudWatch::Alarm') as Record<
      string,
      { Properties: { AlarmActions: unknown[]; OKActions: unknown[] } }
    >;
    const topic = { Ref: idAt(s.template, 'Observability/Topic') };
    expect(Object.keys(alarms).length).toBeGreaterThanOrEqual(15);
    for (const alarm of Object.values(alarms)) {
      expect(alarm.Properties.AlarmActions).toEqual([topic]);
      expect(alarm.Properties.OKActions).toEqual([topic]);
    }
  });

  it('alarms on consumers falling behind and on dead letters', () => {
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: idAt(s.template, 'Pipeline/PricingConsumer') } }],
      Threshold: 60000,
      EvaluationPeriods: 5,
    });
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [idAt(s.template, 'Pipeline/GuardrailDeadLetters'), 'QueueName'] },
        },
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('encrypts the topic with a rotating customer key CloudWatch may use, enforces TLS, and subscribes the e-mail', () => {
    const keyId = idAt(s.template, 'Observability/TopicKey');
    s.template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    s.template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    s.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('keeps access logs in a bucket with ACLs enabled (CloudFront standard logging) that expires them', () => {
    expect(resource(s.template, idAt(s.template, 'Observability/AccessLogs')).Properties).toMatchObject({
      OwnershipControls: { Rules: [{ ObjectOwnership: 'ObjectWriter' }] },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 90, Status: 'Enabled' }] },
    });
  });
});
