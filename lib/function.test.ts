import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { esbuildTarget, lambdaEntry, SpendguardFunction } from './function';

describe('SpendguardFunction', () => {
  let template: Template;
  beforeAll(() => {
    // No bundling (aws:cdk:bundling-stacks empty): only the construct's settings are under test.
    const app = new App({
      context: { 'aws:cdk:bundling-stacks': [] },
      builtinCloudFormationValidation: false,
    });
    const stack = new Stack(app, 'Test', { env: { account: '123456789012', region: 'eu-west-1' } });
    new SpendguardFunction(stack, 'Fn', {
      name: 'price-refresh',
      environment: { EXTRA: 'yes', POWERTOOLS_LOG_LEVEL: 'DEBUG' },
      defaults: { logRetention: logs.RetentionDays.ONE_WEEK },
    });
    template = Template.fromStack(stack);
  });

  it('defaults to Node.js 22 on ARM64 with active tracing, 512 MB and 10 s', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      MemorySize: 512,
      Timeout: 10,
      Handler: 'index.handler',
    });
  });

  it('merges the caller’s environment over the Powertools defaults instead of replacing them', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: {
          POWERTOOLS_SERVICE_NAME: 'price-refresh',
          POWERTOOLS_METRICS_NAMESPACE: 'Spendguard',
          POWERTOOLS_LOG_LEVEL: 'DEBUG',
          NODE_OPTIONS: '--enable-source-maps',
          EXTRA: 'yes',
        },
      },
    });
  });

  it('logs to its own log group with the retention, through a role without managed policies', () => {
    template.resourceCountIs('AWS::Logs::LogGroup', 1);
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
    template.hasResourceProperties('AWS::Lambda::Function', {
      LoggingConfig: { LogGroup: { Ref: Match.stringLikeRegexp('FnSupportLogGroup') } },
    });
    template.hasResourceProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
  });

  it('maps the runtime to the esbuild target and finds the entry (index.ts, else handler.ts exporting handler)', () => {
    expect(esbuildTarget(lambda.Runtime.NODEJS_20_X)).toBe('node20');
    expect(esbuildTarget(lambda.Runtime.NODEJS_22_X)).toBe('node22');
    expect(lambdaEntry('price-refresh')).toMatch(/lambdas\/price-refresh\/index\.ts$/);
    expect(lambdaEntry('edge-guard')).toMatch(/lambdas\/edge-guard\/handler\.ts$/);
  });
});
