/**
 * The scheduled Monte Carlo forecast (spec 1.6): EventBridge Scheduler starts a Step Functions state
 * machine every hour; `load` lists the organizations, a Map state fans out one `simulate` → `store`
 * per organization.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import type { SpendguardData } from './data';
import { type FunctionDefaults, SpendguardFunction } from './function';
import { acknowledge, logicalIdOf } from './nag';
import { acknowledgeSchedulerRoles } from './prices';
import type { SpendguardSecrets } from './secrets';

/**
 * The task contract with `lambdas/forecast/index.ts` (one function, three task states):
 * - `{ task: 'load' }` → `{ orgIds: string[] }`
 * - `{ task: 'simulate', orgId }` → `{ orgId, view }` (the organization's forecast, JSON < 256 KB)
 * - `{ task: 'store', orgId, view }` → `{ orgId, stored: true }` (ignored)
 */
export type ForecastTask = 'load' | 'simulate' | 'store';

/** Properties of {@link SpendguardForecast}. */
export interface SpendguardForecastProps {
  readonly data: SpendguardData;
  readonly secrets: SpendguardSecrets;
  /** @default scheduler.ScheduleExpression.rate(Duration.hours(1)) */
  readonly schedule?: scheduler.ScheduleExpression;
  /** Organizations simulated at the same time. @default 10 */
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

  constructor(scope: Construct, id: string, props: SpendguardForecastProps) {
    super(scope, id);
    const { data, secrets } = props;

    // load: Query gsi1 (the organization list); simulate: Query aggregates + GetItem config; store: PutItem.
    // It prices nothing (aggregates hold nano-USD already), so it gets no price snapshot.
    this.forecastFunction = new SpendguardFunction(this, 'Function', {
      name: 'forecast',
      description: 'Forecast tasks: load organizations, Monte Carlo simulation (10,000 iterations), store',
      // 1,769 MB is one full vCPU: the simulation is CPU-bound.
      memorySize: 1769,
      timeout: Duration.minutes(5),
      defaults: props.functionDefaults,
    });
    data.bindDataTable(this.forecastFunction, ['GetItem', 'PutItem', 'Query']);
    data.bindFlagsTable(this.forecastFunction, []);
    secrets.bindPepper(this.forecastFunction, false);

    const invoke = (
      name: string,
      task: ForecastTask,
      fields: Record<string, unknown>,
      resultPath?: string,
    ): tasks.LambdaInvoke => {
      const step = new tasks.LambdaInvoke(this, name, {
        lambdaFunction: this.forecastFunction,
        payload: sfn.TaskInput.fromObject({ task, ...fields }),
        payloadResponseOnly: true,
        resultPath,
      });
      step.addRetry({
        errors: ['States.ALL'],
        interval: Duration.seconds(2),
        backoffRate: 2,
        maxAttempts: 3,
        jitterStrategy: sfn.JitterType.FULL,
      });
      return step;
    };

    const load = invoke('Load', 'load', {});
    const simulate = invoke('Simulate', 'simulate', { 'orgId.$': '$.orgId' }, '$.simulation');
    const store = invoke(
      'Store',
      'store',
      { 'orgId.$': '$.orgId', 'view.$': '$.simulation.view' },
      sfn.JsonPath.DISCARD,
    );
    // One organization's failure (after its retries) is recorded and does not stop the others; the
    // function's Errors alarm reports it.
    const failed = new sfn.Pass(this, 'OrganizationFailed');
    simulate.addCatch(failed, { resultPath: '$.error' });
    store.addCatch(failed, { resultPath: '$.error' });

    const perOrg = new sfn.Map(this, 'PerOrganization', {
      itemsPath: '$.orgIds',
      itemSelector: { 'orgId.$': '$$.Map.Item.Value' },
      maxConcurrency: props.maxConcurrency ?? 10,
      resultPath: sfn.JsonPath.DISCARD,
    });
    perOrg.itemProcessor(simulate.next(store));

    const logGroup = new logs.LogGroup(this, 'StateMachineLogs', {
      logGroupName: props.logGroupName ?? `/aws/vendedlogs/states/${Stack.of(this).stackName}-forecast`,
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      comment: 'Spendguard forecast: load → per organization (simulate → store)',
      definitionBody: sfn.DefinitionBody.fromChainable(load.next(perOrg)),
      timeout: Duration.minutes(30),
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
      'X-Ray tracing and CloudWatch Logs delivery actions (logs:CreateLogDelivery, …) accept only Resource "*".',
    );
  }
}
