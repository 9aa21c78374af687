/**
 * The providers' reports reduced to one shape: per UTC day and model, what the provider billed
 * (nano-USD) and the tokens it counted. Usage and cost come from separate endpoints; they are merged on
 * (day, model key).
 */
import { usdToNanos } from '../pricing/money';
import { CENT_DECIMALS_TO_NANOS, decimalStringToNanos } from './decimal-amount';
import { reconciliationModelKey } from './model-key';
import type {
  AnthropicCostPage,
  AnthropicUsagePage,
  OpenAiCostPage,
  OpenAiUsagePage,
  OpenRouterActivity,
} from './report-formats';

/** What a provider reported for one day and model (`model` null: spend it attributes to no model). */
export interface ProviderRow {
  date: string;
  model: string | null;
  costNanos: number;
  tokens: number;
}

/** The bucket of a report covers a UTC day; its date is the day it starts. */
function dayOfSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

function dayOfIso(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : iso.slice(0, 10);
}

const modelOrNull = (m: string | null | undefined): string | null =>
  m === null || m === undefined || m === '' ? null : reconciliationModelKey(m);

/** Usage pages (completions, embeddings): input tokens (cached included) + output tokens per model. */
export function openAiUsageRows(pages: readonly OpenAiUsagePage[]): ProviderRow[] {
  return pages.flatMap((p) =>
    p.data.flatMap((b) =>
      b.results.map((r) => ({
        date: dayOfSeconds(b.start_time),
        model: modelOrNull(r.model),
        costNanos: 0,
        tokens: r.input_tokens + (r.output_tokens ?? 0),
      })),
    ),
  );
}

/**
 * The model of a costs line item: OpenAI names them `<model>, <component>` (`gpt-4o-mini-2024-07-18,
 * input`); an item without that shape (a tool or storage fee) is its own "model".
 */
export function modelOfLineItem(lineItem: string): string {
  const comma = lineItem.lastIndexOf(', ');
  return comma > 0 ? lineItem.slice(0, comma) : lineItem;
}

/** Costs pages grouped by `line_item`: USD per model. */
export function openAiCostRows(pages: readonly OpenAiCostPage[]): ProviderRow[] {
  return pages.flatMap((p) =>
    p.data.flatMap((b) =>
      b.results.map((r) => ({
        date: dayOfSeconds(b.start_time),
        model: r.line_item ? modelOrNull(modelOfLineItem(r.line_item)) : null,
        costNanos: usdToNanos(r.amount.value),
        tokens: 0,
      })),
    ),
  );
}

/** Messages usage grouped by model: uncached + cache reads + cache writes + output tokens. */
export function anthropicUsageRows(pages: readonly AnthropicUsagePage[]): ProviderRow[] {
  return pages.flatMap((p) =>
    p.data.flatMap((b) =>
      b.results.map((r) => ({
        date: dayOfIso(b.starting_at),
        model: modelOrNull(r.model),
        costNanos: 0,
        tokens:
          r.uncached_input_tokens +
          r.cache_read_input_tokens +
          (r.cache_creation?.ephemeral_5m_input_tokens ?? 0) +
          (r.cache_creation?.ephemeral_1h_input_tokens ?? 0) +
          r.output_tokens,
      })),
    ),
  );
}

/** Cost report grouped by `description`: cents (decimal strings) per model; tool fees carry no model. */
export function anthropicCostRows(pages: readonly AnthropicCostPage[]): ProviderRow[] {
  return pages.flatMap((p) =>
    p.data.flatMap((b) =>
      b.results.map((r) => ({
        date: dayOfIso(b.starting_at),
        model: modelOrNull(r.model),
        costNanos: decimalStringToNanos(r.amount, CENT_DECIMALS_TO_NANOS),
        tokens: 0,
      })),
    ),
  );
}

/** Activity: credits spent (`usage`, USD) and prompt + completion tokens per day and model. */
export function openRouterRows(activity: OpenRouterActivity): ProviderRow[] {
  return activity.data.map((a) => ({
    date: a.date.slice(0, 10),
    model: reconciliationModelKey(a.model),
    costNanos: usdToNanos(a.usage),
    tokens: a.prompt_tokens + a.completion_tokens,
  }));
}
