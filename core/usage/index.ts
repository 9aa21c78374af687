/**
 * Token usage extraction: provider responses (JSON, SSE, NDJSON) → {@link NormalizedUsage}.
 * Pure and web-standard (no Node APIs): runs in Node, Lambda, browsers, Deno and edge runtimes.
 * The exact OpenAI tokenizer lives apart, in `./tokenizer-openai`, to keep it out of the SDK bundle.
 */
export { createUsageStream, parseUsageJson, usageFromResponse } from './extract';
export type { ProviderRef, ResponseUsageInput } from './extract';
export {
  CHARS_PER_TOKEN,
  estimateRequestTokens,
  familyOfModel,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
} from './estimate';
export type { TokenizerFamily } from './estimate';
export { DEFAULT_MAX_FRAME_CHARS } from './stream';
export {
  estimateReasoningOutput,
  isReasoningModel,
  maxOutputTokensOf,
  REASONING_TOKENS_PER_VISIBLE_TOKEN,
  reasoningEffortOf,
  TYPICAL_REASONING_TOKENS,
  type OutputEstimate,
  type ReasoningEffort,
  type TypicalReasoning,
} from './reasoning-allowance';
export { ReasoningBaseline } from './reasoning-baseline';
export type {
  NormalizedUsage,
  TokenCounter,
  UsageContext,
  UsageParser,
  UsageResult,
  UsageStream,
} from './types';
