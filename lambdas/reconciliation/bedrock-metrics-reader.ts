/**
 * Reads Amazon Bedrock's CloudWatch token metrics (`AWS/Bedrock`, dimension `ModelId`) for a window of
 * UTC days in one region, with the official CloudWatch client (`@aws-sdk/client-cloudwatch`, AWS JSON 1.0
 * protocol): `ListMetrics` for the model ids that have token metrics, then `GetMetricData`, one `Sum`
 * per model and metric with a one-day period, at most 500 queries per call, each call paged with
 * `NextToken`. IAM: `cloudwatch:ListMetrics` and `cloudwatch:GetMetricData` (resource `*`).
 */
import { CloudWatchClient, GetMetricDataCommand, ListMetricsCommand } from '@aws-sdk/client-cloudwatch';
import {
  BEDROCK_METRICS_NAMESPACE,
  BEDROCK_MODEL_DIMENSION,
  BEDROCK_TOKEN_METRICS,
  bedrockDayUsage,
  bedrockMetricQueries,
  inBatches,
  type BedrockDayUsage,
  type BedrockMetricResult,
} from '../../core/reconciliation';

/** The account's Bedrock token counts of one region, per day and model id. */
export interface BedrockMetricsReader {
  read(region: string, days: readonly string[]): Promise<BedrockDayUsage[]>;
}

export interface CloudWatchReaderOptions {
  /** @default a CloudWatchClient of the region, default credentials (the function's role) */
  readonly clientFor?: (region: string) => Pick<CloudWatchClient, 'send'>;
}

/** Pages followed per listing or query batch before giving up (a runaway NextToken never loops forever). */
const MAX_PAGES = 100;

/** Thrown for a CloudWatch call that failed: names the region and the operation, nothing else. */
export class BedrockMetricsError extends Error {
  constructor(region: string, operation: string, cause: unknown) {
    const what = cause instanceof Error ? cause.name : 'error';
    super(`bedrock: CloudWatch ${operation} in ${region} failed (${what})`);
    this.name = 'BedrockMetricsError';
  }
}

/** The reader over the real CloudWatch API. */
export function cloudWatchBedrockMetrics(opts: CloudWatchReaderOptions = {}): BedrockMetricsReader {
  const clients = new Map<string, Pick<CloudWatchClient, 'send'>>();
  const clientFor =
    opts.clientFor ??
    ((region: string) => {
      let c = clients.get(region);
      if (c === undefined) {
        c = new CloudWatchClient({ region });
        clients.set(region, c);
      }
      return c;
    });
  const tokenMetrics = new Set(Object.keys(BEDROCK_TOKEN_METRICS));

  const modelIds = async (client: Pick<CloudWatchClient, 'send'>, region: string): Promise<string[]> => {
    const ids = new Set<string>();
    let next: string | undefined;
    let pages = 0;
    do {
      const out = await client
        .send(
          new ListMetricsCommand({
            Namespace: BEDROCK_METRICS_NAMESPACE,
            Dimensions: [{ Name: BEDROCK_MODEL_DIMENSION }],
            NextToken: next,
          }),
        )
        .catch((err: unknown) => {
          throw new BedrockMetricsError(region, 'ListMetrics', err);
        });
      for (const m of out.Metrics ?? []) {
        const dims = m.Dimensions ?? [];
        // The per-model series only: other dimension sets of the namespace would double-count.
        if (!tokenMetrics.has(m.MetricName ?? '') || dims.length !== 1) continue;
        const value = dims[0]?.Name === BEDROCK_MODEL_DIMENSION ? dims[0].Value : undefined;
        if (value) ids.add(value);
      }
      next = out.NextToken;
    } while (next && ++pages < MAX_PAGES);
    return [...ids].sort();
  };

  return {
    async read(region: string, days: readonly string[]): Promise<BedrockDayUsage[]> {
      const first = days[0];
      const last = days[days.length - 1];
      if (first === undefined || last === undefined) return [];
      const client = clientFor(region);
      const plan = bedrockMetricQueries(await modelIds(client, region));
      const start = new Date(`${first}T00:00:00.000Z`);
      const end = new Date(Date.parse(`${last}T00:00:00.000Z`) + 86_400_000);
      const results: BedrockMetricResult[] = [];
      for (const batch of inBatches(plan.queries)) {
        let next: string | undefined;
        let pages = 0;
        do {
          const out = await client
            .send(
              new GetMetricDataCommand({
                MetricDataQueries: batch.map((q) => ({
                  Id: q.Id,
                  MetricStat: {
                    Metric: {
                      Namespace: q.MetricStat.Metric.Namespace,
                      MetricName: q.MetricStat.Metric.MetricName,
                      Dimensions: q.MetricStat.Metric.Dimensions.map((d) => ({
                        Name: d.Name,
                        Value: d.Value,
                      })),
                    },
                    Period: q.MetricStat.Period,
                    Stat: q.MetricStat.Stat,
                  },
                  ReturnData: q.ReturnData,
                })),
                StartTime: start,
                EndTime: end,
                ScanBy: 'TimestampAscending',
                NextToken: next,
              }),
            )
            .catch((err: unknown) => {
              throw new BedrockMetricsError(region, 'GetMetricData', err);
            });
          results.push(...(out.MetricDataResults ?? []));
          next = out.NextToken;
        } while (next && ++pages < MAX_PAGES);
      }
      return bedrockDayUsage(plan, results, region, days);
    },
  };
}
