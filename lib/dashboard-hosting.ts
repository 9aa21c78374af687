/**
 * The dashboard: a private S3 bucket behind CloudFront (Origin Access Control), the Cognito user pool
 * and app client people sign in with, and the runtime configuration `config.json` written at deploy.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Annotations, Aws, Duration, Lazy, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import type { Role } from '../core/roles';
import { acknowledgeDistribution, type CustomDomain } from './edge';
import { REPO_ROOT } from './function';
import { acknowledge, acknowledgeGeneratedWildcards, stackChildrenWithPrefix } from './nag';

/** Where the dashboard's build lands (`npm run build -w dashboard`). */
export const DASHBOARD_DIST = path.join(REPO_ROOT, 'dashboard', 'dist');

/** Properties of {@link SpendguardDashboardHosting}. */
export interface SpendguardDashboardHostingProps {
  /** Bucket for CloudFront and S3 access logs. */
  readonly accessLogsBucket: s3.IBucket;
  /** The dashboard's own domain. @default - the distribution's `*.cloudfront.net` domain */
  readonly domain?: CustomDomain;
  /** Minimum viewer TLS version (custom domain only). @default cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 */
  readonly minimumTlsVersion?: cloudfront.SecurityPolicyProtocol;
  /**
   * The built dashboard. Deployed when the folder exists at synth; `config.json` is deployed always.
   * @default DASHBOARD_DIST (`dashboard/dist`)
   */
  readonly assetsPath?: string;
  /**
   * Cognito threat protection (the Plus feature plan, billed per active user). Off by default: the user
   * pool has no self sign-up, admins create every user, and MFA (TOTP) is available to each of them.
   * @default false
   */
  readonly threatProtection?: boolean;
  /**
   * Whether every dashboard user must sign in with a TOTP second factor (dashboard users can create
   * keys and lift kill flags). Cognito asks a user without one to enrol at the next sign-in.
   * `false` makes TOTP optional.
   * @default true
   */
  readonly mfaRequired?: boolean;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/** The Cognito groups that are Spendguard's roles (core/roles), with what each may do. */
export const ROLE_GROUPS: Readonly<Record<Role, string>> = {
  admin:
    'Spendguard admin: everything, including budgets, policy, pricing rates, credentials and organization-scope resumes',
  member: 'Spendguard member: reads, creates and revokes API keys, resumes kills at session or key scope',
  viewer: 'Spendguard viewer: reads only',
};

/**
 * The dashboard's Content-Security-Policy: scripts, styles and fonts from its own origin only; API calls
 * to `apiSource` (see {@link SpendguardDashboardHosting.deployConfig}; by default any of the region's
 * HTTP APIs) and Cognito (token endpoint); no framing, no plugins, no foreign forms.
 * `style-src 'unsafe-inline'`: the charts set inline style attributes.
 */
export function dashboardContentSecurityPolicy(
  region: string,
  urlSuffix: string,
  apiSource = `https://*.execute-api.${region}.${urlSuffix}`,
): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${apiSource} https://*.auth.${region}.amazoncognito.com https://cognito-idp.${region}.${urlSuffix}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self' https://*.amazoncognito.com",
    "frame-ancestors 'none'",
    'upgrade-insecure-requests',
  ].join('; ');
}

/** The runtime configuration's values (docs/api.md, `GET /config.json`). */
export interface DashboardRuntimeConfig {
  readonly apiUrl: string;
  readonly proxyUrl: string;
}

export class SpendguardDashboardHosting extends Construct {
  public readonly bucket: s3.Bucket;
  public readonly distribution: cloudfront.Distribution;
  public readonly userPool: cognito.UserPool;
  public readonly userPoolClient: cognito.UserPoolClient;
  public readonly userPoolDomain: cognito.UserPoolDomain;
  /** The dashboard's URL (`https://<domain>`, no trailing slash). */
  public readonly url: string;
  /** Whether `assetsPath` existed at synth (so the built app is deployed). */
  public readonly assetsDeployed: boolean;
  public deployment: s3deploy.BucketDeployment | undefined;
  private readonly assetsPath: string;
  /** The CSP's connect-src source for the API, from deployConfig. */
  private apiConnectSource: string | undefined;

