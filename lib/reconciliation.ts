/**
 * The daily reconciliation (issue 13.5, docs/reconciliation.md): EventBridge Scheduler invokes one
 * function that, for every organization, reads each provider's own usage and cost reports with the
 * admin credential the organization stored, compares them with the ledger per day and model, stores
 * the result and notifies on untracked spend. Admin credentials are Secrets Manager secrets named
 * `<stack>/reconciliation/<orgId>/<provider>`: the API function stores, describes and deletes them
 * (PUT and DELETE /v1/reconciliation/credentials) but cannot read one (no GetSecretValue): an on-demand
 * run (POST /v1/reconciliation/run) invokes this function, the only reader (issue 21).
 */
import { Aws, Duration, Stack } from 'aws-cdk-lib';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { SpendguardData } from './data';
import { type FunctionDefaults, SpendguardFunction } from './function';
import { acknowledge } from './nag';
import { acknowledgeSchedulerRoles } from './prices';
import type { SpendguardSecrets } from './secrets';

/** Properties of {@link SpendguardReconciliation}. */
export interface SpendguardReconciliationProps {
  readonly data: SpendguardData;
  readonly secrets: SpendguardSecrets;
  /** Where untracked-spend notifications go (the soft-cap warnings' topic). */
  readonly notifyTopic: sns.ITopic;
  /**
   * The v1 API function: it stores and deletes admin credentials (never reads them) and invokes this
   * function for an on-demand run. @default - none (credentials cannot be stored through the API)
   */
  readonly apiFunction?: SpendguardFunction;
  /** @default daily at 06:00 UTC (the providers' reports for the previous day are complete by then) */
  readonly schedule?: scheduler.ScheduleExpression;
  /** UTC days compared, today included. @default 7 */
  readonly windowDays?: number;
  /** Untracked spend (USD, per provider over the window) that notifies the organization. @default 1 */
  readonly untrackedAlertUsd?: number;
  readonly functionDefaults?: FunctionDefaults;
}

export class SpendguardReconciliation extends Construct {
  public readonly reconciliationFunction: SpendguardFunction;
  public readonly schedule: scheduler.Schedule;
  /** Name prefix of the admin-credential secrets (`<stack>/reconciliation`). */
  public readonly secretPrefix: string;

