/**
 * Reads each provider's own usage and cost reports for a window of UTC days and reduces them to
 * core/reconciliation `ProviderReport`s. Request formats (docs/reconciliation.md):
 * - OpenAI: `GET /v1/organization/usage/completions` and `/usage/embeddings` (`group_by=model`) and
 *   `GET /v1/organization/costs` (`group_by=line_item`), `start_time`/`end_time` in Unix seconds,
 *   `bucket_width=1d`, `limit`, `page`; `Authorization: Bearer <admin key>`.
 * - Anthropic: `GET /v1/organizations/usage_report/messages` (`group_by[]=model`) and
 *   `GET /v1/organizations/cost_report` (`group_by[]=description`), `starting_at` RFC 3339 (to now),
 *   `bucket_width=1d`, `limit`, `page`; `x-api-key: <admin key>`, `anthropic-version: 2023-06-01`.
 * - OpenRouter: `GET /api/v1/activity` (management key, Bearer): the last 30 completed UTC days.
 */
import {
  anthropicCostPageSchema,
  anthropicCostRows,
  anthropicUsagePageSchema,
  anthropicUsageRows,
  openAiCostPageSchema,
  openAiCostRows,
  openAiUsagePageSchema,
  openAiUsageRows,
  openRouterActivitySchema,
  openRouterRows,
  type ProviderReport,
  type ReconciledProvider,
} from '../../core/reconciliation';
import type { z } from 'zod';
import { allPages, type FetchFn, getReport, type ReportPage } from './report-request';

/** Where each provider's admin API lives (the mock providers' URLs locally). */
export type ProviderBaseUrls = Record<ReconciledProvider, string>;

export const DEFAULT_PROVIDER_BASE_URLS: ProviderBaseUrls = {
  openai: 'https://api.openai.com',
  anthropic: 'https://api.anthropic.com',
  openrouter: 'https://openrouter.ai',
};

/** What a report request needs. */
export interface ReportRequest {
  baseUrl: string;
  adminKey: string;
  fetch: FetchFn;
  /** The UTC days compared, oldest first; the last is today. */
  days: readonly string[];
  /** Buckets per page (OpenAI: 1–31 for 1d; Anthropic: 1–31). Small values force paging. @default 31 */
  pageLimit?: number;
}

const ANTHROPIC_VERSION = '2023-06-01';

function url(base: string, path: string, query: Array<[string, string]>): URL {
  const u = new URL(base.replace(/\/+$/, '') + path);
  for (const [k, v] of query) u.searchParams.append(k, v);
  return u;
}

function bounds(days: readonly string[]): { start: number; end: number } {
  const first = days[0];
  const last = days[days.length - 1];
  if (first === undefined || last === undefined) throw new RangeError('empty window');
  return { start: Date.parse(`${first}T00:00:00Z`), end: Date.parse(`${last}T00:00:00Z`) + 86_400_000 };
}

/**
 * Every page of one report path of `provider`, grouped by `groupBy` (the parameter is `group_by` at OpenAI,
 * `group_by[]` at Anthropic), following `next_page` through {@link allPages}.
 */
function pagedReport(
  r: ReportRequest,
  provider: 'openai' | 'anthropic',
  base: ReadonlyArray<[string, string]>,
  groupByParam: string,
  headers: Record<string, string>,
) {
  return <P extends ReportPage>(path: string, groupBy: string, schema: z.ZodType<P>) =>
    allPages(
      (page) =>
        getReport(
          r.fetch,
          url(r.baseUrl, path, [
            ...base,
            [groupByParam, groupBy],
            ...(page ? [['page', page] as [string, string]] : []),
          ]),
          headers,
          schema,
          provider,
        ),
      provider,
    );
}

export async function openAiReport(r: ReportRequest): Promise<ProviderReport> {
  const { start, end } = bounds(r.days);
  const headers = { authorization: `Bearer ${r.adminKey}` };
  const limit = String(r.pageLimit ?? 31);
  const base: Array<[string, string]> = [
    ['start_time', String(start / 1000)],
    ['end_time', String(end / 1000)],
    ['bucket_width', '1d'],
    ['limit', limit],
  ];
  const paged = pagedReport(r, 'openai', base, 'group_by', headers);
  const [completions, embeddings, costs] = await Promise.all([
    paged('/v1/organization/usage/completions', 'model', openAiUsagePageSchema),
    paged('/v1/organization/usage/embeddings', 'model', openAiUsagePageSchema),
    paged('/v1/organization/costs', 'line_item', openAiCostPageSchema),
  ]);
  return {
    provider: 'openai',
    rows: [...openAiUsageRows([...completions, ...embeddings]), ...openAiCostRows(costs)],
    coveredDays: r.days,
  };
}

export async function anthropicReport(r: ReportRequest): Promise<ProviderReport> {
  const { start } = bounds(r.days);
  const headers = { 'x-api-key': r.adminKey, 'anthropic-version': ANTHROPIC_VERSION };
  // No `ending_at`: it keeps only buckets that end before it, which could drop today's; the window
  // always ends today, so the report runs to now.
  const base: Array<[string, string]> = [
    ['starting_at', new Date(start).toISOString().replace('.000Z', 'Z')],
    ['bucket_width', '1d'],
    ['limit', String(r.pageLimit ?? 31)],
  ];
  const paged = pagedReport(r, 'anthropic', base, 'group_by[]', headers);
  const [usage, costs] = await Promise.all([
    paged('/v1/organizations/usage_report/messages', 'model', anthropicUsagePageSchema),
    paged('/v1/organizations/cost_report', 'description', anthropicCostPageSchema),
  ]);
  return {
    provider: 'anthropic',
    rows: [...anthropicUsageRows(usage), ...anthropicCostRows(costs)],
    coveredDays: r.days,
  };
}

/** OpenRouter's activity covers completed UTC days only: today is left out (pending), never "overcounted". */
export async function openRouterReport(r: ReportRequest): Promise<ProviderReport> {
  const activity = await getReport(
    r.fetch,
    url(r.baseUrl, '/api/v1/activity', []),
    { authorization: `Bearer ${r.adminKey}` },
    openRouterActivitySchema,
    'openrouter',
  );
  return { provider: 'openrouter', rows: openRouterRows(activity), coveredDays: r.days.slice(0, -1) };
}

export const PROVIDER_REPORTS: Record<ReconciledProvider, (r: ReportRequest) => Promise<ProviderReport>> = {
  openai: openAiReport,
  anthropic: anthropicReport,
  openrouter: openRouterReport,
};
