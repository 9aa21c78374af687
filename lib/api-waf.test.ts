import { Match } from 'aws-cdk-lib/assertions';
import { App } from 'aws-cdk-lib';
import { validateSpendGuardrailsProps } from './spend-guardrails';
import { readSpendguardContext } from './spendguard-stack';
import {
  describeWithHandlers,
  DOMAIN_CONTEXT,
  functionPermissions,
  idAt,
  OPTIONS_CONTEXT,
  resource,
  synthSpendguard,
  type Synthesized,
} from './test-helpers';

interface Resource {
  Properties: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** CloudFront's managed policies, by the ids AWS documents (not read from aws-cdk-lib). */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';
const ROUTE_FUNCTIONS = ['Pipeline/Ingest', 'Api/Enforce', 'Api/Api'];

function distributionWithComment(s: Synthesized, comment: string): Resource | undefined {
  return Object.values(
    s.template.findResources('AWS::CloudFront::Distribution') as Record<string, Resource>,
  ).find((d) => d.Properties.DistributionConfig.Comment === comment);
}

function webAcls(s: Synthesized): Resource[] {
  return [s.template, s.edgeTemplate].flatMap(
    (t) => Object.values(t.findResources('AWS::WAFv2::WebACL')) as Resource[],
  );
}

function contentSecurityPolicy(s: Synthesized): string {
  const policies = s.template.findResources('AWS::CloudFront::ResponseHeadersPolicy') as Record<
    string,
    Resource
  >;
  const id = Object.keys(policies).find((k) => k.startsWith('SpendguardDashboard'))!;
  return JSON.stringify(
    policies[id]!.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy
      .ContentSecurityPolicy,
  );
}

describeWithHandlers('API WAF (on by default)', () => {
  let s: Synthesized;
  let api: Resource;
  beforeAll(() => {
    s = synthSpendguard();
    api = distributionWithComment(s, 'Spendguard API')!;
  });

  it('creates a us-east-1 CLOUDFRONT web ACL: per-IP rate rule, then the AWS common and known-bad-inputs groups', () => {
    s.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    s.edgeTemplate.resourceCountIs('AWS::WAFv2::WebACL', 1);
    s.edgeTemplate.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({
          Name: 'RateLimitPerIp',
          Priority: 0,
          Action: { Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'rateLimited' } } },
          Statement: {
            RateBasedStatement: { Limit: 10000, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
          },
        }),
        Match.objectLike({
          Priority: 1,
          OverrideAction: { None: {} },
          Statement: {
            ManagedRuleGroupStatement: {
              VendorName: 'AWS',
              Name: 'AWSManagedRulesCommonRuleSet',
              // Ingest batches are up to 1 MB: the 8 KB body rule only counts.
              RuleActionOverrides: [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }],
            },
          },
        }),
        Match.objectLike({
          Priority: 2,
          OverrideAction: { None: {} },
          Statement: {
            ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesKnownBadInputsRuleSet' },
          },
        }),
      ],
    });
  });

  it('keeps request headers (keys, tokens) out of WAF sampled requests', () => {
    const acl = webAcls(s)[0]!.Properties;
    const configs = [acl.VisibilityConfig, ...acl.Rules.map((r: any) => r.VisibilityConfig)]; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const c of configs) expect(c.SampledRequestsEnabled).toBe(false);
  });

  it('associates the ACL with the API distribution (ARN read back from us-east-1)', () => {
    expect(api).toBeDefined();
    expect(api.Properties.DistributionConfig.WebACLId).toEqual({
      'Fn::GetAtt': [idAt(s.template, 'ApiWaf/ApiWebAclArnReader/Resource'), 'Parameter.Value'],
    });
    s.edgeTemplate.hasResourceProperties('AWS::SSM::Parameter', {
      Name: '/spendguard/Spendguard/api-web-acl-arn',
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('ApiWebAcl'), 'Arn'] },
    });
  });

  it('sends everything to the execute-api origin over HTTPS with the origin secret header, caching nothing', () => {
    const config = api.Properties.DistributionConfig;
    expect(config.Origins).toHaveLength(1);
    const origin = config.Origins[0];
    expect(JSON.stringify(origin.DomainName)).toContain(idAt(s.template, 'Api/HttpApi'));
    expect(JSON.stringify(origin.DomainName)).toContain('.execute-api.eu-west-1.');
    expect(origin.CustomOriginConfig).toMatchObject({
      OriginProtocolPolicy: 'https-only',
      OriginSSLProtocols: ['TLSv1.2'],
    });
    const secretRef = { Ref: idAt(s.template, 'Secrets/OriginSecret') };
    expect(origin.OriginCustomHeaders).toEqual([
      {
        HeaderName: 'x-spendguard-origin-secret',
        HeaderValue: {
          'Fn::Join': ['', ['{{resolve:secretsmanager:', secretRef, ':SecretString:::}}']],
        },
      },
    ]);
    expect(config.DefaultCacheBehavior).toMatchObject({
      CachePolicyId: CACHING_DISABLED,
      OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
    });
  });

  it('has every function behind a route read the origin secret (the check in their shared entry)', () => {
    const secretRef = { Ref: idAt(s.template, 'Secrets/OriginSecret') };
    for (const fn of ROUTE_FUNCTIONS) {
      const id = idAt(s.template, fn);
      expect({ fn, env: resource(s.template, id).Properties?.Environment }).toMatchObject({
        fn,
        env: { Variables: { ORIGIN_SECRET_ARN: secretRef } },
      });
      const vars = (resource(s.template, id).Properties as Resource['Properties']).Environment
        ?.Variables as Record<string, unknown>;
      expect({ fn, mode: vars.ORIGIN_CHECK_MODE }).toEqual({ fn, mode: undefined });
      expect(functionPermissions(s.template, fn)).toContain(
        `secretsmanager:GetSecretValue <${idAt(s.template, 'Secrets/OriginSecret')}>`,
      );
    }
  });

  it('publishes the CloudFront URL as ApiUrl; the dashboard CSP allows CloudFront, not execute-api', () => {
    const domain = { 'Fn::GetAtt': [idAt(s.template, 'ApiWaf/Distribution'), 'DomainName'] };
    expect(s.template.findOutputs('ApiUrl').ApiUrl?.Value).toEqual({
      'Fn::Join': ['', ['https://', domain]],
    });
    // On the generated dashboard domain the exact API URL would be a reference cycle (the API's CORS names it).
    const csp = contentSecurityPolicy(s);
    expect(csp).toContain("connect-src 'self' https://*.cloudfront.net https://");
    expect(csp).not.toContain('execute-api');
  });
});