  constructor(scope: Construct, id: string, props: SpendguardReconciliationProps) {
    super(scope, id);
    const windowDays = props.windowDays ?? 7;
    const alertUsd = props.untrackedAlertUsd ?? 1;
    if (!Number.isInteger(windowDays) || windowDays < 1 || windowDays > 31) {
      throw new Error(`windowDays must be 1–31 (the providers' 1-day bucket limit); got ${windowDays}`);
    }
    if (!Number.isFinite(alertUsd) || alertUsd < 0) throw new Error('untrackedAlertUsd must be ≥ 0');
    this.secretPrefix = `${Stack.of(this).stackName}/reconciliation`;
    const secretsArn = `arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:${this.secretPrefix}/*`;
    const settings = {
      RECONCILIATION_SECRET_PREFIX: this.secretPrefix,
      RECONCILIATION_WINDOW_DAYS: String(windowDays),
      RECONCILIATION_UNTRACKED_ALERT_USD: String(alertUsd),
      // The account whose Bedrock figures an organization claims (one organization per account).
      RECONCILIATION_ACCOUNT_ID: Aws.ACCOUNT_ID,
    };

    // Query: the organization list (gsi1) and the daily per-model aggregates; Get/Put: the stored result.
    this.reconciliationFunction = new SpendguardFunction(this, 'Function', {
      name: 'reconciliation',
      description: "Reconciliation: the ledger against the providers' own usage and cost reports",
      // A page of a report is small; 5 report endpoints × (up to 31 pages) per organization.
      timeout: Duration.minutes(5),
      environment: settings,
      defaults: props.functionDefaults,
    });
    const fn = this.reconciliationFunction;
    props.data.bindDataTable(fn, ['GetItem', 'PutItem', 'Query']);
    props.data.bindFlagsTable(fn, []);
    props.secrets.bindPepper(fn, false);
    fn.addEnvironment('NOTIFY_TOPIC_ARN', props.notifyTopic.topicArn);
    props.notifyTopic.grantPublish(fn);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
        resources: [secretsArn],
      }),
    );
    acknowledgeSecretPrefix(fn, secretsArn);
    allowBedrockMetrics(fn);

    const api = props.apiFunction;
    if (api) {
      for (const [name, value] of Object.entries(settings)) api.addEnvironment(name, value);
      api.addEnvironment('NOTIFY_TOPIC_ARN', props.notifyTopic.topicArn);
      props.notifyTopic.grantPublish(api);
      // Write-only: no GetSecretValue, so no code path of the API can read a tenant's admin key.
      api.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [
            'secretsmanager:CreateSecret',
            'secretsmanager:DeleteSecret',
            'secretsmanager:DescribeSecret',
            'secretsmanager:PutSecretValue',
            'secretsmanager:RestoreSecret',
          ],
          resources: [secretsArn],
        }),
      );
      acknowledgeSecretPrefix(api, secretsArn);
      api.addEnvironment('RECONCILIATION_FUNCTION_NAME', fn.functionName);
      // The function itself, not its versions (`:*`): the API invokes $LATEST by name.
      api.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }),
      );
    }

    this.schedule = new scheduler.Schedule(this, 'Daily', {
      description: "Spendguard: daily reconciliation against the providers' own reports",
      schedule: props.schedule ?? scheduler.ScheduleExpression.cron({ minute: '0', hour: '6' }),
      target: new targets.LambdaInvoke(fn, {
        input: scheduler.ScheduleTargetInput.fromObject({}),
        retryAttempts: 2,
      }),
    });
    acknowledgeSchedulerRoles(this);
  }
}

/**
 * Bedrock reconciliation (docs/reconciliation.md, "Amazon Bedrock"): the account's `AWS/Bedrock` token
 * metrics, read-only, and the application inference profiles the organization has not mapped.
 */
function allowBedrockMetrics(fn: SpendguardFunction): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['cloudwatch:GetMetricData', 'cloudwatch:ListMetrics'],
      resources: ['*'],
    }),
  );
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['bedrock:GetInferenceProfile'],
      resources: [`arn:${Aws.PARTITION}:bedrock:*:${Aws.ACCOUNT_ID}:application-inference-profile/*`],
    }),
  );
  if (!fn.role) return;
  acknowledge(
    fn.role,
    'AwsSolutions-IAM5[Resource::*]',
    // The same finding id as X-Ray's (lib/function.ts): one reason covers both.
    'Only Resource "*" exists for these: xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing), and cloudwatch:GetMetricData and cloudwatch:ListMetrics (metrics have no ARNs; read-only, for the AWS/Bedrock token metrics of Bedrock reconciliation).',
  );
  acknowledge(
    fn.role,
    'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:application-inference-profile/*]',
    "Application inference profiles are created by the account at will and named by random ids; read-only GetInferenceProfile on this account's profiles, in any region the agents call.",
  );
}

/** One secret per organization and provider, created at run time: the grant names the stack's prefix. */
function acknowledgeSecretPrefix(fn: SpendguardFunction, secretsArn: string): void {
  if (!fn.role) return;
  const flat = flattenCfnReference(Stack.of(fn).resolve(secretsArn));
  acknowledge(
    fn.role,
    `AwsSolutions-IAM5[Resource::${flat}]`,
    'Admin credentials are one secret per organization and provider, created when the organization stores one; the grant is limited to the stack’s reconciliation/ name prefix.',
  );
  acknowledge(
    fn.role,
    'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
    "Publishing to the KMS-encrypted topic needs kms:GenerateDataKey* and kms:Decrypt on the topic's key (SNS SSE), granted on that key only.",
  );
}
