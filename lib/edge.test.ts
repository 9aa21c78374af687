import { Match } from 'aws-cdk-lib/assertions';
import { PROVIDER_SLUGS } from './edge';
import {
  describeWithHandlers,
  DOMAIN_CONTEXT,
  idAt,
  permissionsOf,
  resource,
  synthSpendguard,
  type Synthesized,
} from './test-helpers';

const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

interface DistributionConfig {
  Comment: string;
  DefaultCacheBehavior: Record<string, unknown>;
  CacheBehaviors: Array<Record<string, unknown> & { PathPattern: string }>;
  Origins: Array<Record<string, unknown>>;
  ViewerCertificate?: Record<string, unknown>;
  Aliases?: string[];
  Logging?: Record<string, unknown>;
}

describeWithHandlers('SpendguardEdge (custom domains)', () => {
  let s: Synthesized;
  let proxy: DistributionConfig;
  beforeAll(() => {
    s = synthSpendguard({ context: DOMAIN_CONTEXT });
    proxy = (
      resource(s.template, idAt(s.template, 'Edge/Proxy')).Properties as {
        DistributionConfig: DistributionConfig;
      }
    ).DistributionConfig;
  });

  it('exposes the relay through a Function URL with auth type NONE in RESPONSE_STREAM mode', () => {
    s.template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      InvokeMode: 'RESPONSE_STREAM',
      TargetFunctionArn: { 'Fn::GetAtt': [idAt(s.template, 'Edge/Relay'), 'Arn'] },
    });
  });

  it('has one behaviour per provider slug, plus the default, all guarded, uncached, every method', () => {
    expect(proxy.CacheBehaviors.map((b) => b.PathPattern).sort()).toEqual(
      PROVIDER_SLUGS.map((p) => `/${p}/*`).sort(),
    );
    expect(PROVIDER_SLUGS).toEqual(expect.arrayContaining(['openai', 'anthropic', 'openrouter']));
    for (const behavior of [proxy.DefaultCacheBehavior, ...proxy.CacheBehaviors]) {
      expect(behavior).toMatchObject({
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        ViewerProtocolPolicy: 'https-only',
        Compress: false,
        LambdaFunctionAssociations: [
          {
            EventType: 'origin-request',
            IncludeBody: false,
            LambdaFunctionARN: { 'Fn::GetAtt': [idAt(s.template, 'Edge/Guard/ArnReader'), 'FunctionArn'] },
          },
        ],
      });
    }
  });

  it('adds the origin secret from Secrets Manager as a dynamic reference, never as a literal', () => {
    expect(proxy.Origins).toHaveLength(1);
    expect(proxy.Origins[0]).toMatchObject({
      CustomOriginConfig: {
        OriginProtocolPolicy: 'https-only',
        OriginSSLProtocols: ['TLSv1.2'],
        OriginReadTimeout: 120,
        OriginKeepaliveTimeout: 60,
      },
      OriginCustomHeaders: [
        {
          HeaderName: 'x-spendguard-origin-secret',
          HeaderValue: {
            'Fn::Join': [
              '',
              [
                '{{resolve:secretsmanager:',
                { Ref: idAt(s.template, 'Secrets/OriginSecret') },
                ':SecretString:::}}',
              ],
            ],
          },
        },
      ],
    });
  });

  it('serves the custom domain with TLS 1.2 (2021 ciphers) as the minimum, SNI, and no query-string logs', () => {
    expect(proxy.Aliases).toEqual([DOMAIN_CONTEXT.proxyDomainName]);
    expect(proxy.ViewerCertificate).toEqual({
      AcmCertificateArn: DOMAIN_CONTEXT.proxyCertificateArn,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    // Standard logs always carry the query string (Gemini's ?key=…): the proxy has none (15.9).
    expect(proxy.Logging).toBeUndefined();
  });

  it('creates the guard in the us-east-1 stack: x86_64, no environment variables, no tracing, short timeout', () => {
    // The guard, and the handler of CDK's LogRetention custom resource (its regional log groups).
    s.edgeTemplate.resourceCountIs('AWS::Lambda::Function', 2);
    s.edgeTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x', // cdk.json's lambdaRuntime
      Architectures: ['x86_64'],
      Handler: 'index.handler',
      Timeout: 5,
      Environment: Match.absent(),
      TracingConfig: Match.absent(),
    });
    s.edgeTemplate.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({ Principal: { Service: ['edgelambda.amazonaws.com', 'lambda.amazonaws.com'] } }),
        ],
      },
    });
  });

  it('lets the guard read flags in every table region and the pepper in us-east-1, nothing else', () => {
    const roleId =
      Object.keys(
        s.edgeTemplate.findResources('AWS::IAM::Role', {
          Properties: {
            AssumeRolePolicyDocument: {
              Statement: [
                Match.objectLike({ Principal: { Service: Match.arrayWith(['edgelambda.amazonaws.com']) } }),
              ],
            },
          },
        }),
      )[0] ?? '';
    const table = (region: string) =>
      `dynamodb:BatchGetItem arn:<AWS::Partition>:dynamodb:${region}:<AWS::AccountId>:table/Spendguard-Flags`;
    expect(permissionsOf(s.edgeTemplate, roleId)).toEqual(
      [
        table('ap-northeast-1'),
        table('eu-west-1'),
        table('us-east-1'),
        'secretsmanager:GetSecretValue arn:<AWS::Partition>:secretsmanager:us-east-1:<AWS::AccountId>:secret:Spendguard/pepper-??????',
      ].sort(),
    );
  });

  it('replicates the pepper to us-east-1, where the guard reads it by its fixed name', () => {
    s.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Name: 'Spendguard/pepper',
      ReplicaRegions: [{ Region: 'us-east-1' }],
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
  });
});