describeWithHandlers('API WAF with a custom dashboard domain', () => {
  it('names the exact API distribution in the dashboard CSP', () => {
    const s = synthSpendguard({ context: DOMAIN_CONTEXT });
    const domain = { 'Fn::GetAtt': [idAt(s.template, 'ApiWaf/Distribution'), 'DomainName'] };
    const csp = contentSecurityPolicy(s);
    expect(csp).toContain(`connect-src 'self' https://",${JSON.stringify(domain)},"`);
    expect(csp).not.toContain('*.cloudfront.net');
    expect(csp).not.toContain('execute-api');
  });
});

describeWithHandlers('API WAF turned off (apiWaf: false)', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthSpendguard({ context: OPTIONS_CONTEXT });
  });

  it('creates no API distribution and no API web ACL (the proxy’s optional ACL stays)', () => {
    expect(distributionWithComment(s, 'Spendguard API')).toBeUndefined();
    const descriptions = webAcls(s).map((a) => a.Properties.Description as string);
    expect(descriptions).toEqual([expect.stringMatching(/^Spendguard proxy/)]);
    s.edgeTemplate.resourcePropertiesCountIs(
      'AWS::SSM::Parameter',
      { Name: '/spendguard/Spendguard/api-web-acl-arn' },
      0,
    );
  });

  it('adds no origin check to the functions behind the routes', () => {
    for (const fn of ROUTE_FUNCTIONS) {
      const vars = (resource(s.template, idAt(s.template, fn)).Properties as Resource['Properties'])
        .Environment?.Variables as Record<string, unknown>;
      expect({ fn, has: 'ORIGIN_SECRET_ARN' in vars }).toEqual({ fn, has: false });
      expect(functionPermissions(s.template, fn).join('\n')).not.toContain('OriginSecret');
    }
  });

  it('publishes the execute-api URL as ApiUrl and allows the region’s HTTP APIs in the dashboard CSP', () => {
    const url = JSON.stringify(s.template.findOutputs('ApiUrl').ApiUrl?.Value);
    expect(url).toContain(idAt(s.template, 'Api/HttpApi'));
    expect(url).toContain('.execute-api.eu-west-1.');
    const csp = contentSecurityPolicy(s);
    expect(csp).toContain("connect-src 'self' https://*.execute-api.eu-west-1.");
    expect(csp).not.toContain('cloudfront.net');
  });
});

