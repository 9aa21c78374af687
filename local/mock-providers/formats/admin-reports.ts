/**
 * The providers' admin usage and cost reports, in their real wire formats, computed from what the fake
 * providers billed (billing.ts):
 * - OpenAI `GET /v1/organization/usage/completions`, `/usage/embeddings` and `/costs`: `start_time`
 *   (required) / `end_time` in Unix seconds, `bucket_width=1d`, `group_by` (`model`; costs: `line_item`),
 *   `limit` (default 7, max 31 buckets), `page` / `next_page` / `has_more`.
 * - Anthropic `GET /v1/organizations/usage_report/messages` and `/cost_report`: `starting_at` (required)
 *   / `ending_at` RFC 3339, `bucket_width=1d`, `group_by[]` (`model`; cost: `description`), `limit`
 *   (default 7, max 31), `page`; amounts in cents as decimal strings.
 * - OpenRouter `GET /api/v1/activity`: completed UTC days of the last 30 (optional `date`), one item per
 *   day and model, `usage` in USD.
 * Buckets run from the start day to the end (default: through today), empty days included, as the real
 * reports do. Only 1-day buckets are served (the reconciliation asks for nothing else).
 */
import type { BilledCall } from '../billing';
import { anthropicError } from './anthropic';
import { openaiError } from './openai';
import { json, type MockReply } from '../types';

const DAY_MS = 86_400_000;
const DEFAULT_BUCKETS = 7;
const MAX_BUCKETS = 31;

