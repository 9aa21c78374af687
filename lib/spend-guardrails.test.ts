import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { readSpendguardContext } from './spendguard-stack';
import { SpendGuardrails, type SpendGuardrailsProps, validateSpendGuardrailsProps } from './spend-guardrails';
import { describeWithHandlers, synthSpendguard } from './test-helpers';

describe('SpendGuardrails props validation (before anything is created)', () => {
  it.each<[string, SpendGuardrailsProps, RegExp]>([
    [
      'a replica in the home region',
      { replicaRegions: ['eu-west-1'] },
      /must not contain the stack's own region \(eu-west-1\)/,
    ],
    ['a malformed region', { replicaRegions: ['Europe'] }, /replicaRegions: 'Europe' is not a region name/],
    ['a region twice', { replicaRegions: ['us-east-1', 'us-east-1'] }, /contains a region twice/],
    [
      'TLS below 1.2',
      { minimumTlsVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_1_2016 },
      /minimumTlsVersion TLSv1.1_2016 is below TLS 1.2/,
    ],
    [
      'a TLS minimum without a custom domain',
      { minimumTlsVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_3_2025 },
      /minimumTlsVersion needs proxyDomain or dashboardDomain/,
    ],
    [
      'an origin read timeout over 180 s',
      { originReadTimeout: Duration.seconds(181) },
      /originReadTimeout must be 1–180 seconds .*; got 181/,
    ],
    ['a flag cache over a minute', { flagCacheTtl: Duration.minutes(2) }, /flagCacheTtl above 60 seconds/],
    ['an invalid alarm e-mail', { alarmEmail: 'ops' }, /alarmEmail 'ops' is not an e-mail address/],
  ])('rejects %s with a message naming the prop', (_name, props, message) => {
    expect(() => validateSpendGuardrailsProps(props, 'eu-west-1')).toThrow(message);
  });

  it('refuses a stack without an explicit region, before creating any resource', () => {
    const stack = new Stack(new App(), 'Agnostic');
    expect(() => new SpendGuardrails(stack, 'G')).toThrow(/needs a stack with an explicit region/);
    expect(stack.node.findAll().length).toBe(2); // the stack and the (empty) construct
  });

  it('accepts the defaults and a full custom configuration', () => {
    expect(() => validateSpendGuardrailsProps({}, 'us-west-2')).not.toThrow();
    expect(() =>
      validateSpendGuardrailsProps(
        {
          replicaRegions: ['us-east-1', 'eu-central-1'],
          minimumTlsVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_3_2025,
          dashboardDomain: { domainName: 'x.example.com', certificate: undefined as never },
          originReadTimeout: Duration.seconds(180),
          alarmEmail: 'ops@example.com',
        },
        'us-west-2',
      ),
    ).not.toThrow();
  });
});

describe('readSpendguardContext (cdk.json / -c)', () => {
  const read = (context: Record<string, unknown>) => readSpendguardContext(new App({ context })).props;

  it('drops the home region from replicaRegions and reads lists given on the command line', () => {
    expect(
      read({ region: 'eu-west-1', replicaRegions: ['us-east-1', 'eu-west-1'] }).guardrails?.replicaRegions,
    ).toEqual(['us-east-1']);
    expect(
      read({ region: 'us-west-2', replicaRegions: 'eu-west-1, ap-northeast-1' }).guardrails?.replicaRegions,
    ).toEqual(['eu-west-1', 'ap-northeast-1']);
  });

  it('maps removalPolicy, the runtime and the custom domains', () => {
    const props = read({
      region: 'us-west-2',
      removalPolicy: 'destroy',
      lambdaRuntime: 'nodejs22.x',
      proxyDomainName: 'p.example.com',
      proxyCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/x',
      originSecretVersionId: 'v-2',
    });
    expect(props.guardrails?.removalPolicy).toBe(RemovalPolicy.DESTROY);
    expect(props.guardrails?.originSecretVersionId).toBe('v-2');
    expect(props.guardrails?.lambdaRuntime?.name).toBe('nodejs22.x');
    expect(props.proxyDomain).toEqual({
      domainName: 'p.example.com',
      certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/x',
    });
    expect(props.env).toMatchObject({ region: 'us-west-2' });
  });

  it('rejects half a custom domain and an unknown runtime', () => {
    expect(() => read({ proxyDomainName: 'p.example.com' })).toThrow(
      /proxyDomainName and proxyCertificateArn go together/,
    );
    expect(() => read({ lambdaRuntime: 'nodejs8.10x' })).toThrow(/unknown runtime/);
  });
});

describeWithHandlers('SpendguardStack outputs', () => {
  it('outputs the proxy, API and dashboard URLs and what operators need', () => {
    const { template } = synthSpendguard();
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs).toEqual(
      expect.arrayContaining([
        'ProxyUrl',
        'ApiUrl',
        'DashboardUrl',
        'UserPoolId',
        'UserPoolClientId',
        'HostedUiUrl',
        'AlarmTopicArn',
        'EventsStreamName',
        'PricingDeadLetterQueueUrl',
        'GuardrailDeadLetterQueueUrl',
      ]),
    );
  });
});
