/**
 * One CloudWatch dashboard, the alarms, and the SNS topic that carries both the alarms and the
 * guardrail consumer's soft-cap warnings; plus the bucket for CloudFront and S3 access logs.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, type SpendguardFunction } from './function';
import { acknowledge } from './nag';
import { LAMBDA_EDGE_REGIONS } from './regions';

/** The five guardrail layers (metric `Trips_<layer>` of the guardrail consumer). */
export const GUARDRAIL_LAYERS = [
  'financialLimits',
  'identicalLoop',
  'contextGrowth',
  'rpsBurst',
  'premiumConcentration',
] as const;

/** Properties of {@link SpendguardObservability}. */
export interface SpendguardObservabilityProps {
  /** Subscribed to the alarm and warning topic (confirm the e-mail AWS sends). @default - no subscription */
  readonly alarmEmail?: string;
  /** How long access logs are kept. @default Duration.days(90) */
  readonly accessLogRetention?: Duration;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/** What {@link SpendguardObservability.watch} graphs and alarms on. */
export interface WatchedResources {
  readonly ingest: SpendguardFunction;
  readonly pricingConsumer: SpendguardFunction;
  readonly guardrailConsumer: SpendguardFunction;
  readonly relay: SpendguardFunction;
  readonly enforce: SpendguardFunction;
  readonly api: SpendguardFunction;
  readonly forecast: SpendguardFunction;
  readonly priceRefresh: SpendguardFunction;
  readonly pricingDeadLetterQueue: sqs.IQueue;
  readonly guardrailDeadLetterQueue: sqs.IQueue;
  readonly httpApi: apigwv2.HttpApi;
  readonly forecastStateMachine: sfn.IStateMachine;
}

const MINUTE = Duration.minutes(1);

/** A sum over every dimension set of a custom metric (Powertools adds `service`; EMF lines add `Reason`). */
function searchSum(metricName: string, label: string, opts: { region?: string; statistic?: string } = {}) {
  return new cloudwatch.MathExpression({
    expression: `SUM(SEARCH('Namespace="${METRICS_NAMESPACE}" MetricName="${metricName}"', '${opts.statistic ?? 'Sum'}', 60))`,
    label,
    period: MINUTE,
    searchRegion: opts.region,
  });
}

export class SpendguardObservability extends Construct {
  /** Alarms and soft-cap warnings (encrypted with {@link topicKey}). */
  public readonly topic: sns.Topic;
  /** Customer-managed key of the topic: CloudWatch alarms cannot publish to a topic under the AWS-managed SNS key. */
  public readonly topicKey: kms.Key;
  /** CloudFront standard logs and S3 server access logs (ACLs enabled: CloudFront's legacy logging needs them). */
  public readonly accessLogsBucket: s3.Bucket;
  /** Created by {@link watch}. */
  public dashboard: cloudwatch.Dashboard | undefined;
  public readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: SpendguardObservabilityProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    this.topicKey = new kms.Key(this, 'TopicKey', {
      description: 'Spendguard alarm and warning topic',
      enableKeyRotation: true,
      removalPolicy,
    });
    this.topicKey.grant(
      new iam.ServicePrincipal('cloudwatch.amazonaws.com'),
      'kms:Decrypt',
      'kms:GenerateDataKey*',
    );
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'Spendguard alarms and warnings',
      masterKey: this.topicKey,
      enforceSSL: true,
    });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));

    // CloudFront standard logging (legacy) rather than v2 logging: v2 needs its delivery source and
    // destination created in us-east-1 (CloudFront is global), i.e. another stack with cross-region
    // references, for the same result. Legacy logging writes with an ACL grant, so the bucket keeps
    // ACLs enabled (object writer) while blocking public access.
    this.accessLogsBucket = new s3.Bucket(this, 'AccessLogs', {
      objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      lifecycleRules: [{ expiration: props.accessLogRetention ?? Duration.days(90) }],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });
    acknowledge(
      this.accessLogsBucket,
      'AwsSolutions-S1',
      'This is the access-log bucket; logging it into itself would loop and logging it elsewhere adds a bucket for no reader.',
    );
  }

  /** Builds the dashboard and the alarms. Call once, after every watched resource exists. */
  public watch(r: WatchedResources): cloudwatch.Dashboard {
    if (this.dashboard) throw new Error('SpendguardObservability.watch() may be called only once');
    const region = Stack.of(this).region;

    const spend = new cloudwatch.MathExpression({
      expression: 'spend / 1000000000',
      usingMetrics: { spend: searchSum('SpendNanoUsd', 'nano-USD') },
      label: 'USD per minute',
      period: MINUTE,
    });
    const trips = GUARDRAIL_LAYERS.map((layer) => searchSum(`Trips_${layer}`, layer));
    const guardFailOpens = LAMBDA_EDGE_REGIONS.map((edge) =>
      searchSum('GuardFailOpen', `guard ${edge}`, { region: edge }),
    );
    // The relay's fail-opens: a call forwarded whose key it could not verify (store unreachable), or
    // admitted without a reservation because no cap was known while the lease store failed.
    const relayFailOpens = [
      searchSum('RelayUnverified', 'relay unverified key'),
      searchSum('AdmissionFailOpen', 'relay admitted unreserved'),
    ];
    const iteratorAge = (fn: SpendguardFunction, label: string) =>
      fn.metric('IteratorAge', { statistic: 'Maximum', period: MINUTE, label });
    const dlqDepth = (q: sqs.IQueue, label?: string) =>
      q.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: MINUTE, label });

    const functions: Array<[string, SpendguardFunction]> = [
      ['ingest', r.ingest],
      ['pricing', r.pricingConsumer],
      ['guardrails', r.guardrailConsumer],
      ['relay', r.relay],
      ['enforce', r.enforce],
      ['api', r.api],
      ['forecast', r.forecast],
      ['price refresh', r.priceRefresh],
    ];

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({ title: 'Spend per minute (USD)', left: [spend], width: 12 }),
          new cloudwatch.GraphWidget({
            title: 'Events ingested per minute',
            left: [
              searchSum('EventsIngested', 'events ingested'),
              searchSum('EventsPriced', 'events priced'),
            ],
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Guardrail trips by layer',
            left: trips,
            stacked: true,
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'Fail-opens (edge guard by region, relay)',
            left: [...guardFailOpens, ...relayFailOpens],
            stacked: true,
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Proxy latency (ms)',
            left: [
              r.relay.metricDuration({ statistic: 'p50', period: MINUTE, label: 'relay duration p50' }),
              r.relay.metricDuration({ statistic: 'p99', period: MINUTE, label: 'relay duration p99' }),
            ],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'Consumer iterator age (ms)',
            left: [iteratorAge(r.pricingConsumer, 'pricing'), iteratorAge(r.guardrailConsumer, 'guardrails')],
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Dead letters (messages waiting)',
            left: [
              dlqDepth(r.pricingDeadLetterQueue, 'pricing'),
              dlqDepth(r.guardrailDeadLetterQueue, 'guardrails'),
            ],
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'Function errors',
            left: functions.map(([label, fn]) => fn.metricErrors({ period: MINUTE, label })),
            stacked: true,
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'API responses',
            left: [
              r.httpApi.metricClientError({ period: MINUTE, label: '4xx' }),
              r.httpApi.metricServerError({ period: MINUTE, label: '5xx' }),
            ],
            right: [r.httpApi.metricLatency({ statistic: 'p99', period: MINUTE, label: 'latency p99' })],
            width: 8,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Hard cap at the relay (calls per minute)',
            left: [
              searchSum('AdmissionRefused', 'refused (budget 429)'),
              searchSum('AdmissionStoreUnavailable', 'refused: lease store unavailable'),
              searchSum('RelayUsageUnread', 'settled at the worst case (usage unread)'),
              searchSum('RelayEventFailed', 'events not recorded'),
            ],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'Loops and bypasses stopped at the origin',
            left: [
              searchSum('RelayLoopHold', 'in-line loop holds'),
              searchSum('RelayLoopRefused', 'in-line loop refusals'),
              searchSum('ApiOriginRefused', 'API calls that skipped CloudFront'),
              searchSum('ApiOriginUnavailable', 'API origin secret unreadable (503)'),
            ],
            width: 12,
          }),
        ],
        [
          new cloudwatch.TextWidget({
            markdown: `Fail-opens of the edge guard are recorded in the region that ran it (${LAMBDA_EDGE_REGIONS.length} regional edge caches graphed); everything else in ${region}. Runbook: docs/operations.md.`,
            width: 24,
            height: 2,
          }),
        ],
      ],
    });

    // Alarms: the pipeline falling behind or dropping records, the request path failing.
    const alarm = (
      id: string,
      metric: cloudwatch.IMetric,
      threshold: number,
      description: string,
      periods = 1,
    ) => {
      const a = new cloudwatch.Alarm(this, id, {
        metric,
        threshold,
        evaluationPeriods: periods,
        datapointsToAlarm: periods,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `${description} Runbook: docs/operations.md.`,
      });
      a.addAlarmAction(new actions.SnsAction(this.topic));
      a.addOkAction(new actions.SnsAction(this.topic));
      this.alarms.push(a);
      return a;
    };
    const fiveMinutes = Duration.minutes(5);
    alarm(
      'PricingIteratorAge',
      r.pricingConsumer.metric('IteratorAge', { statistic: 'Maximum', period: MINUTE }),
      60_000,
      'The pricing consumer is more than a minute behind the stream (ledger and spend are late).',
      5,
    );
    alarm(
      'GuardrailIteratorAge',
      r.guardrailConsumer.metric('IteratorAge', { statistic: 'Maximum', period: MINUTE }),
      60_000,
      'The guardrail consumer is more than a minute behind the stream (trips are late).',
      5,
    );
    alarm(
      'PricingDeadLetters',
      dlqDepth(r.pricingDeadLetterQueue),
      1,
      'Records failed pricing after all retries; redrive them from the stream.',
    );
    alarm(
      'GuardrailDeadLetters',
      dlqDepth(r.guardrailDeadLetterQueue),
      1,
      'Records failed guardrail evaluation after all retries; redrive them from the stream.',
    );
    for (const [label, fn, threshold] of [
      ['Ingest', r.ingest, 5],
      ['Relay', r.relay, 5],
      ['PricingConsumer', r.pricingConsumer, 5],
      ['GuardrailConsumer', r.guardrailConsumer, 5],
      ['Enforce', r.enforce, 1],
      ['Api', r.api, 5],
      ['Forecast', r.forecast, 1],
      ['PriceRefresh', r.priceRefresh, 1],
    ] as const) {
      alarm(
        `${label}Errors`,
        fn.metricErrors({ period: fiveMinutes }),
        threshold,
        `The ${label} function is failing.`,
      );
    }
    alarm(
      'Api5xx',
      r.httpApi.metricServerError({ period: fiveMinutes }),
      5,
      'The HTTP API is answering 5xx (ingest down means SDK events are buffered and retried).',
    );
    alarm(
      'IngestUnavailable',
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'IngestUnavailable',
        dimensionsMap: { service: 'ingest' },
        statistic: 'Sum',
        period: fiveMinutes,
      }),
      1,
      'Ingest could not write to Kinesis and answered 503.',
    );
    alarm(
      'ForecastFailed',
      r.forecastStateMachine.metricFailed({ period: Duration.hours(1) }),
      1,
      'The hourly forecast execution failed.',
    );
    return this.dashboard;
  }
}
