/**
 * The Monte Carlo forecast (spec 1.6): EventBridge Scheduler starts a Step Functions state machine every
 * hour, and POST /v1/forecast/run starts it for one organization. `load` writes the organizations to S3;
 * a Distributed Map reads them, in batches, into Express child executions that each run `forecastBatch`.
 * The parent's history no longer grows with the number of organizations (docs/operations.md,
 * "Forecast at scale").
 */
import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import type { SpendguardData } from './data';
import { type FunctionDefaults, SpendguardFunction } from './function';
import { acknowledge, acknowledgeGeneratedWildcards, logicalIdOf } from './nag';
import { acknowledgeSchedulerRoles } from './prices';
import type { SpendguardSecrets } from './secrets';

/**
 * The task contract with `lambdas/forecast/index.ts` (one function, two task states):
 * - `{ task: 'load', input, executionName }` → `{ bucket, key, count }` (the organization list in S3)
 * - `{ task: 'forecastBatch', orgIds }` → `{ stored, failed }`
 */
export type ForecastTask = 'load' | 'forecastBatch';

/**
 * Organizations per child execution. 25 × ~0.3 s of simulation ≈ 8 s per batch, far inside the
 * function's 5 minutes and Express's 5 minutes, with room for a slow DynamoDB.
 */
export const FORECAST_BATCH_SIZE = 25;

/** Child executions at once (each one function invocation at a time). */
export const DEFAULT_FORECAST_CONCURRENCY = 40;

/** Properties of {@link SpendguardForecast}. */
export interface SpendguardForecastProps {
  readonly data: SpendguardData;
  readonly secrets: SpendguardSecrets;
  /** Server access logs of the run bucket. */
  readonly accessLogsBucket: s3.IBucket;
  /** @default scheduler.ScheduleExpression.rate(Duration.hours(1)) */
  readonly schedule?: scheduler.ScheduleExpression;
  /** Batches (child executions) simulated at the same time. @default DEFAULT_FORECAST_CONCURRENCY (40) */
  readonly maxConcurrency?: number;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * The state machine's log group: Step Functions delivers logs through CloudWatch vended logs, whose
   * resource policy size limit is avoided only under `/aws/vendedlogs/states/`.
   * @default `/aws/vendedlogs/states/<stack>-forecast`
   */
  readonly logGroupName?: string;
  readonly functionDefaults?: FunctionDefaults;
}

