/**
 * Amazon Bedrock's own figures for reconciliation: the CloudWatch `AWS/Bedrock` runtime token metrics,
 * summed per UTC day and `ModelId`, priced at the list (or the organization's) rates. Bedrock has no
 * usage or cost report an organization-scoped key can read; the metrics are the account's own count of
 * the tokens it served, so the figure is "what those tokens cost at the rates", not an invoice.
 *
 * Pure: the queries are built here, the results come in as GetMetricData returned them.
 */
import { resolveApplicationProfile } from '../pricing/bedrock-profiles';
import { calculateCost } from '../pricing/cost';
import type { CompiledOrgRates } from '../pricing/org-rates';
import type { PriceRegistry } from '../pricing/registry';
import { converseInputIncludesCache } from '../usage/bedrock';
import { reconciliationModelKey } from './model-key';
import type { ProviderRow } from './provider-rows';

export const BEDROCK_METRICS_NAMESPACE = 'AWS/Bedrock';
export const BEDROCK_MODEL_DIMENSION = 'ModelId';
/** One data point per UTC day (GetMetricData aligns periods on the query's start, 00:00 UTC). */
export const BEDROCK_METRICS_PERIOD_SECONDS = 86_400;
/** GetMetricData accepts at most 500 queries per call. */
export const MAX_METRIC_QUERIES_PER_CALL = 500;

/** The runtime token metrics read, and the field each sums into. */
export const BEDROCK_TOKEN_METRICS = {
  InputTokenCount: 'inputTokens',
  OutputTokenCount: 'outputTokens',
  CacheReadInputTokenCount: 'cacheReadTokens',
  CacheWriteInputTokenCount: 'cacheWriteTokens',
} as const;
type MetricName = keyof typeof BEDROCK_TOKEN_METRICS;
type TokenField = (typeof BEDROCK_TOKEN_METRICS)[MetricName];
const METRIC_NAMES = Object.keys(BEDROCK_TOKEN_METRICS) as MetricName[];

/** One GetMetricData query, in the API's shape (`MetricDataQuery`). */
export interface BedrockMetricQuery {
  readonly Id: string;
  readonly MetricStat: {
    readonly Metric: {
      readonly Namespace: string;
      readonly MetricName: string;
      readonly Dimensions: ReadonlyArray<{ readonly Name: string; readonly Value: string }>;
    };
    readonly Period: number;
    readonly Stat: 'Sum';
  };
  readonly ReturnData: true;
}

/** The queries of a set of model ids, and which model and field each query id answers for. */
export interface BedrockMetricQueryPlan {
  readonly queries: readonly BedrockMetricQuery[];
  readonly byId: ReadonlyMap<string, { readonly modelId: string; readonly field: TokenField }>;
}

/**
 * One `Sum` query per model id and token metric, period one day. Query ids are `m<model>_<metric>`
 * (GetMetricData ids start with a lower-case letter and hold only letters, digits and `_`).
 */
export function bedrockMetricQueries(modelIds: readonly string[]): BedrockMetricQueryPlan {
  const queries: BedrockMetricQuery[] = [];
  const byId = new Map<string, { modelId: string; field: TokenField }>();
  [...new Set(modelIds)].forEach((modelId, m) => {
    METRIC_NAMES.forEach((metricName, k) => {
      const Id = `m${m}_${k}`;
      byId.set(Id, { modelId, field: BEDROCK_TOKEN_METRICS[metricName] });
      queries.push({
        Id,
        MetricStat: {
          Metric: {
            Namespace: BEDROCK_METRICS_NAMESPACE,
            MetricName: metricName,
            Dimensions: [{ Name: BEDROCK_MODEL_DIMENSION, Value: modelId }],
          },
          Period: BEDROCK_METRICS_PERIOD_SECONDS,
          Stat: 'Sum',
        },
        ReturnData: true,
      });
    });
  });
  return { queries, byId };
}

/** `items` in consecutive slices of at most `size`. */
export function inBatches<T>(items: readonly T[], size: number = MAX_METRIC_QUERIES_PER_CALL): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One `MetricDataResult` as GetMetricData returns it (timestamps as the SDK parses them: Date). */
export interface BedrockMetricResult {
  readonly Id?: string;
  readonly Timestamps?: ReadonlyArray<Date | number | string>;
  readonly Values?: readonly number[];
}

/** The tokens Bedrock counted for one UTC day, region and model id. */
export interface BedrockDayUsage {
  readonly date: string;
  readonly region: string;
  readonly modelId: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
}

function dayOf(t: Date | number | string): string | null {
  const ms = t instanceof Date ? t.getTime() : typeof t === 'number' ? t : Date.parse(t);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : null;
}

