import { Match } from 'aws-cdk-lib/assertions';
import { describeWithHandlers, idAt, resource, synthSpendguard, type Synthesized } from './test-helpers';

const CONSUMERS = ['Pipeline/PricingConsumer', 'Pipeline/GuardrailConsumer'];

describeWithHandlers('OpenTelemetry export (openTelemetry prop)', () => {
  let on: Synthesized;
  let off: Synthesized;
  beforeAll(() => {
    on = synthSpendguard({ context: { openTelemetry: 'cloudwatch', region: 'eu-west-1' } });
    off = synthSpendguard({ context: { region: 'eu-west-1' } });
  });

  it.each(CONSUMERS)('points %s at the region’s CloudWatch OTLP endpoints, signed with its role', (path) => {
    const fn = resource(on.template, idAt(on.template, path));
    expect((fn.Properties?.Environment as { Variables?: unknown } | undefined)?.Variables).toMatchObject({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://xray.eu-west-1.amazonaws.com/v1/traces',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://monitoring.eu-west-1.amazonaws.com/v1/metrics',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
      SPENDGUARD_OTEL_SIGV4: 'true',
    });
  });

  it.each(CONSUMERS)('grants %s’s role the X-Ray span and CloudWatch metric writes', (path) => {
    on.template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: idAt(on.template, `${path}Support/Role`) }],
      PolicyDocument: {
        // CDK merges the "*" statements (active tracing's X-Ray writes and these) into one.
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: Match.arrayWith([
              'cloudwatch:PutMetricData',
              'xray:PutSpans',
              'xray:PutSpansForIndexing',
            ]),
            Effect: 'Allow',
            Resource: '*',
          }),
        ]),
      },
    });
  });

  it('exports nothing and grants nothing without the prop (the default)', () => {
    const fns = off.template.findResources('AWS::Lambda::Function');
    for (const fn of Object.values(fns)) {
      const vars = (fn.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>;
      expect(Object.keys(vars).filter((k) => k.startsWith('OTEL_') || k === 'SPENDGUARD_OTEL_SIGV4')).toEqual(
        [],
      );
    }
    expect(JSON.stringify(off.template.findResources('AWS::IAM::Policy'))).not.toMatch(
      /PutSpans|PutMetricData/,
    );
  });
});
