/**
 * The HTTP API (API Gateway v2): ingest, enforcement and the /v1 routes of docs/api.md.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { itemKeys } from '../lambdas/shared/item-keys';
import { flagPropagationMs } from '../lambdas/shared/flag-propagation';
import type { SpendguardData } from './data';
import { type FunctionDefaults, SpendguardFunction } from './function';
import { acknowledge } from './nag';
import type { SpendguardPipeline } from './pipeline';
import type { SpendguardPrices } from './prices';
import type { SpendguardSecrets } from './secrets';

/** Who may call a route, enforced where. */
export type RouteAuth =
  /** A person: Cognito ID token, checked by the gateway's JWT authorizer (and again in the handler). */
  | 'person'
  /** A program (`Service-API-Key` / `apiKey`) or a person: no gateway authorizer; the handler authenticates. */
  | 'handler'
  /** Anyone: health and the OpenAPI document. */
  | 'public';

export type ApiTarget = 'ingest' | 'enforce' | 'api';

export interface RouteSpec {
  readonly method: apigwv2.HttpMethod;
  readonly path: string;
  readonly target: ApiTarget;
  readonly auth: RouteAuth;
}

const { GET, POST, PUT, DELETE } = apigwv2.HttpMethod;

/** Every route of docs/api.md with its function and where it is authenticated. */
export const API_ROUTES: readonly RouteSpec[] = [
  { method: POST, path: '/api/ingest', target: 'ingest', auth: 'handler' },
  { method: POST, path: '/v1/events', target: 'ingest', auth: 'handler' },
  { method: POST, path: '/api/guardrails/enforce', target: 'enforce', auth: 'person' },
  { method: GET, path: '/v1/health', target: 'api', auth: 'public' },
  { method: GET, path: '/v1/openapi.json', target: 'api', auth: 'public' },
  { method: GET, path: '/v1/ledger', target: 'api', auth: 'handler' },
  { method: GET, path: '/v1/spend', target: 'api', auth: 'handler' },
  { method: GET, path: '/v1/forecast', target: 'api', auth: 'handler' },
  { method: POST, path: '/v1/forecast/run', target: 'api', auth: 'person' },
  { method: GET, path: '/v1/forecast/runs/{runId}', target: 'api', auth: 'person' },
  { method: GET, path: '/v1/budget', target: 'api', auth: 'handler' },
  { method: PUT, path: '/v1/budget', target: 'api', auth: 'person' },
  { method: POST, path: '/v1/budget/lease', target: 'api', auth: 'handler' },
  { method: POST, path: '/v1/budget/lease/release', target: 'api', auth: 'handler' },
  { method: POST, path: '/v1/budget/settled/correct', target: 'api', auth: 'person' },
  { method: GET, path: '/v1/keys', target: 'api', auth: 'person' },
  { method: POST, path: '/v1/keys', target: 'api', auth: 'person' },
  { method: DELETE, path: '/v1/keys/{publicId}', target: 'api', auth: 'person' },
  { method: GET, path: '/v1/flags', target: 'api', auth: 'person' },
  { method: GET, path: '/v1/guardrails/trips', target: 'api', auth: 'person' },
  { method: GET, path: '/v1/reconciliation', target: 'api', auth: 'person' },
  { method: POST, path: '/v1/reconciliation/run', target: 'api', auth: 'person' },
  { method: GET, path: '/v1/reconciliation/credentials', target: 'api', auth: 'person' },
  { method: PUT, path: '/v1/reconciliation/credentials', target: 'api', auth: 'person' },
  { method: DELETE, path: '/v1/reconciliation/credentials/{provider}', target: 'api', auth: 'person' },
  { method: GET, path: '/v1/sessions', target: 'api', auth: 'person' },
  { method: GET, path: '/v1/pricing/rates', target: 'api', auth: 'person' },
  { method: PUT, path: '/v1/pricing/rates', target: 'api', auth: 'person' },
  { method: GET, path: '/v1/audit', target: 'api', auth: 'person' },
  { method: PUT, path: '/v1/audit/settings', target: 'api', auth: 'person' },
];

/** Default-stage throttling (requests per second, steady and burst) for the whole API. */
export interface ApiThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/** Properties of {@link SpendguardApi}. */
export interface SpendguardApiProps {
  readonly data: SpendguardData;
  readonly secrets: SpendguardSecrets;
  readonly prices: SpendguardPrices;
  readonly pipeline: SpendguardPipeline;
  readonly userPool: cognito.IUserPool;
  readonly userPoolClient: cognito.IUserPoolClient;
  /** Origins allowed by CORS (the dashboard's URL). */
  readonly corsOrigins: readonly string[];
  /** @default { rateLimit: 200, burstLimit: 400 } */
  readonly throttle?: ApiThrottle;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  readonly functionDefaults?: FunctionDefaults;
}

export class SpendguardApi extends Construct {
  public readonly httpApi: apigwv2.HttpApi;
  public readonly stage: apigwv2.HttpStage;
  public readonly accessLogGroup: logs.LogGroup;
  public readonly authorizer: HttpJwtAuthorizer;
  public readonly enforceFunction: SpendguardFunction;
  public readonly apiFunction: SpendguardFunction;
  /** Every function behind a route (ingest, enforce, api): where a check on every request goes. */
  public readonly routeFunctions: readonly SpendguardFunction[];
  /** The API's base URL (`https://<id>.execute-api.<region>.amazonaws.com`, no trailing slash). */
  public readonly url: string;
  /** The `execute-api` host of {@link url} (the origin of the API's CloudFront distribution). */
  public readonly domainName: string;