  constructor(scope: Construct, id: string, props: SpendguardDashboardHostingProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.assetsPath = props.assetsPath ?? DASHBOARD_DIST;
    this.assetsDeployed = fs.existsSync(path.join(this.assetsPath, 'index.html'));

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'dashboard-bucket/',
      // The site is rebuilt from the repository; nothing in it needs keeping.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Spendguard dashboard',
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
          comment: 'Spendguard dashboard: security headers with a Content-Security-Policy',
          securityHeadersBehavior: {
            contentSecurityPolicy: {
              // Lazy: the API's source is given to deployConfig(), after the API exists.
              contentSecurityPolicy: Lazy.string({
                produce: () =>
                  dashboardContentSecurityPolicy(stack.region, stack.urlSuffix, this.apiConnectSource),
              }),
              override: true,
            },
            contentTypeOptions: { override: true },
            frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
            referrerPolicy: {
              referrerPolicy: cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN,
              override: true,
            },
            strictTransportSecurity: {
              accessControlMaxAge: Duration.days(365),
              includeSubdomains: true,
              override: true,
            },
            xssProtection: { protection: true, modeBlock: true, override: true },
          },
        }),
        compress: true,
      },
      // A single-page app: unknown paths (403 from a private bucket, 404) serve index.html.
      errorResponses: [403, 404].map((httpStatus) => ({
        httpStatus,
        responseHttpStatus: 200,
        responsePagePath: '/index.html',
        ttl: Duration.seconds(0),
      })),
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      domainNames: props.domain ? [props.domain.domainName] : undefined,
      certificate: props.domain?.certificate,
      minimumProtocolVersion: props.domain
        ? (props.minimumTlsVersion ?? cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021)
        : undefined,
      enableLogging: true,
      logBucket: props.accessLogsBucket,
      logFilePrefix: 'cloudfront/dashboard/',
    });
    this.url = `https://${props.domain?.domainName ?? this.distribution.distributionDomainName}`;
    acknowledgeDistribution(this.distribution, props.domain !== undefined, 'dashboard');

    // People: created by an administrator only, each bound to one organization by an immutable attribute.
    const threatProtection = props.threatProtection ?? false;
    this.userPool = new cognito.UserPool(this, 'UserPool', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      customAttributes: { orgId: new cognito.StringAttribute({ minLen: 1, maxLen: 128, mutable: false }) },
      mfa: props.mfaRequired === false ? cognito.Mfa.OPTIONAL : cognito.Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      featurePlan: threatProtection ? cognito.FeaturePlan.PLUS : cognito.FeaturePlan.ESSENTIALS,
      standardThreatProtectionMode: threatProtection
        ? cognito.StandardThreatProtectionMode.FULL_FUNCTION
        : undefined,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
    });
    if (props.mfaRequired === false) {
      acknowledge(
        this.userPool,
        'AwsSolutions-COG2',
        'The deployer chose mfaRequired: false (TOTP still offered to every user); users are created by an administrator only.',
      );
    }
    if (!threatProtection) {
      acknowledge(
        this.userPool,
        'AwsSolutions-COG3',
        'Threat protection needs the Plus plan (billed per active user); it is one prop away (threatProtection: true). No self sign-up limits exposure.',
      );
      acknowledge(
        this.userPool,
        'AwsSolutions-COG8',
        'The Plus plan is opt-in (threatProtection: true) because it is billed per monthly active user.',
      );
    }

    // Roles (core/roles, docs/security.md): the ID token's cognito:groups. Fixed names: the API reads them.
    for (const [group, description] of Object.entries(ROLE_GROUPS)) {
      new cognito.CfnUserPoolGroup(this, `Group${group[0]!.toUpperCase()}${group.slice(1)}`, {
        userPoolId: this.userPool.userPoolId,
        groupName: group,
        description,
      });
    }

    const callback = `${this.url}/`;
    this.userPoolClient = this.userPool.addClient('Dashboard', {
      generateSecret: false,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL],
        callbackUrls: [callback],
        logoutUrls: [callback],
      },
      supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(1),
      // The app may read orgId but never write it: organization membership is set by administrators.
      // An explicit (non-empty) write list: Cognito treats an empty one as "all standard attributes".
      readAttributes: new cognito.ClientAttributes()
        .withStandardAttributes({ email: true, emailVerified: true, fullname: true })
        .withCustomAttributes('orgId'),
      writeAttributes: new cognito.ClientAttributes().withStandardAttributes({ fullname: true }),
    });
    this.userPoolDomain = this.userPool.addDomain('HostedUi', {
      cognitoDomain: {
        // Globally unique per region: the stack name and the account id. Hosted UI, PKCE code flow.
        domainPrefix: `${stack.stackName.toLowerCase().replace(/[^a-z0-9-]/g, '-')}-${Aws.ACCOUNT_ID}`,
      },
    });
  }

  /**
   * Writes `config.json` (always) and the built app (when it exists) to the bucket, and invalidates
   * the distribution. Call once, after the API and the proxy exist. `apiConnectSource` is the CSP's
   * connect-src for the API: its exact URL where that makes no reference cycle, else a host pattern
   * (SpendGuardrails explains which).
   */
  public deployConfig(config: DashboardRuntimeConfig, apiConnectSource?: string): s3deploy.BucketDeployment {
    if (this.deployment) throw new Error('SpendguardDashboardHosting.deployConfig() may be called only once');
    this.apiConnectSource = apiConnectSource;
    const region = Stack.of(this).region;
    const configSource = s3deploy.Source.jsonData('config.json', {
      apiUrl: config.apiUrl,
      proxyUrl: config.proxyUrl,
      auth: {
        mode: 'cognito',
        region,
        userPoolId: this.userPool.userPoolId,
        clientId: this.userPoolClient.userPoolClientId,
        domain: this.userPoolDomain.baseUrl(),
      },
    });
    if (!this.assetsDeployed) {
      Annotations.of(this).addInfo(
        `${this.assetsPath} not found: deploying config.json only. Build the dashboard (npm run build -w dashboard) and deploy again to publish it.`,
      );
    }
    this.deployment = new s3deploy.BucketDeployment(this, 'Deploy', {
      destinationBucket: this.bucket,
      sources: this.assetsDeployed ? [s3deploy.Source.asset(this.assetsPath), configSource] : [configSource],
      // Without the built app, keep whatever an earlier deploy published.
      prune: this.assetsDeployed,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 512,
    });
    for (const handler of stackChildrenWithPrefix(Stack.of(this), 'Custom::CDKBucketDeployment')) {
      acknowledge(
        handler,
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        'aws-cdk-lib BucketDeployment handler (deploy-time only): its role is generated by the library.',
      );
      acknowledge(
        handler,
        'AwsSolutions-L1',
        'aws-cdk-lib BucketDeployment handler: the library pins its Python runtime and bundles the AWS CLI layer for it.',
      );
      acknowledgeGeneratedWildcards(
        handler,
        'aws-cdk-lib BucketDeployment handler (deploy-time only): reads the CDK asset objects and syncs the dashboard bucket (list, put, delete, invalidate); the library generates these grants.',
      );
    }
    return this.deployment;
  }
}