const dayStart = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Paging cursor: the index of the next bucket, opaque to the caller. */
const encodePage = (index: number): string => Buffer.from(`bucket:${index}`).toString('base64url');
function decodePage(page: string | null): number | undefined {
  if (page === null) return 0;
  const m = /^bucket:(\d{1,6})$/.exec(Buffer.from(page, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

interface Window {
  /** Day starts (ms) of the buckets of this page. */
  days: number[];
  next: string | null;
}

/** The page of day buckets a request asks for, or an error message for the provider's 400 body. */
function bucketWindow(startMs: number, endMs: number, q: URLSearchParams): Window | string {
  if (!Number.isFinite(startMs)) return 'start time is required';
  if (!Number.isFinite(endMs) || endMs <= startMs) return 'end time must be after the start time';
  const width = q.get('bucket_width') ?? '1d';
  if (width !== '1d') return `bucket_width ${width} is not served by the mock (only 1d)`;
  const limitRaw = q.get('limit');
  const limit = limitRaw === null ? DEFAULT_BUCKETS : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_BUCKETS) return `limit must be 1..${MAX_BUCKETS}`;
  const first = decodePage(q.get('page'));
  if (first === undefined) return 'invalid page token';
  const all: number[] = [];
  for (let d = dayStart(startMs); d < endMs; d += DAY_MS) all.push(d);
  const days = all.slice(first, first + limit);
  return { days, next: first + limit < all.length ? encodePage(first + limit) : null };
}

interface Totals {
  model: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  inputNanos: number;
  outputNanos: number;
}

/** Sums the calls of one day, per model (or all together as model `''`). */
function totalsOfDay(calls: readonly BilledCall[], day: number, byModel: boolean): Totals[] {
  const out = new Map<string, Totals>();
  for (const c of calls) {
    if (c.at < day || c.at >= day + DAY_MS) continue;
    const key = byModel ? c.model : '';
    let t = out.get(key);
    if (!t) {
      t = { model: key, calls: 0, inputTokens: 0, outputTokens: 0, inputNanos: 0, outputNanos: 0 };
      out.set(key, t);
    }
    t.calls += 1;
    t.inputTokens += c.inputTokens;
    t.outputTokens += c.outputTokens;
    t.inputNanos += c.inputNanos;
    t.outputNanos += c.outputNanos;
  }
  return [...out.values()].sort((a, b) => a.model.localeCompare(b.model));
}

const groupsOf = (q: URLSearchParams, name: string): string[] => q.getAll(name).flatMap((v) => v.split(','));

function openAiWindow(q: URLSearchParams, now: number): Window | string {
  const start = Number(q.get('start_time') ?? NaN) * 1000;
  const endRaw = q.get('end_time');
  const end = endRaw === null ? dayStart(now) + DAY_MS : Number(endRaw) * 1000;
  return bucketWindow(start, end, q);
}

function openAiPage(w: Window, results: (day: number) => unknown[]): MockReply {
  return json(200, {
    object: 'page',
    data: w.days.map((d) => ({
      object: 'bucket',
      start_time: d / 1000,
      end_time: (d + DAY_MS) / 1000,
      results: results(d),
    })),
    has_more: w.next !== null,
    next_page: w.next,
  });
}

/** `GET /v1/organization/usage/completions` or `/usage/embeddings`. */
export function openAiUsage(
  kind: BilledCall['kind'],
  calls: readonly BilledCall[],
  q: URLSearchParams,
  now: number,
): MockReply {
  const w = openAiWindow(q, now);
  if (typeof w === 'string') return openaiError(400, w);
  const byModel = groupsOf(q, 'group_by').includes('model');
  const mine = calls.filter((c) => c.provider === 'openai' && c.kind === kind);
  return openAiPage(w, (d) =>
    totalsOfDay(mine, d, byModel).map((t) => ({
      object: `organization.usage.${kind}.result`,
      input_tokens: t.inputTokens,
      ...(kind === 'completions'
        ? {
            output_tokens: t.outputTokens,
            input_cached_tokens: 0,
            input_audio_tokens: 0,
            output_audio_tokens: 0,
          }
        : {}),
      num_model_requests: t.calls,
      project_id: null,
      user_id: null,
      api_key_id: null,
      model: byModel ? t.model : null,
      batch: null,
      ...(kind === 'completions' ? { service_tier: null } : {}),
    })),
  );
}

/** `GET /v1/organization/costs`: `amount.value` in dollars (a JSON number), line items `<model>, input|output`. */
export function openAiCosts(calls: readonly BilledCall[], q: URLSearchParams, now: number): MockReply {
  const w = openAiWindow(q, now);
  if (typeof w === 'string') return openaiError(400, w);
  const byLine = groupsOf(q, 'group_by').includes('line_item');
  const mine = calls.filter((c) => c.provider === 'openai');
  const result = (nanos: number, lineItem: string | null) => ({
    object: 'organization.costs.result',
    amount: { value: nanos / 1e9, currency: 'usd' },
    line_item: lineItem,
    project_id: null,
  });
  return openAiPage(w, (d) =>
    totalsOfDay(mine, d, byLine).flatMap((t) =>
      byLine
        ? [result(t.inputNanos, `${t.model}, input`), result(t.outputNanos, `${t.model}, output`)]
        : [result(t.inputNanos + t.outputNanos, null)],
    ),
  );
}

function anthropicWindow(q: URLSearchParams, now: number): Window | string {
  const start = Date.parse(q.get('starting_at') ?? '');
  const endRaw = q.get('ending_at');
  const end = endRaw === null ? dayStart(now) + DAY_MS : Date.parse(endRaw);
  return bucketWindow(start, end, q);
}

function anthropicPage(w: Window, results: (day: number) => unknown[]): MockReply {
  return json(200, {
    data: w.days.map((d) => ({
      starting_at: isoSeconds(d),
      ending_at: isoSeconds(d + DAY_MS),
      results: results(d),
    })),
    has_more: w.next !== null,
    next_page: w.next,
  });
}

/** `GET /v1/organizations/usage_report/messages` */
export function anthropicUsageReport(
  calls: readonly BilledCall[],
  q: URLSearchParams,
  now: number,
): MockReply {
  const w = anthropicWindow(q, now);
  if (typeof w === 'string') return anthropicError(400, w);
  const byModel = groupsOf(q, 'group_by[]').includes('model');
  const mine = calls.filter((c) => c.provider === 'anthropic');
  return anthropicPage(w, (d) =>
    totalsOfDay(mine, d, byModel).map((t) => ({
      api_key_id: null,
      workspace_id: null,
      model: byModel ? t.model : null,
      service_tier: null,
      context_window: null,
      uncached_input_tokens: t.inputTokens,
      cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
      cache_read_input_tokens: 0,
      output_tokens: t.outputTokens,
      server_tool_use: { web_search_requests: 0 },
    })),
  );
}

/** Nanos as Anthropic's cost amount: cents, as an exact decimal string (1 cent = 10^7 nanos). */
export function nanosAsCents(nanos: number): string {
  const whole = Math.floor(nanos / 1e7);
  const frac = String(nanos % 1e7)
    .padStart(7, '0')
    .replace(/0+$/, '');
  return frac === '' ? String(whole) : `${whole}.${frac}`;
}

/** `GET /v1/organizations/cost_report`: per model and token type when grouped by `description`. */
export function anthropicCostReport(
  calls: readonly BilledCall[],
  q: URLSearchParams,
  now: number,
): MockReply {
  const w = anthropicWindow(q, now);
  if (typeof w === 'string') return anthropicError(400, w);
  const byDescription = groupsOf(q, 'group_by[]').includes('description');
  const mine = calls.filter((c) => c.provider === 'anthropic');
  const item = (nanos: number, t: Totals | null, tokenType: string | null, label: string) => ({
    currency: 'USD',
    amount: nanosAsCents(nanos),
    workspace_id: null,
    description: t ? `${t.model} Usage - ${label}` : null,
    cost_type: t ? 'tokens' : null,
    context_window: t ? '0-200k' : null,
    model: t ? t.model : null,
    service_tier: t ? 'standard' : null,
    token_type: tokenType,
  });
  return anthropicPage(w, (d) =>
    totalsOfDay(mine, d, byDescription).flatMap((t) =>
      byDescription
        ? [
            item(t.inputNanos, t, 'uncached_input_tokens', 'Input Tokens'),
            item(t.outputNanos, t, 'output_tokens', 'Output Tokens'),
          ]
        : [item(t.inputNanos + t.outputNanos, null, null, '')],
    ),
  );
}

/** `GET /api/v1/activity`: the completed UTC days of the last 30, optionally one `date`. */
export function openRouterActivity(calls: readonly BilledCall[], q: URLSearchParams, now: number): MockReply {
  const today = dayStart(now);
  const only = q.get('date');
  const onlyMs = only === null ? undefined : Date.parse(`${only}T00:00:00Z`);
  if (onlyMs !== undefined && (!Number.isFinite(onlyMs) || onlyMs >= today || onlyMs < today - 30 * DAY_MS)) {
    return openaiError(400, 'date must be a completed UTC day of the last 30 (YYYY-MM-DD)');
  }
  const mine = calls.filter((c) => c.provider === 'openrouter');
  const data: unknown[] = [];
  for (let d = today - 30 * DAY_MS; d < today; d += DAY_MS) {
    if (onlyMs !== undefined && d !== onlyMs) continue;
    for (const t of totalsOfDay(mine, d, true)) {
      data.push({
        date: new Date(d).toISOString().slice(0, 10),
        model: t.model,
        model_permaslug: t.model,
        endpoint_id: `mock-endpoint-${t.model}`,
        provider_name: 'MockProvider',
        usage: (t.inputNanos + t.outputNanos) / 1e9,
        byok_usage_inference: 0,
        requests: t.calls,
        prompt_tokens: t.inputTokens,
        completion_tokens: t.outputTokens,
        reasoning_tokens: 0,
      });
    }
  }
  return json(200, { data });
}
