/**
 * The one place that sets the defaults of every Spendguard Lambda function (STYLE.md, CDK): runtime,
 * architecture, tracing, log group and retention, esbuild bundling, Powertools variables, and a role
 * that can write only to the function's own log group.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The repository root (the folder with `package-lock.json`): esbuild's project root. */
export const REPO_ROOT = path.resolve(__dirname, '..');

/** The folder of the Lambda handlers. */
export const LAMBDAS_DIR = path.join(REPO_ROOT, 'lambdas');

/** `POWERTOOLS_METRICS_NAMESPACE` of every function: the namespace of the dashboard's custom metrics. */
export const METRICS_NAMESPACE = 'Spendguard';

const EXPORTS_HANDLER =
  /export\s+(?:const|let|var|async\s+function|function)\s+handler\b|export\s*\{[^}]*\bhandler\b[^}]*\}/;

function exportsHandler(file: string): boolean {
  return fs.existsSync(file) && EXPORTS_HANDLER.test(fs.readFileSync(file, 'utf8'));
}

/**
 * The AWS entry of a handler folder: `lambdas/<name>/index.ts` exporting `handler` (the convention),
 * else `lambdas/<name>/handler.ts` when that is the file exporting `handler` (folders whose `index.ts`
 * is a barrel of the module). Without either, the conventional `index.ts` path, which does not exist.
 */
export function lambdaEntry(name: string, file?: string): string {
  const dir = path.join(LAMBDAS_DIR, name);
  if (file !== undefined) return path.join(dir, file);
  for (const candidate of ['index.ts', 'handler.ts']) {
    if (exportsHandler(path.join(dir, candidate))) return path.join(dir, candidate);
  }
  return path.join(dir, 'index.ts');
}

/** Whether a handler folder has an entry exporting `handler` (tests skip with a message when one is missing). */
export function entryExists(name: string): boolean {
  return exportsHandler(lambdaEntry(name));
}

/** Settings shared by every function of one deployment. */
export interface FunctionDefaults {
  /**
   * The Lambda runtime of every function, the edge guard included (see {@link LAMBDA_NODEJS_RUNTIME_DATES}).
   * @default DEFAULT_LAMBDA_RUNTIME (nodejs22.x)
   */
  readonly runtime?: lambda.Runtime;
  /** Retention of each function's log group. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** What happens to each function's log group when the stack is deleted. @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** `POWERTOOLS_LOG_LEVEL`. @default 'INFO' */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
}

/** Properties of {@link SpendguardFunction}. */
export interface SpendguardFunctionProps {
  /** Handler folder under `lambdas/`; also `POWERTOOLS_SERVICE_NAME`. */
  readonly name: string;
  /** Entry file inside the folder. @default - see {@link lambdaEntry} */
  readonly entryFile?: string;
  readonly description?: string;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default Duration.seconds(10) */
  readonly timeout?: Duration;
  /** Merged over the defaults (Powertools variables); never replaces them. @default - none */
  readonly environment?: Readonly<Record<string, string>>;
  /** @default - no reserved concurrency */
  readonly reservedConcurrentExecutions?: number;
  /** Shared settings of the deployment. @default - the defaults of {@link FunctionDefaults} */
  readonly defaults?: FunctionDefaults;
}

/** esbuild's `target` for a Node.js runtime (`nodejs22.x` → `node22`). */
export function esbuildTarget(runtime: lambda.Runtime): string {
  const match = /^nodejs(\d+)/.exec(runtime.name);
  return match ? `node${match[1]}` : 'node22';
}

/**
 * A Node.js function with Spendguard's defaults: ARM64, active tracing, its own log group with a
 * retention, esbuild bundling on the local machine (minified, source maps, no Docker), Powertools
 * variables, and a role that may only write its own logs and traces. Access to data is added by the
 * `bind*` helpers of the other constructs, which set the variable and grant exactly what is used.
 */
export class SpendguardFunction extends NodejsFunction {
  /** The function's log group (retention set; no log-retention custom resource). */
  public readonly functionLogGroup: logs.LogGroup;
  /** The folder name under `lambdas/`. */
  public readonly handlerName: string;