  constructor(scope: Construct, id: string, props: SpendguardApiProps) {
    super(scope, id);
    const { data, secrets, prices, pipeline } = props;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const bindCognito = (fn: SpendguardFunction): void => {
      fn.addEnvironment('USER_POOL_ID', props.userPool.userPoolId);
      fn.addEnvironment('USER_POOL_CLIENT_ID', props.userPoolClient.userPoolClientId);
    };

    // Enforcement: the caller's key (GetItem), every key of the org (Query gsi1), flags put / list / delete.
    this.enforceFunction = new SpendguardFunction(this, 'Enforce', {
      name: 'enforce',
      description: 'POST /api/guardrails/enforce: push or clear a kill flag (organization, key or session)',
      defaults: props.functionDefaults,
    });
    data.bindDataTable(this.enforceFunction, ['GetItem', 'Query']);
    // Writes: the audit entry of every push and clear, the owner claim of an organization's first person.
    data.bindDataPutsTo(this.enforceFunction, [itemKeys.auditPk('*'), itemKeys.owner('*').pk]);
    // A Resume's time (the guardrail consumer's windows restart there) and the relay's shared loop runs,
    // restarted at once (core/guardrails/resume.ts).
    data.bindDataPutsTo(
      this.enforceFunction,
      [itemKeys.resumes('*').pk, itemKeys.loopRun('*', '', '').pk],
      ['UpdateItem'],
    );
    data.bindFlagsTable(this.enforceFunction, ['PutItem', 'Query', 'DeleteItem']);
    // A push answers once the flag is in force at every guard: their cache, plus replication to replicas.
    this.enforceFunction.addEnvironment(
      'FLAG_PROPAGATION_MS',
      String(flagPropagationMs(data.flagsTableRegions.length > 1)),
    );
    secrets.bindPepper(this.enforceFunction);
    bindCognito(this.enforceFunction);

    // The /v1 API: reads everything of one org, writes config, keys, org profile and forecasts.
    this.apiFunction = new SpendguardFunction(this, 'Api', {
      name: 'api',
      description: 'The /v1 API of the dashboard and programs',
      memorySize: 1024,
      timeout: Duration.seconds(29),
      defaults: props.functionDefaults,
    });
    data.bindDataTable(this.apiFunction, ['GetItem', 'PutItem', 'UpdateItem', 'Query']);
    data.bindFlagsTable(this.apiFunction, ['PutItem', 'Query']); // PutItem: a new key gets the org's flags
    secrets.bindPepper(this.apiFunction);
    prices.bindPrices(this.apiFunction);
    bindCognito(this.apiFunction);

    this.authorizer = new HttpJwtAuthorizer(
      'CognitoIdToken',
      `https://cognito-idp.${Stack.of(this).region}.amazonaws.com/${props.userPool.userPoolId}`,
      {
        jwtAudience: [props.userPoolClient.userPoolClientId],
        identitySource: ['$request.header.Authorization'],
      },
    );

    this.httpApi = new apigwv2.HttpApi(this, 'HttpApi', {
      description: 'Spendguard API',
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: [...props.corsOrigins],
        allowMethods: [
          apigwv2.CorsHttpMethod.GET,
          apigwv2.CorsHttpMethod.POST,
          apigwv2.CorsHttpMethod.PUT,
          apigwv2.CorsHttpMethod.DELETE,
          apigwv2.CorsHttpMethod.OPTIONS,
        ],
        allowHeaders: ['authorization', 'content-type', 'service-api-key'],
        exposeHeaders: ['retry-after'],
        maxAge: Duration.hours(1),
      },
    });

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy,
    });
    const throttle = props.throttle ?? { rateLimit: 200, burstLimit: 400 };
    this.stage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(this.accessLogGroup),
        format: apigw.AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            requestTime: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
          }),
        ),
      },
    });
    this.domainName = `${this.httpApi.apiId}.execute-api.${Stack.of(this).region}.${Stack.of(this).urlSuffix}`;
    this.url = `https://${this.domainName}`;

    this.routeFunctions = [pipeline.ingestFunction, this.enforceFunction, this.apiFunction];
    const integrations: Record<ApiTarget, HttpLambdaIntegration> = {
      ingest: new HttpLambdaIntegration('Ingest', pipeline.ingestFunction),
      enforce: new HttpLambdaIntegration('Enforce', this.enforceFunction),
      api: new HttpLambdaIntegration('Api', this.apiFunction),
    };
    for (const route of API_ROUTES) {
      const [created] = this.httpApi.addRoutes({
        path: route.path,
        methods: [route.method],
        integration: integrations[route.target],
        authorizer: route.auth === 'person' ? this.authorizer : undefined,
      });
      if (created !== undefined && route.auth !== 'person') {
        acknowledge(
          created,
          'AwsSolutions-APIG4',
          route.auth === 'public'
            ? 'Public by design (health check, OpenAPI document); returns no organization data.'
            : 'Programs call this route with an organization API key (Service-API-Key / apiKey), which only the handler can verify (HMAC with the pepper); people with an ID token are verified in the handler too.',
        );
      }
    }
    // A path or method the API does not have reaches the API function, which answers the API's own JSON
    // 404 (`{"error":{"code":"not_found",…}}`) instead of API Gateway's `{"message":"Not Found"}`.
    const fallback = new apigwv2.HttpRoute(this, 'DefaultRoute', {
      httpApi: this.httpApi,
      routeKey: apigwv2.HttpRouteKey.DEFAULT,
      integration: integrations.api,
    });
    acknowledge(
      fallback,
      'AwsSolutions-APIG4',
      'The $default route only answers 404 (no route matched); it reads no organization data.',
    );
  }
}
