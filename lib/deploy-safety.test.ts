/**
 * What a real AWS account needs beyond a first deploy (issue 14): long calls, edge versions, redeploy
 * after destroy, concurrency, regional edge logs, MFA, one runtime, and the optional WAF rule (the
 * API's own web ACL is lib/api-waf.test.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DEFAULT_LAMBDA_RUNTIME, LAMBDA_NODEJS_RUNTIME_DATES, REPO_ROOT } from './function';
import { LAMBDA_EDGE_REGIONS } from './regions';
import { retainedNames } from './retained-names';
import { validateSpendGuardrailsProps } from './spend-guardrails';
import { readSpendguardContext } from './spendguard-stack';
import { describeWithHandlers, OPTIONS_CONTEXT, synthSpendguard, type Synthesized } from './test-helpers';

describeWithHandlers('deploy safety (default configuration)', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthSpendguard();
  });

  it('gives CloudFront 120 s for the relay’s bytes and keeps idle connections 60 s', () => {
    s.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Comment: 'Spendguard proxy',
        Origins: [
          Match.objectLike({
            CustomOriginConfig: Match.objectLike({ OriginReadTimeout: 120, OriginKeepaliveTimeout: 60 }),
          }),
        ],
      }),
    });
  });

  it('retains every version of the edge guard (Lambda refuses to delete a replicated version)', () => {
    s.edgeTemplate.hasResource('AWS::Lambda::Version', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('reserves concurrency for the relay, and for no other function', () => {
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Proxy origin'),
      ReservedConcurrentExecutions: 100,
    });
    const reserved = Object.values(
      s.template.findResources('AWS::Lambda::Function', {
        Properties: { ReservedConcurrentExecutions: Match.anyValue() },
      }),
    );
    expect(reserved).toHaveLength(1);
  });

  it('sets a retention on the guard’s log group in every region where Lambda@Edge can run it', () => {
    for (const region of LAMBDA_EDGE_REGIONS) {
      s.edgeTemplate.hasResourceProperties('Custom::LogRetention', {
        LogGroupName: {
          'Fn::Join': ['', ['/aws/lambda/us-east-1.', { Ref: Match.stringLikeRegexp('^Guard') }]],
        },
        LogGroupRegion: region,
        RetentionInDays: 30,
      });
    }
  });

  it('logs the forecast state machine under /aws/vendedlogs/states/', () => {
    s.template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/aws/vendedlogs/states/Spendguard-forecast',
      RetentionInDays: 30,
    });
  });

  it('requires a TOTP second factor of every dashboard user', () => {
    s.template.hasResourceProperties('AWS::Cognito::UserPool', {
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
    });
  });

  it('runs every function, the edge guard included, on the one default runtime', () => {
    const runtimes = (t: Synthesized['template']) =>
      Object.values(t.findResources('AWS::Lambda::Function'))
        .map(
          (r) =>
            r.Properties as {
              Runtime: string;
              Description?: unknown;
              Environment?: { Variables?: Record<string, unknown> };
            },
        )
        // Spendguard's own functions (aws-cdk-lib's deploy-time handlers choose their own runtime).
        .filter(
          (p) =>
            p.Environment?.Variables?.POWERTOOLS_SERVICE_NAME !== undefined ||
            (typeof p.Description === 'string' && p.Description.startsWith('Spendguard edge guard')),
        )
        .map((p) => p.Runtime);
    expect(new Set([...runtimes(s.template), ...runtimes(s.edgeTemplate)])).toEqual(
      new Set([DEFAULT_LAMBDA_RUNTIME.name]),
    );
  });

  it('has no proxy web ACL unless asked for (it bills per request); the API’s is on by default', () => {
    const descriptions = Object.values(s.edgeTemplate.findResources('AWS::WAFv2::WebACL')).map(
      (a) => (a as { Properties: { Description: string } }).Properties.Description,
    );
    expect(descriptions).toEqual([expect.stringMatching(/^Spendguard API/)]);
    s.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });
});

describeWithHandlers('deploy safety (options)', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthSpendguard({ context: OPTIONS_CONTEXT });
  });

  it('passes a raised read and keep-alive timeout through', () => {
    s.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Origins: [
          Match.objectLike({
            CustomOriginConfig: Match.objectLike({ OriginReadTimeout: 180, OriginKeepaliveTimeout: 90 }),
          }),
        ],
      }),
    });
  });

  it('reserves the chosen relay concurrency', () => {
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Proxy origin'),
      ReservedConcurrentExecutions: 250,
    });
  });

  it('attaches a us-east-1 web ACL with a per-IP rate rule to the proxy, read back across regions', () => {
    s.edgeTemplate.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({
          Action: { Block: {} },
          Statement: {
            RateBasedStatement: { Limit: 2000, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
          },
        }),
      ],
    });
    s.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Comment: 'Spendguard proxy',
        WebACLId: { 'Fn::GetAtt': [Match.stringLikeRegexp('ProxyWebAclArnReader'), 'Parameter.Value'] },
      }),
    });
  });

  it('makes TOTP optional when asked', () => {
    s.template.hasResourceProperties('AWS::Cognito::UserPool', { MfaConfiguration: 'OPTIONAL' });
  });

  it('names the retained resources of a later generation apart from the ones a destroy left behind', () => {
    s.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', { TableName: 'Spendguard-g2-Flags' });
    s.template.hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'Spendguard-g2/pepper' });
    s.template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/aws/vendedlogs/states/Spendguard-g2-forecast',
    });
    // The guard reads the same table and pepper (baked in at synth).
    s.edgeTemplate.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'secretsmanager:GetSecretValue',
            Resource: {
              'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(':secret:Spendguard-g2/pepper-')])],
            },
          }),
        ]),
      },
    });
  });
});

describe('deploy settings', () => {
  const context = (ctx: Record<string, unknown>) =>
    readSpendguardContext(new App({ context: { region: 'eu-west-1', ...ctx } })).props.guardrails ?? {};

  it('reads relay concurrency, WAF, MFA and generation from context', () => {
    expect(context({ relayReservedConcurrency: 'none' }).relayReservedConcurrency).toBeNull();
    expect(context({ relayReservedConcurrency: '40' }).relayReservedConcurrency).toBe(40);
    expect(context({}).relayReservedConcurrency).toBeUndefined();
    expect(context({ proxyRateLimitPerIp: '500' }).proxyRateLimitPerIp).toBe(500);
    expect(context({ mfaRequired: 'false' }).mfaRequired).toBe(false);
    expect(context({ resourceGeneration: '3' }).resourceGeneration).toBe(3);
  });

  it('refuses timeouts, concurrency and rate limits outside what AWS accepts, naming the quota', () => {
    const check = (props: Parameters<typeof validateSpendGuardrailsProps>[0]) => () =>
      validateSpendGuardrailsProps(props, 'eu-west-1');
    expect(check({ originReadTimeout: Duration.seconds(181) })).toThrow(/Response timeout per origin/);
    expect(check({ originReadTimeout: Duration.seconds(180) })).not.toThrow();
    expect(check({ originKeepaliveTimeout: Duration.seconds(200) })).toThrow(/Keep-alive timeout per origin/);
    expect(check({ relayReservedConcurrency: 0 })).toThrow(/relayReservedConcurrency/);
    expect(check({ relayReservedConcurrency: 2.5 })).toThrow(/relayReservedConcurrency/);
    expect(check({ relayReservedConcurrency: null })).not.toThrow();
    expect(check({ proxyRateLimitPerIp: 5 })).toThrow(/proxyRateLimitPerIp/);
  });

  it('derives retained names from the stack and generation, keeping generation 1’s historical names', () => {
    expect(retainedNames('Acme')).toEqual({
      flagsTable: 'Acme-Flags',
      pepperSecret: 'Acme/pepper',
      forecastLogGroup: '/aws/vendedlogs/states/Acme-forecast',
    });
    expect(retainedNames('Acme', 7).flagsTable).toBe('Acme-g7-Flags');
    expect(() => retainedNames('Acme', 0)).toThrow(/resourceGeneration/);
    expect(() => retainedNames('Acme', 1.5)).toThrow(/resourceGeneration/);
  });

  it('has one default runtime: the construct, cdk.json and docs/deploy.md agree, with AWS’s dates', () => {
    const cdkJson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
      context: { lambdaRuntime: string };
    };
    expect(cdkJson.context.lambdaRuntime).toBe(DEFAULT_LAMBDA_RUNTIME.name);
    expect(DEFAULT_LAMBDA_RUNTIME).toBe(lambda.Runtime.NODEJS_22_X);
    const dates = LAMBDA_NODEJS_RUNTIME_DATES[DEFAULT_LAMBDA_RUNTIME.name];
    expect(dates).toBeDefined();
    const deployDoc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'deploy.md'), 'utf8');
    expect(deployDoc).toContain(`\`${DEFAULT_LAMBDA_RUNTIME.name}\``);
    for (const date of Object.values(dates ?? {})) expect(deployDoc).toContain(date);
  });
});