  constructor(scope: Construct, id: string, props: SpendguardFunctionProps) {
    const defaults = props.defaults ?? {};
    const runtime = defaults.runtime ?? DEFAULT_LAMBDA_RUNTIME;
    const entry = lambdaEntry(props.name, props.entryFile);
    // The log group and role are created before `super` (which needs them), in a sibling `<id>Support`.
    const logGroupScope = new Construct(scope, `${id}Support`);
    const logGroup = new logs.LogGroup(logGroupScope, 'LogGroup', {
      retention: defaults.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: defaults.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    const role = new iam.Role(logGroupScope, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Spendguard ${props.name} function`,
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );

    super(scope, id, {
      entry,
      handler: 'handler',
      runtime,
      architecture: lambda.Architecture.ARM_64,
      tracing: lambda.Tracing.ACTIVE,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      description: props.description,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      logGroup,
      role,
      environment: {
        POWERTOOLS_SERVICE_NAME: props.name,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: defaults.logLevel ?? 'INFO',
        // Stack traces through the bundle's linked source maps.
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      bundling: {
        minify: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: false,
        target: esbuildTarget(runtime),
        format: OutputFormat.CJS,
        // Pinned SDK versions from package-lock.json, not whatever the runtime ships.
        bundleAwsSDK: true,
        forceDockerBundling: false,
        tsconfig: path.join(REPO_ROOT, 'tsconfig.json'),
      },
    });
    this.functionLogGroup = logGroup;
    this.handlerName = props.name;

    // X-Ray's PutTraceSegments / PutTelemetryRecords accept only Resource "*" (added by tracing: ACTIVE).
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support only Resource "*".',
    });
    acknowledgeRuntimeChoice(this, runtime);
  }
}

/**
 * The one default runtime of every Spendguard function, the edge guard included (cdk.json's
 * `lambdaRuntime` says the same; lib/function.test.ts keeps them equal).
 */
export const DEFAULT_LAMBDA_RUNTIME = lambda.Runtime.NODEJS_22_X;

/** A Lambda runtime's end of support, as AWS's runtime table lists it (UTC dates). */
export interface RuntimeDates {
  /** No more patches or support. */
  readonly deprecated: string;
  /** Creating functions with it is blocked (a first deploy, or a function CloudFormation replaces). */
  readonly createBlocked: string;
  /** Updating functions with it is blocked (every deploy that changes code or configuration). */
  readonly updateBlocked: string;
}

/**
 * The Node.js rows of AWS Lambda's runtime table ("Supported runtimes", docs.aws.amazon.com/lambda/latest/dg/lambda-runtimes.html),
 * as published when this was written. Check the table before relying on a date: AWS moves them.
 */
export const LAMBDA_NODEJS_RUNTIME_DATES: Readonly<Record<string, RuntimeDates>> = {
  'nodejs20.x': { deprecated: '2026-04-30', createBlocked: '2026-06-01', updateBlocked: '2026-07-01' },
  'nodejs22.x': { deprecated: '2027-04-30', createBlocked: '2027-06-01', updateBlocked: '2027-07-01' },
};

/** Acknowledges cdk-nag's "latest runtime" rule (and CloudFormation's deprecation warning) for a deliberate choice. */
export function acknowledgeRuntimeChoice(fn: Construct, runtime: lambda.Runtime): void {
  if (runtime.name === lambda.Runtime.NODEJS_LATEST.name) return;
  const dates = LAMBDA_NODEJS_RUNTIME_DATES[runtime.name];
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason: `The runtime (${runtime.name}) is chosen on purpose: one setting for every function, the edge guard included (context lambdaRuntime / prop lambdaRuntime)${dates ? `; Lambda supports it until ${dates.deprecated}` : ''}.`,
  });
  if (dates && runtime.name === 'nodejs20.x') {
    Validations.of(fn).acknowledge({
      id: 'CloudFormation-Validate::W2531',
      reason: `Known: nodejs20.x was deprecated in Lambda on ${dates.deprecated}; creation is blocked from ${dates.createBlocked} and updates from ${dates.updateBlocked} (docs/deploy.md: use the default nodejs22.x).`,
    });
  }
}
