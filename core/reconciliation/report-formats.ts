/**
 * The providers' own usage and cost reports, in their wire formats (fields the reconciliation reads;
 * unknown fields pass). Sources: OpenAI API reference "Usage" and "Costs" (organization admin
 * endpoints), Anthropic Admin API "Usage and Cost" (`usage_report/messages`, `cost_report`), OpenRouter
 * "Get user activity grouped by endpoint" (`/api/v1/activity`). See docs/reconciliation.md.
 */
import { z } from 'zod';

const count = z.number().int().nonnegative();
const optionalCount = count.nullish();

/** One result of `GET /v1/organization/usage/completions` (and `/usage/embeddings`). */
export const openAiUsageResultSchema = z.object({
  object: z.string(),
  input_tokens: count,
  output_tokens: count.optional(),
  input_cached_tokens: optionalCount,
  num_model_requests: count,
  model: z.string().nullish(),
});

/** One result of `GET /v1/organization/costs`: `amount.value` in USD (a JSON number). */
export const openAiCostResultSchema = z.object({
  object: z.literal('organization.costs.result'),
  amount: z.object({ value: z.number().finite(), currency: z.string() }),
  line_item: z.string().nullish(),
  project_id: z.string().nullish(),
});

/** OpenAI's page of day buckets (`start_time` / `end_time` in Unix seconds), cursor `next_page`. */
export function openAiPageSchema<T extends z.ZodTypeAny>(result: T) {
  return z.object({
    object: z.literal('page'),
    data: z.array(
      z.object({
        object: z.literal('bucket'),
        start_time: z.number().int(),
        end_time: z.number().int(),
        results: z.array(result),
      }),
    ),
    has_more: z.boolean(),
    next_page: z.string().nullish(),
  });
}

export const openAiUsagePageSchema = openAiPageSchema(openAiUsageResultSchema);
export const openAiCostPageSchema = openAiPageSchema(openAiCostResultSchema);
export type OpenAiUsagePage = z.infer<typeof openAiUsagePageSchema>;
export type OpenAiCostPage = z.infer<typeof openAiCostPageSchema>;

/** One result of Anthropic's `GET /v1/organizations/usage_report/messages`. */
export const anthropicUsageResultSchema = z.object({
  uncached_input_tokens: count,
  cache_read_input_tokens: count,
  cache_creation: z
    .object({ ephemeral_5m_input_tokens: count, ephemeral_1h_input_tokens: count })
    .partial()
    .nullish(),
  output_tokens: count,
  server_tool_use: z.object({ web_search_requests: count.optional() }).nullish(),
  model: z.string().nullish(),
});

/**
 * One result of Anthropic's `GET /v1/organizations/cost_report`: `amount` is a decimal string in the
 * lowest currency unit (cents: "123.45" is $1.23); `model` is set when grouped by `description`.
 */
export const anthropicCostResultSchema = z.object({
  amount: z.string().regex(/^\d+(?:\.\d+)?$/, 'a non-negative decimal string'),
  currency: z.string(),
  cost_type: z.string().nullish(),
  description: z.string().nullish(),
  model: z.string().nullish(),
  token_type: z.string().nullish(),
});

/** Anthropic's page of buckets (`starting_at` / `ending_at`, RFC 3339), cursor `next_page`. */
export function anthropicPageSchema<T extends z.ZodTypeAny>(result: T) {
  return z.object({
    data: z.array(z.object({ starting_at: z.string(), ending_at: z.string(), results: z.array(result) })),
    has_more: z.boolean(),
    next_page: z.string().nullish(),
  });
}

export const anthropicUsagePageSchema = anthropicPageSchema(anthropicUsageResultSchema);
export const anthropicCostPageSchema = anthropicPageSchema(anthropicCostResultSchema);
export type AnthropicUsagePage = z.infer<typeof anthropicUsagePageSchema>;
export type AnthropicCostPage = z.infer<typeof anthropicCostPageSchema>;

/**
 * OpenRouter's `GET /api/v1/activity` (management key): one item per UTC day and endpoint, `usage` in
 * USD (credits spent), completed days only, no paging (the last 30 days in one answer).
 */
export const openRouterActivitySchema = z.object({
  data: z.array(
    z.object({
      date: z.string().regex(/^\d{4}-\d{2}-\d{2}/),
      model: z.string(),
      usage: z.number().finite().nonnegative(),
      byok_usage_inference: z.number().finite().nonnegative().nullish(),
      requests: count,
      prompt_tokens: count,
      completion_tokens: count,
      reasoning_tokens: optionalCount,
    }),
  ),
});
export type OpenRouterActivity = z.infer<typeof openRouterActivitySchema>;
