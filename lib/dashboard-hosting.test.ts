import { Match } from 'aws-cdk-lib/assertions';
import { describeWithHandlers, idAt, resource, synthSpendguard, type Synthesized } from './test-helpers';

interface DistributionConfig {
  DefaultRootObject: string;
  DefaultCacheBehavior: Record<string, unknown>;
  Origins: Array<Record<string, unknown>>;
  CustomErrorResponses: unknown[];
}

describeWithHandlers('SpendguardDashboardHosting', () => {
  let s: Synthesized;
  let bucketId: string;
  let distributionId: string;
  let config: DistributionConfig;
  beforeAll(() => {
    s = synthSpendguard();
    bucketId = idAt(s.template, 'Dashboard/Bucket');
    distributionId = idAt(s.template, 'Dashboard/Distribution');
    config = (resource(s.template, distributionId).Properties as { DistributionConfig: DistributionConfig })
      .DistributionConfig;
  });

  it('keeps the site in a private, encrypted bucket', () => {
    expect(resource(s.template, bucketId).Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    });
    expect(resource(s.template, bucketId).Properties?.WebsiteConfiguration).toBeUndefined();
  });

  it('serves it through CloudFront with Origin Access Control, readable only by this distribution', () => {
    s.template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: {
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      },
    });
    expect(config.Origins[0]).toMatchObject({
      OriginAccessControlId: {
        'Fn::GetAtt': [idAt(s.template, 'Dashboard/Distribution/Origin1/S3OriginAccessControl'), 'Id'],
      },
      S3OriginConfig: { OriginAccessIdentity: '' },
    });
    s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 's3:GetObject',
            Principal: { Service: 'cloudfront.amazonaws.com' },
            Condition: {
              StringEquals: {
                'AWS:SourceArn': Match.objectLike({
                  'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: distributionId }])]),
                }),
              },
            },
          }),
        ]),
      },
    });
  });

  it('answers unknown paths with index.html (single-page app) and redirects HTTP to HTTPS', () => {
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.CustomErrorResponses).toEqual([
      { ErrorCode: 403, ResponseCode: 200, ResponsePagePath: '/index.html', ErrorCachingMinTTL: 0 },
      { ErrorCode: 404, ResponseCode: 200, ResponsePagePath: '/index.html', ErrorCachingMinTTL: 0 },
    ]);
    expect(config.DefaultCacheBehavior).toMatchObject({ ViewerProtocolPolicy: 'redirect-to-https' });
  });

  it('lets only administrators create users, each with an immutable custom:orgId', () => {
    s.template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      Schema: Match.arrayWith([
        Match.objectLike({ Name: 'orgId', AttributeDataType: 'String', Mutable: false }),
      ]),
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 12 }) },
    });
  });

  it('gives the dashboard a public PKCE code-flow client that reads but cannot write orgId', () => {
    const client = resource(s.template, idAt(s.template, 'Dashboard/UserPool/Dashboard'))
      .Properties as Record<string, unknown> & { ReadAttributes: string[]; WriteAttributes: string[] };
    const dashboardUrl = {
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']],
    };
    expect(client).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email'],
      CallbackURLs: [dashboardUrl],
      LogoutURLs: [dashboardUrl],
      SupportedIdentityProviders: ['COGNITO'],
    });
    expect(client.ReadAttributes).toContain('custom:orgId');
    expect(client.WriteAttributes.length).toBeGreaterThan(0);
    expect(client.WriteAttributes).not.toContain('custom:orgId');
  });

  it('writes config.json (API, proxy and Cognito settings) at deploy and invalidates the distribution', () => {
    s.template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketName: { Ref: bucketId },
      DistributionId: { Ref: distributionId },
      DistributionPaths: ['/*'],
      SourceMarkers: Match.arrayWith([
        Match.objectLike({
          // apiUrl: the API's WAF distribution (on by default), not the execute-api URL.
          '<<marker:0xbaba:0>>': { 'Fn::GetAtt': [idAt(s.template, 'ApiWaf/Distribution'), 'DomainName'] },
          '<<marker:0xbaba:1>>': { 'Fn::GetAtt': [idAt(s.template, 'Edge/Proxy'), 'DomainName'] },
          '<<marker:0xbaba:2>>': { Ref: idAt(s.template, 'Dashboard/UserPool') },
          '<<marker:0xbaba:3>>': { Ref: idAt(s.template, 'Dashboard/UserPool/Dashboard') },
        }),
      ]),
    });
  });

  it('sends a Content-Security-Policy (own scripts only, no framing) with the other security headers', () => {
    const policies = s.template.findResources('AWS::CloudFront::ResponseHeadersPolicy');
    const ids = Object.keys(policies).filter((id) => id.startsWith('SpendguardDashboard'));
    expect(ids).toHaveLength(1);
    expect(config.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: ids[0] });
    const headers = (
      policies[ids[0]!] as {
        Properties: { ResponseHeadersPolicyConfig: { SecurityHeadersConfig: Record<string, any> } }; // eslint-disable-line @typescript-eslint/no-explicit-any
      }
    ).Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = JSON.stringify(headers.ContentSecurityPolicy.ContentSecurityPolicy);
    for (const directive of [
      "default-src 'self'",
      "script-src 'self';",
      "object-src 'none'",
      "frame-ancestors 'none'",
      'connect-src',
      'amazoncognito.com',
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toContain('unsafe-eval');
    expect(headers.ContentSecurityPolicy.Override).toBe(true);
    expect(headers.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(headers.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: 31536000 });
  });

  it('creates the three role groups in the user pool', () => {
    const groups = Object.values(s.template.findResources('AWS::Cognito::UserPoolGroup')).map(
      (g) => (g as { Properties: { GroupName: string; UserPoolId: unknown } }).Properties,
    );
    expect(groups.map((g) => g.GroupName).sort()).toEqual(['admin', 'member', 'viewer']);
    for (const g of groups) expect(g.UserPoolId).toEqual({ Ref: idAt(s.template, 'Dashboard/UserPool') });
  });
});
