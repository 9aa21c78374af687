import { Match } from 'aws-cdk-lib/assertions';
import { API_ROUTES } from './api';
import { describeWithHandlers, idAt, resource, synthSpendguard, type Synthesized } from './test-helpers';

interface RouteResource {
  Properties: { RouteKey: string; AuthorizationType?: string; AuthorizerId?: unknown; Target: unknown };
}

describeWithHandlers('SpendguardApi', () => {
  let s: Synthesized;
  let routes: Map<string, RouteResource['Properties']>;
  beforeAll(() => {
    s = synthSpendguard();
    routes = new Map(
      Object.values(
        s.template.findResources('AWS::ApiGatewayV2::Route') as Record<string, RouteResource>,
      ).map((r) => [r.Properties.RouteKey, r.Properties]),
    );
  });

  it('creates exactly the routes of docs/api.md, and $default for what matches none', () => {
    expect([...routes.keys()].sort()).toEqual(
      [...API_ROUTES.map((r) => `${r.method} ${r.path}`), '$default'].sort(),
    );
  });

  it('puts the Cognito JWT authorizer on the routes people call, and only on those', () => {
    const authorizerId = idAt(s.template, 'Api/HttpApi/CognitoIdToken');
    const person = [
      'POST /api/guardrails/enforce',
      'GET /v1/keys',
      'POST /v1/keys',
      'DELETE /v1/keys/{publicId}',
      'GET /v1/flags',
      'PUT /v1/budget',
      'GET /v1/guardrails/trips',
      'GET /v1/sessions',
      'POST /v1/forecast/run',
      'GET /v1/reconciliation',
      'POST /v1/reconciliation/run',
      'GET /v1/reconciliation/credentials',
      'PUT /v1/reconciliation/credentials',
      'DELETE /v1/reconciliation/credentials/{provider}',
      'GET /v1/audit',
      'PUT /v1/audit/settings',
      'GET /v1/pricing/rates',
      'PUT /v1/pricing/rates',
      'GET /v1/forecast/runs/{runId}',
      'POST /v1/budget/settled/correct',
    ];
    for (const [key, route] of routes) {
      if (person.includes(key)) {
        expect({ key, type: route.AuthorizationType, id: route.AuthorizerId }).toEqual({
          key,
          type: 'JWT',
          id: { Ref: authorizerId },
        });
      } else {
        expect({ key, type: route.AuthorizationType ?? 'NONE' }).toEqual({ key, type: 'NONE' });
      }
    }
  });

  it('verifies Cognito ID tokens of the dashboard client (issuer = user pool, audience = app client)', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: {
        Audience: [{ Ref: idAt(s.template, 'Dashboard/UserPool/Dashboard') }],
        Issuer: {
          'Fn::Join': [
            '',
            ['https://cognito-idp.eu-west-1.amazonaws.com/', { Ref: idAt(s.template, 'Dashboard/UserPool') }],
          ],
        },
      },
    });
  });

  it('sends each route to its function (ingest, enforce, api)', () => {
    const target = (key: string) => JSON.stringify(routes.get(key)?.Target);
    expect(target('POST /api/ingest')).toBe(target('POST /v1/events'));
    expect(target('GET /v1/ledger')).toBe(target('DELETE /v1/keys/{publicId}'));
    expect(
      new Set(['POST /api/ingest', 'POST /api/guardrails/enforce', 'GET /v1/health'].map(target)).size,
    ).toBe(3);
  });

  it('throttles the default stage and writes JSON access logs to a log group', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 },
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [idAt(s.template, 'Api/AccessLogs'), 'Arn'] },
        Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
      },
    });
    expect(resource(s.template, idAt(s.template, 'Api/AccessLogs')).Properties).toMatchObject({
      RetentionInDays: 30,
    });
  });

  it('allows CORS from the dashboard origin only, with the headers the dashboard and SDK send', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: {
        AllowOrigins: [
          {
            'Fn::Join': [
              '',
              ['https://', { 'Fn::GetAtt': [idAt(s.template, 'Dashboard/Distribution'), 'DomainName'] }],
            ],
          },
        ],
        AllowHeaders: ['authorization', 'content-type', 'service-api-key'],
        AllowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
      },
    });
  });

  it('gives enforce and api the Cognito pool and client for aws-jwt-verify', () => {
    for (const fn of ['Api/Enforce', 'Api/Api']) {
      expect(resource(s.template, idAt(s.template, fn)).Properties).toMatchObject({
        Environment: {
          Variables: {
            USER_POOL_ID: { Ref: idAt(s.template, 'Dashboard/UserPool') },
            USER_POOL_CLIENT_ID: { Ref: idAt(s.template, 'Dashboard/UserPool/Dashboard') },
          },
        },
      });
    }
  });

  it('tells enforce how long a kill takes to reach every guard: their 1 s cache plus 1 s for the replica regions', () => {
    expect(resource(s.template, idAt(s.template, 'Api/Enforce')).Properties).toMatchObject({
      Environment: { Variables: { FLAG_PROPAGATION_MS: '2000' } },
    });
  });
});
