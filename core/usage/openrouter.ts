/**
 * OpenRouter usage: OpenAI's format (its API is under /api/v1), with
 * - `usage.cost`: what OpenRouter charged, in USD (credits) → providerCostUsd;
 * - `prompt_tokens_details.cache_write_tokens` → cacheWrite5mTokens (read by the OpenAI reader);
 * - usage always present in the last SSE chunk (no `stream_options` needed), and `: OPENROUTER
 *   PROCESSING` SSE comments while the upstream provider is queued (skipped by the SSE framing).
 * Model ids carry the vendor (`anthropic/claude-sonnet-4.5`), which picks the estimate's family.
 */
import { asNumber } from './json-fields';
import { createOpenAIUsageParser } from './openai';
import type { UsageParser } from './types';

/** OpenRouter (openrouter.ai/api/v1). */
export const openrouterUsage: UsageParser = createOpenAIUsageParser({
  providerCost: (usage) => asNumber(usage.cost),
  family: 'other',
});