export class SpendguardForecast extends Construct {
  public readonly forecastFunction: SpendguardFunction;
  public readonly stateMachine: sfn.StateMachine;
  public readonly schedule: scheduler.Schedule;
  /** Organization lists and Distributed Map results of each run (expire after 7 days). */
  public readonly runsBucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: SpendguardForecastProps) {
    super(scope, id);
    const { data, secrets } = props;

    this.runsBucket = new s3.Bucket(this, 'Runs', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 's3/forecast-runs/',
      lifecycleRules: [{ expiration: Duration.days(7) }],
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });

    // load: Query gsi1 (the organization list) + PutObject; batches: Query aggregates + GetItem config + PutItem.
    // It prices nothing (aggregates hold nano-USD already), so it gets no price snapshot.
    this.forecastFunction = new SpendguardFunction(this, 'Function', {
      name: 'forecast',
      description: 'Forecast tasks: list organizations to S3, Monte Carlo (10,000 iterations) per batch',
      // 1,769 MB is one full vCPU: the simulation is CPU-bound.
      memorySize: 1769,
      timeout: Duration.minutes(5),
      defaults: props.functionDefaults,
    });
    data.bindDataTable(this.forecastFunction, ['GetItem', 'PutItem', 'Query']);
    data.bindFlagsTable(this.forecastFunction, []);
    secrets.bindPepper(this.forecastFunction, false);
    this.forecastFunction.addEnvironment('FORECAST_RUNS_BUCKET', this.runsBucket.bucketName);
    this.forecastFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.runsBucket.arnForObjects('org-lists/*')],
      }),
    );
    acknowledge(
      this.forecastFunction.role!,
      `AwsSolutions-IAM5[Resource::<${logicalIdOf(this.runsBucket)}.Arn>/org-lists/*]`,
      'Each run writes its organization list under org-lists/<execution name>.json: PutObject on that prefix only.',
    );

    const retry = (step: tasks.LambdaInvoke): tasks.LambdaInvoke =>
      step.addRetry({
        errors: ['States.ALL'],
        interval: Duration.seconds(2),
        backoffRate: 2,
        maxAttempts: 3,
        jitterStrategy: sfn.JitterType.FULL,
      }) as tasks.LambdaInvoke;

    const load = retry(
      new tasks.LambdaInvoke(this, 'Load', {
        lambdaFunction: this.forecastFunction,
        payload: sfn.TaskInput.fromObject({
          task: 'load',
          'input.$': '$',
          'executionName.$': '$$.Execution.Name',
        }),
        payloadResponseOnly: true,
        resultPath: '$.orgList',
      }),
    );
    const batch = retry(
      new tasks.LambdaInvoke(this, 'ForecastBatch', {
        lambdaFunction: this.forecastFunction,
        payload: sfn.TaskInput.fromObject({ task: 'forecastBatch', 'orgIds.$': '$.Items' }),
        payloadResponseOnly: true,
      }),
    );

    // Each batch of organizations is one Express child execution with its own (unbounded) history; the
    // parent records only the map run. Results go to S3, not into the parent's 256 KB state.
    const perBatch = new sfn.DistributedMap(this, 'PerOrganizationBatch', {
      itemReader: new sfn.S3JsonItemReader({
        bucket: this.runsBucket,
        key: sfn.JsonPath.stringAt('$.orgList.key'),
      }),
      itemBatcher: new sfn.ItemBatcher({ maxItemsPerBatch: FORECAST_BATCH_SIZE }),
      mapExecutionType: sfn.StateMachineType.EXPRESS,
      maxConcurrency: props.maxConcurrency ?? DEFAULT_FORECAST_CONCURRENCY,
      // A failing batch (every organization in it failed three times) is tolerated up to 5 %; more
      // means something systemic and fails the run (the ForecastFailed alarm).
      toleratedFailurePercentage: 5,
      resultWriterV2: new sfn.ResultWriterV2({ bucket: this.runsBucket, prefix: 'results' }),
      resultPath: sfn.JsonPath.DISCARD,
    });
    perBatch.itemProcessor(batch);

    const logGroup = new logs.LogGroup(this, 'StateMachineLogs', {
      logGroupName: props.logGroupName ?? `/aws/vendedlogs/states/${Stack.of(this).stackName}-forecast`,
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      comment: 'Spendguard forecast: load the organizations → Distributed Map of batches (simulate → store)',
      definitionBody: sfn.DefinitionBody.fromChainable(load.next(perBatch)),
      timeout: Duration.minutes(55),
      tracingEnabled: true,
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });

    this.schedule = new scheduler.Schedule(this, 'Hourly', {
      description: 'Spendguard: hourly Monte Carlo forecast',
      schedule: props.schedule ?? scheduler.ScheduleExpression.rate(Duration.hours(1)),
      target: new targets.StepFunctionsStartExecution(this.stateMachine, {
        input: scheduler.ScheduleTargetInput.fromObject({}),
        retryAttempts: 2,
      }),
    });
    acknowledgeSchedulerRoles(this);

    const role = this.stateMachine.role;
    acknowledge(
      role,
      `AwsSolutions-IAM5[Resource::<${logicalIdOf(this.forecastFunction)}.Arn>:*]`,
      'Step Functions invokes the forecast function by qualified ARN (version/alias); LambdaInvoke grants <fn>:*.',
    );
    acknowledge(
      role,
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray tracing and CloudWatch Logs delivery actions (logs:CreateLogDelivery, …) accept only Resource "*"; the Distributed Map manages its map runs (states:DescribeMapRun …) with Resource "*".',
    );
    acknowledgeGeneratedWildcards(
      this.stateMachine,
      "The Distributed Map reads the run's organization list and writes its results in the run bucket, and starts and stops its own Express child executions: aws-cdk-lib generates these grants on the bucket's objects and the state machine's executions.",
    );
  }

  /**
   * Lets a function start on-demand runs (`FORECAST_STATE_MACHINE_ARN`; StartExecution on this state
   * machine, DescribeExecution on its executions), for POST /v1/forecast/run.
   */
  public bindRunStarter(fn: SpendguardFunction): void {
    fn.addEnvironment('FORECAST_STATE_MACHINE_ARN', this.stateMachine.stateMachineArn);
    this.stateMachine.grantStartExecution(fn);
    // On-demand run ids start with `od-` (lambdas/forecast/runs.ts): the scheduled runs stay unreadable.
    const executions = `arn:${Aws.PARTITION}:states:${Aws.REGION}:${Aws.ACCOUNT_ID}:execution:${this.stateMachine.stateMachineName}:od-*`;
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['states:DescribeExecution'], resources: [executions] }),
    );
    acknowledge(
      fn.role!,
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:<${logicalIdOf(this.stateMachine)}.Name>:od-*]`,
      'Execution names of on-demand runs are generated per run (od-<org hash>-<uuid>); the grant covers only those executions of this state machine, for GET /v1/forecast/runs/{runId}.',
    );
  }
}
