/**
 * The weekly price refresh (spec 1.3 PROVIDER_REGISTRY "refreshed weekly"): EventBridge Scheduler
 * invokes `lambdas/price-refresh`, which fetches pydantic/genai-prices' data, validates it and stores
 * `prices/latest.json` plus a dated copy in a private, versioned bucket. The consumers, the API and the
 * forecast load the latest snapshot (lambdas/shared/price-source.ts) and fall back to the bundled data.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { type FunctionDefaults, SpendguardFunction } from './function';
import { acknowledge, logicalIdOf } from './nag';

/** The key of the snapshot in force (`PRICES_KEY`). Dated copies live next to it. */
export const LATEST_PRICES_KEY = 'prices/latest.json';

/** Properties of {@link SpendguardPrices}. */
export interface SpendguardPricesProps {
  /** When the refresh runs. @default every Monday 06:00 UTC */
  readonly schedule?: scheduler.ScheduleExpression;
  /** Bucket for the S3 server access logs of the prices bucket. */
  readonly accessLogsBucket: s3.IBucket;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  readonly functionDefaults?: FunctionDefaults;
}

export class SpendguardPrices extends Construct {
  /** Versioned, encrypted, private bucket of price snapshots. */
  public readonly bucket: s3.Bucket;
  public readonly refreshFunction: SpendguardFunction;
  public readonly schedule: scheduler.Schedule;

  constructor(scope: Construct, id: string, props: SpendguardPricesProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.bucket = new s3.Bucket(this, 'Bucket', {
      versioned: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'prices-bucket/',
      // Dated copies are history; older versions of latest.json are kept 90 days for rollback.
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(90) }],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });

    this.refreshFunction = new SpendguardFunction(this, 'Refresh', {
      name: 'price-refresh',
      description: 'Weekly: fetch genai-prices data, validate it, store prices/latest.json and a dated copy',
      timeout: Duration.seconds(60),
      memorySize: 1024,
      defaults: props.functionDefaults,
      environment: { PRICES_BUCKET: this.bucket.bucketName, PRICES_KEY: LATEST_PRICES_KEY },
    });
    // Writes only under prices/ (latest.json and the dated copies); reads nothing.
    this.refreshFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [this.bucket.arnForObjects('prices/*')] }),
    );
    acknowledge(
      this.refreshFunction.role!,
      `AwsSolutions-IAM5[Resource::<${logicalIdOf(this.bucket)}.Arn>/prices/*]`,
      'The refresh writes prices/latest.json and a dated copy prices/<date>.json; the prefix is the narrowest resource.',
    );

    this.schedule = new scheduler.Schedule(this, 'Weekly', {
      description: 'Spendguard: weekly price snapshot refresh',
      schedule:
        props.schedule ??
        scheduler.ScheduleExpression.cron({ weekDay: 'MON', hour: '6', minute: '0' }),
      target: new targets.LambdaInvoke(this.refreshFunction, {
        retryAttempts: 2,
        maxEventAge: Duration.hours(6),
      }),
    });
  }

  /** Sets `PRICES_BUCKET` / `PRICES_KEY` and lets the function read the latest snapshot (that object only). */
  public bindPrices(fn: SpendguardFunction): void {
    fn.addEnvironment('PRICES_BUCKET', this.bucket.bucketName);
    fn.addEnvironment('PRICES_KEY', LATEST_PRICES_KEY);
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects(LATEST_PRICES_KEY)] }),
    );
  }
}