describeWithHandlers('API WAF during an upgrade (apiOriginCheck: report)', () => {
  it('keeps the distribution, its ACL and the CloudFront ApiUrl; the functions only report', () => {
    const s = synthSpendguard({ context: { apiOriginCheck: 'report' } });
    expect(distributionWithComment(s, 'Spendguard API')).toBeDefined();
    expect(webAcls(s)).toHaveLength(1);
    expect(s.template.findOutputs('ApiUrl').ApiUrl?.Value).toEqual({
      'Fn::Join': [
        '',
        ['https://', { 'Fn::GetAtt': [idAt(s.template, 'ApiWaf/Distribution'), 'DomainName'] }],
      ],
    });
    for (const fn of ROUTE_FUNCTIONS) {
      const vars = (resource(s.template, idAt(s.template, fn)).Properties as Resource['Properties'])
        .Environment?.Variables as Record<string, unknown>;
      expect({ fn, mode: vars.ORIGIN_CHECK_MODE, secret: vars.ORIGIN_SECRET_ARN }).toEqual({
        fn,
        mode: 'report',
        secret: { Ref: idAt(s.template, 'Secrets/OriginSecret') },
      });
    }
  });
});

describe('API WAF settings', () => {
  const context = (ctx: Record<string, unknown>) =>
    readSpendguardContext(new App({ context: { region: 'eu-west-1', ...ctx } })).props.guardrails ?? {};

  it('reads apiWaf and apiRateLimitPerIp from context (on unless apiWaf is false)', () => {
    expect(context({}).apiWaf).toBeUndefined();
    expect(context({ apiWaf: 'false' }).apiWaf).toBe(false);
    expect(context({ apiWaf: false }).apiWaf).toBe(false);
    expect(context({ apiWaf: 'true' }).apiWaf).toBeUndefined();
    expect(context({ apiRateLimitPerIp: '500' }).apiRateLimitPerIp).toBe(500);
    expect(context({}).apiOriginCheck).toBeUndefined();
    expect(context({ apiOriginCheck: 'report' }).apiOriginCheck).toBe('report');
  });

  it("refuses a rate limit outside AWS WAF's range, or one without the WAF", () => {
    const check = (props: Record<string, unknown>) => () => validateSpendGuardrailsProps(props, 'eu-west-1');
    for (const limit of [9, 2_000_000_001, 10.5]) {
      expect(check({ apiRateLimitPerIp: limit })).toThrow(/apiRateLimitPerIp/);
    }
    for (const limit of [10, 2_000_000_000]) expect(check({ apiRateLimitPerIp: limit })).not.toThrow();
    expect(check({ apiWaf: false, apiRateLimitPerIp: 100 })).toThrow(/apiRateLimitPerIp needs the API WAF/);
    expect(check({ apiWaf: false, apiOriginCheck: 'report' })).toThrow(/apiOriginCheck needs the API WAF/);
    expect(check({ apiOriginCheck: 'off' })).toThrow(/apiOriginCheck must be 'enforce' or 'report'/);
    expect(check({ apiOriginCheck: 'report' })).not.toThrow();
  });
});