/** A Sum as a token count: sums of integer samples are integers; anything else is not a count. */
function count(v: number): number {
  return Number.isFinite(v) && v > 0 ? Math.round(v) : 0;
}

/**
 * The results of every GetMetricData page of one region, folded to one row per day and model id.
 * Results whose id the plan does not know, and data points of a day outside `days`, are ignored.
 */
export function bedrockDayUsage(
  plan: BedrockMetricQueryPlan,
  results: readonly BedrockMetricResult[],
  region: string,
  days: readonly string[],
): BedrockDayUsage[] {
  const inWindow = new Set(days);
  const rows = new Map<string, { -readonly [K in keyof BedrockDayUsage]: BedrockDayUsage[K] }>();
  for (const r of results) {
    const q = r.Id === undefined ? undefined : plan.byId.get(r.Id);
    if (q === undefined) continue;
    const ts = r.Timestamps ?? [];
    const values = r.Values ?? [];
    for (let i = 0; i < ts.length && i < values.length; i++) {
      const date = dayOf(ts[i] as Date | number | string);
      if (date === null || !inWindow.has(date)) continue;
      const key = `${date}\u0000${q.modelId}`;
      let row = rows.get(key);
      if (row === undefined) {
        row = {
          date,
          region,
          modelId: q.modelId,
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        };
        rows.set(key, row);
      }
      row[q.field] += count(values[i] as number);
    }
  }
  return [...rows.values()].sort(
    (a, b) => a.date.localeCompare(b.date) || a.modelId.localeCompare(b.modelId),
  );
}

/** What pricing the metrics needs. */
export interface BedrockMetricPricing {
  readonly registry?: PriceRegistry;
  /** The organization's rates, application-profile mapping included (resolved as for its calls). */
  readonly orgRates?: CompiledOrgRates | null;
}

/**
 * The metric rows as reconciliation rows: per day and model key (the ledger's key of the same model
 * id), the cost at the rates and the tokens counted the ledger's way (input with cache reads and writes,
 * plus output).
 *
 * - `InputTokenCount` is read like Converse's `inputTokens`: it excludes the cache reads and writes,
 *   except for OpenAI models (by the vendor of the model id, an application profile resolved first).
 * - Cache writes are priced at the 5-minute rate: the metric does not split 5-minute from 1-hour writes,
 *   so 1-hour writes (2× input instead of 1.25× for Claude) are under-priced here.
 * - Service tier: CloudWatch publishes Priority and Flex calls under their own `ModelId` values,
 *   `<model-id>+priority` and `<model-id>+flex` (docs.aws.amazon.com/bedrock/latest/userguide/
 *   service-tiers-inference.html): those are priced at their tier and keyed as the model itself, so they
 *   line up with the ledger's row of the model. Batch and long-context bands are not applied (base rates:
 *   the metrics do not say each call's prompt size).
 */
export function priceBedrockDayUsage(
  rows: readonly BedrockDayUsage[],
  pricing: BedrockMetricPricing = {},
): ProviderRow[] {
  return rows.map((r) => {
    const { modelId, serviceTier } = splitTierSuffix(r.modelId);
    const model = resolveApplicationProfile(modelId, pricing.orgRates?.bedrockProfiles);
    const cache = r.cacheReadTokens + r.cacheWriteTokens;
    const inclusive = converseInputIncludesCache(r.inputTokens, r.outputTokens, cache, undefined, model);
    const inputTokens = inclusive ? Math.max(r.inputTokens, cache) : r.inputTokens + cache;
    const cost = calculateCost(
      {
        provider: 'bedrock',
        at: Date.parse(`${r.date}T00:00:00.000Z`),
        serviceTier,
        usage: {
          model: modelId,
          inputTokens,
          cacheReadTokens: r.cacheReadTokens,
          cacheWrite5mTokens: r.cacheWriteTokens,
          cacheWrite1hTokens: 0,
          outputTokens: r.outputTokens,
          reasoningTokens: 0,
        },
        orgRates: pricing.orgRates ?? null,
        baseRatesOnly: true,
      },
      pricing.registry,
    );
    return {
      date: r.date,
      model: reconciliationModelKey(modelId),
      costNanos: cost.costNanos,
      tokens: inputTokens + r.outputTokens,
    };
  });
}

/** `<model-id>+priority` / `+flex`: the metric dimension of a tier's calls, as the model id and the tier. */
function splitTierSuffix(dimension: string): { modelId: string; serviceTier: string | null } {
  const m = /^(.+)\+(priority|flex)$/.exec(dimension);
  return m === null
    ? { modelId: dimension, serviceTier: null }
    : { modelId: m[1] as string, serviceTier: m[2] as string };
}
