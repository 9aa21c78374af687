/**
 * The event pipeline: ingest → Kinesis (partition key = orgId) → the pricing and guardrail consumers.
 */
import { Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { KinesisEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SpendguardData } from './data';
import { type FunctionDefaults, SpendguardFunction } from './function';
import { acknowledge } from './nag';
import { bindOpenTelemetry, type OpenTelemetryExport } from './opentelemetry';
import type { SpendguardPrices } from './prices';
import type { SpendguardSecrets } from './secrets';

/** The event source mapping settings both consumers share (see docs/operations.md). */
export const CONSUMER_SOURCE_SETTINGS = {
  /** Records per invocation; a record holds one organization's batch (≤ 100 events). */
  batchSize: 50,
  /** Waits at most this long to fill a batch: the ledger shows an event within about 5 s (spec 4.3). */
  maxBatchingWindow: Duration.seconds(1),
  /** Split a failing batch to isolate a poison record instead of retrying the whole batch. */
  bisectBatchOnError: true,
  /** Bounded retries: a record that still fails goes to the dead-letter queue and the shard moves on. */
  retryAttempts: 10,
  /** A record older than this is sent to the dead-letter queue instead of being retried. */
  maxRecordAge: Duration.hours(6),
  /** The handlers return `batchItemFailures` (the first failed record of each organization onwards). */
  reportBatchItemFailures: true,
  /** One batch per shard at a time: an organization's records are applied in order (design decision 5). */
  parallelizationFactor: 1,
  /** Start from the oldest record, so nothing written before the mapping existed is skipped. */
  startingPosition: lambda.StartingPosition.TRIM_HORIZON,
} as const;

/** Properties of {@link SpendguardPipeline}. */
export interface SpendguardPipelineProps {
  readonly data: SpendguardData;
  readonly secrets: SpendguardSecrets;
  readonly prices: SpendguardPrices;
  /** Soft-cap warnings: the guardrail consumer publishes here. */
  readonly notifyTopic: sns.ITopic;
  /**
   * How long the stream keeps records. Dead-letter messages hold only the shard and sequence numbers
   * of the failed records, so a record can be redriven only while the stream still has it.
   * @default Duration.days(7)
   */
  readonly streamRetention?: Duration;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  readonly functionDefaults?: FunctionDefaults;
  /** OpenTelemetry export of both consumers (see {@link OpenTelemetryExport}). @default - no export */
  readonly openTelemetry?: OpenTelemetryExport;
}

/**
 * An encrypted on-demand Kinesis stream, the ingest function (PutRecords), and the two consumers,
 * each with its own encrypted SQS dead-letter queue (on-failure destination).
 */
export class SpendguardPipeline extends Construct {
  public readonly stream: kinesis.Stream;
  public readonly ingestFunction: SpendguardFunction;
  public readonly pricingConsumer: SpendguardFunction;
  public readonly guardrailConsumer: SpendguardFunction;
  public readonly pricingDeadLetterQueue: sqs.Queue;
  public readonly guardrailDeadLetterQueue: sqs.Queue;
  public readonly pricingEventSource: KinesisEventSource;
  public readonly guardrailEventSource: KinesisEventSource;

  constructor(scope: Construct, id: string, props: SpendguardPipelineProps) {
    super(scope, id);
    const { data, secrets, prices } = props;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    this.stream = new kinesis.Stream(this, 'Events', {
      streamMode: kinesis.StreamMode.ON_DEMAND,
      encryption: kinesis.StreamEncryption.MANAGED,
      retentionPeriod: props.streamRetention ?? Duration.days(7),
      removalPolicy,
    });

    // Ingest: authenticates the key (GetItem of the key item; the pepper for its HMAC) and writes records.
    this.ingestFunction = new SpendguardFunction(this, 'Ingest', {
      name: 'ingest',
      description: 'POST /api/ingest and POST /v1/events: validate, authenticate, put to Kinesis',
      memorySize: 512,
      timeout: Duration.seconds(10),
      defaults: props.functionDefaults,
    });
    data.bindDataTable(this.ingestFunction, ['GetItem']);
    data.bindFlagsTable(this.ingestFunction, ['Query']); // the enforcement block of every answer
    secrets.bindPepper(this.ingestFunction);
    this.bindStream(this.ingestFunction);

    // Pricing: ledger entries (conditional PutItem) and aggregates (UpdateItem ADD).
    this.pricingConsumer = new SpendguardFunction(this, 'PricingConsumer', {
      name: 'pricing-consumer',
      description: 'Kinesis consumer: price events, write the ledger and spend aggregates exactly once',
      memorySize: 1024,
      timeout: Duration.minutes(2),
      defaults: props.functionDefaults,
    });
    data.bindDataTable(this.pricingConsumer, ['PutItem', 'UpdateItem']);
    data.bindFlagsTable(this.pricingConsumer, []);
    secrets.bindPepper(this.pricingConsumer, false);
    prices.bindPrices(this.pricingConsumer);
    this.allowBedrockProfileLookup(this.pricingConsumer);

    // Guardrails: org config and state, trips, warnings in the ledger; flags for every key of a tripped org.
    this.guardrailConsumer = new SpendguardFunction(this, 'GuardrailConsumer', {
      name: 'guardrail-consumer',
      description: 'Kinesis consumer: five guardrail layers per organization, flags, soft-cap warnings',
      memorySize: 1024,
      timeout: Duration.minutes(2),
      defaults: props.functionDefaults,
    });
    data.bindDataTable(this.guardrailConsumer, ['GetItem', 'PutItem', 'Query']);
    data.bindFlagsTable(this.guardrailConsumer, ['PutItem', 'Query']);
    secrets.bindPepper(this.guardrailConsumer);
    prices.bindPrices(this.guardrailConsumer);
    this.allowBedrockProfileLookup(this.guardrailConsumer);
    this.guardrailConsumer.addEnvironment('NOTIFY_TOPIC_ARN', props.notifyTopic.topicArn);
    props.notifyTopic.grantPublish(this.guardrailConsumer);
    acknowledge(
      this.guardrailConsumer.role!,
      'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      "Publishing to the KMS-encrypted topic needs kms:GenerateDataKey* and kms:Decrypt on the topic's key (SNS SSE), granted on that key only.",
    );

    this.pricingDeadLetterQueue = this.deadLetterQueue('PricingDeadLetters');
    this.guardrailDeadLetterQueue = this.deadLetterQueue('GuardrailDeadLetters');
    this.pricingEventSource = new KinesisEventSource(this.stream, {
      ...CONSUMER_SOURCE_SETTINGS,
      onFailure: new SqsDlq(this.pricingDeadLetterQueue),
    });
    this.guardrailEventSource = new KinesisEventSource(this.stream, {
      ...CONSUMER_SOURCE_SETTINGS,
      onFailure: new SqsDlq(this.guardrailDeadLetterQueue),
    });
    this.pricingConsumer.addEventSource(this.pricingEventSource);
    this.guardrailConsumer.addEventSource(this.guardrailEventSource);
    if (props.openTelemetry) {
      // Calls are exported where every ledger event passes (pricing), trips where they happen (guardrails).
      bindOpenTelemetry(this.pricingConsumer, props.openTelemetry, Stack.of(this).region);
      bindOpenTelemetry(this.guardrailConsumer, props.openTelemetry, Stack.of(this).region);
    }
  }

  /** Sets `EVENTS_STREAM` and grants `kinesis:PutRecords` on the stream, nothing else. */
  public bindStream(fn: SpendguardFunction): void {
    fn.addEnvironment('EVENTS_STREAM', this.stream.streamName);
    this.stream.grant(fn, 'kinesis:PutRecords');
  }

  /**
   * Bedrock application inference profiles name no model: the consumers resolve the ones an organization
   * has not mapped with GetInferenceProfile (docs/bedrock.md), on this account's profiles only.
   */
  private allowBedrockProfileLookup(fn: SpendguardFunction): void {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['bedrock:GetInferenceProfile'],
        resources: [`arn:${Aws.PARTITION}:bedrock:*:${Aws.ACCOUNT_ID}:application-inference-profile/*`],
      }),
    );
    acknowledge(
      fn.role!,
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:application-inference-profile/*]',
      "Application inference profiles are created by the account at will and named by random ids; read-only GetInferenceProfile on this account's profiles, in any region the agents call.",
    );
  }

  private deadLetterQueue(id: string): sqs.Queue {
    const queue = new sqs.Queue(this, id, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(
      queue,
      'AwsSolutions-SQS3',
      'This queue is itself the dead-letter (on-failure) destination of a Kinesis event source mapping.',
    );
    return queue;
  }
}
