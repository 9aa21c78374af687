/**
 * A stand-in for the two CloudWatch operations Bedrock reconciliation calls, `ListMetrics` and
 * `GetMetricData`, fed by the calls the fake Bedrock served: each call adds its token counts to the
 * `AWS/Bedrock` metrics `InputTokenCount`, `OutputTokenCount`, `CacheReadInputTokenCount` and
 * `CacheWriteInputTokenCount`, dimension `ModelId` (the model id of the request path), in the region the
 * call was signed for (SigV4 credential scope; a Bedrock API key names none: the mock's default region).
 *
 * Wire format as `@aws-sdk/client-cloudwatch` speaks it: AWS JSON 1.0, `POST /`,
 * `x-amz-target: GraniteServiceVersion20100801.<Operation>`, timestamps in epoch seconds. Only `Sum`
 * with whole-second periods is answered, periods aligned on `StartTime`; a page holds at most
 * `pageSize` results (`NextToken` = the index of the next).
 */
import type http from 'node:http';

/** The token counts of one served call, as Bedrock publishes them (`InputTokenCount` excludes the cache
 * tokens except for OpenAI models, as Converse's `inputTokens` does). */
export interface BedrockMetricSample {
  readonly at: number;
  readonly region: string;
  readonly modelId: string;
  readonly InputTokenCount: number;
  readonly OutputTokenCount: number;
  readonly CacheReadInputTokenCount: number;
  readonly CacheWriteInputTokenCount: number;
}
type MetricName = Exclude<keyof BedrockMetricSample, 'at' | 'region' | 'modelId'>;
const METRICS: readonly MetricName[] = [
  'InputTokenCount',
  'OutputTokenCount',
  'CacheReadInputTokenCount',
  'CacheWriteInputTokenCount',
];
const TARGET_PREFIX = 'GraniteServiceVersion20100801.';

/** The SigV4 credential scope's region (`Credential=AKID/20261122/us-west-2/bedrock/aws4_request`). */
export function signedRegion(headers: http.IncomingHttpHeaders): string | undefined {
  const auth = headers.authorization;
  const m = typeof auth === 'string' ? /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\//.exec(auth) : null;
  return m?.[1];
}

interface Query {
  Id?: string;
  MetricStat?: {
    Metric?: {
      Namespace?: string;
      MetricName?: string;
      Dimensions?: Array<{ Name?: string; Value?: string }>;
    };
    Period?: number;
    Stat?: string;
  };
}

export interface MockCloudWatch {
  record(sample: BedrockMetricSample): void;
  /** True when `req` is a CloudWatch call (then it is answered). */
  handle(req: http.IncomingMessage, body: string, res: http.ServerResponse): boolean;
}

function reply(res: http.ServerResponse, status: number, body: unknown, errorType?: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': String(Buffer.byteLength(text)),
    ...(errorType ? { 'x-amzn-query-error': `${errorType};Sender` } : {}),
  });
  res.end(text);
}

/** The stand-in over the samples recorded into it. */
export function createMockCloudWatch(options: { pageSize?: number } = {}): MockCloudWatch {
  const samples: BedrockMetricSample[] = [];
  const pageSize = options.pageSize ?? 500;

  const listMetrics = (region: string, input: Record<string, unknown>) => {
    const ids = [...new Set(samples.filter((s) => s.region === region).map((s) => s.modelId))].sort();
    const all =
      input.Namespace === undefined || input.Namespace === 'AWS/Bedrock'
        ? ids.flatMap((id) =>
            METRICS.map((m) => ({
              Namespace: 'AWS/Bedrock',
              MetricName: m,
              Dimensions: [{ Name: 'ModelId', Value: id }],
            })),
          )
        : [];
    const start = Number(input.NextToken ?? 0) || 0;
    const page = all.slice(start, start + pageSize);
    return {
      Metrics: page,
      ...(start + pageSize < all.length ? { NextToken: String(start + pageSize) } : {}),
    };
  };

  const getMetricData = (region: string, input: Record<string, unknown>) => {
    const queries = Array.isArray(input.MetricDataQueries) ? (input.MetricDataQueries as Query[]) : [];
    const startS = Number(input.StartTime);
    const endS = Number(input.EndTime);
    const results = queries.map((q) => {
      const metric = q.MetricStat?.Metric;
      const name = metric?.MetricName as MetricName;
      const modelId = metric?.Dimensions?.find((d) => d.Name === 'ModelId')?.Value;
      const period = q.MetricStat?.Period ?? 60;
      const sums = new Map<number, number>();
      if (metric?.Namespace === 'AWS/Bedrock' && METRICS.includes(name) && q.MetricStat?.Stat === 'Sum') {
        for (const s of samples) {
          const t = s.at / 1000;
          if (s.region !== region || s.modelId !== modelId || t < startS || t >= endS) continue;
          const bucket = startS + Math.floor((t - startS) / period) * period;
          sums.set(bucket, (sums.get(bucket) ?? 0) + s[name]);
        }
      }
      const buckets = [...sums.keys()].sort((a, b) => a - b);
      return {
        Id: q.Id,
        Label: name,
        StatusCode: 'Complete',
        Timestamps: buckets,
        Values: buckets.map((b) => sums.get(b) ?? 0),
      };
    });
    const start = Number(input.NextToken ?? 0) || 0;
    return {
      MetricDataResults: results.slice(start, start + pageSize),
      Messages: [],
      ...(start + pageSize < results.length ? { NextToken: String(start + pageSize) } : {}),
    };
  };

  return {
    record: (sample) => samples.push(sample),
    handle(req, body, res) {
      const target = req.headers['x-amz-target'];
      if (typeof target !== 'string' || !target.startsWith(TARGET_PREFIX)) return false;
      const region = signedRegion(req.headers);
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(body || '{}') as Record<string, unknown>;
      } catch {
        reply(res, 400, {
          __type: 'com.amazonaws.cloudwatch#InvalidParameterValueException',
          message: 'bad JSON',
        });
        return true;
      }
      if (region === undefined) {
        reply(res, 403, { __type: 'com.amazonaws.cloudwatch#AccessDenied', message: 'unsigned request' });
        return true;
      }
      const operation = target.slice(TARGET_PREFIX.length);
      if (operation === 'ListMetrics') reply(res, 200, listMetrics(region, input));
      else if (operation === 'GetMetricData') reply(res, 200, getMetricData(region, input));
      else reply(res, 400, { __type: 'com.amazonaws.cloudwatch#InvalidAction', message: operation });
      return true;
    },
  };
}
