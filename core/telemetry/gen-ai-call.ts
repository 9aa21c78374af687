import type { LedgerEntry } from '../ledger/ledger-entry';
import { GEN_AI, GEN_AI_COST, SPENDGUARD } from './gen-ai-conventions';

/** An attribute value OpenTelemetry accepts (no nulls: absent facts are left out). */
export type AttributeValue = string | number | boolean;

/**
 * One provider call as OpenTelemetry sees it: a CLIENT span from the call's own start to its end (not
 * the export's clock), its attributes, and the figures the GenAI client metrics record.
 */
export interface GenAiCall {
  /** `{gen_ai.operation.name} {gen_ai.request.model}`, the convention's span name. */
  name: string;
  startMs: number;
  /** startMs + latency; equal to startMs when the sender reported no latency. */
  endMs: number;
  attributes: Record<string, AttributeValue>;
  /** The attributes the convention puts on the metrics (low cardinality: no ids). */
  metricAttributes: Record<string, AttributeValue>;
  inputTokens: number;
  outputTokens: number;
  durationSeconds: number | null;
  /** USD, for the cost counter; the exact figure is {@link LedgerEntry.costNanos}. */
  costUsd: number;
}

/**
 * `gen_ai.provider.name` of a Spendguard provider id: the convention's well-known value where it has
 * one, else the id itself (the convention allows custom values).
 */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
  bedrock: 'aws.bedrock',
  xai: 'x_ai',
  mistral: 'mistral_ai',
  deepseek: 'deepseek',
  groq: 'groq',
  perplexity: 'perplexity',
  cohere: 'cohere',
};

/** The convention's provider name for a Spendguard provider id. */
export function genAiProviderName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

/**
 * `gen_ai.operation.name` from the endpoint the call went to; `chat` when the path says nothing else
 * (most endpoints Spendguard prices are chat-like, and SDK events may carry no path).
 *
 * @example genAiOperationName('/v1/embeddings') // 'embeddings'
 * @example genAiOperationName('/v1beta/models/gemini-2.5-pro:streamGenerateContent') // 'generate_content'
 */
export function genAiOperationName(endpoint: string | null): string {
  const path = (endpoint ?? '').split('?')[0]!.toLowerCase();
  if (/embed/.test(path)) return 'embeddings';
  if (/generatecontent/.test(path)) return 'generate_content';
  // `/v1/completions` and Ollama's `/api/generate` complete text; `/chat/completions` is chat.
  if (/(^|\/)completions$/.test(path) && !/chat\/completions$/.test(path)) return 'text_completion';
  if (/\/api\/generate$/.test(path)) return 'text_completion';
  return 'chat';
}

/**
 * Maps a priced ledger entry (one provider call) to its span and metric figures. Token counts follow
 * the ledger's convention, which is the semantic convention's: input includes cache reads and writes,
 * output includes reasoning. The response model is the ledger's (the provider's name, else the requested
 * one); the request model is the one the request named, when the sender said (proxy and SDK events).
 *
 * @example a gpt-4o call of 1,000 input tokens (800 cached) and 500 output tokens costing 4,500,000 nano-USD
 * // → attributes['gen_ai.usage.input_tokens'] = 1000, ['gen_ai.usage.cache_read.input_tokens'] = 800,
 * //   ['gen_ai.usage.cost.amount'] = 0.0045, ['spendguard.cost.nanos'] = 4500000
 */
export function genAiCallOf(entry: LedgerEntry, orgId: string): GenAiCall {
  const operation = genAiOperationName(entry.endpoint);
  const provider = genAiProviderName(entry.provider);
  const startMs = Date.parse(entry.ts);
  const latency = entry.latencyMs ?? 0;
  const failed = entry.statusCode !== null && entry.statusCode >= 400;
  const requestModel = entry.requestedModel ?? entry.model;
  const metricAttributes: Record<string, AttributeValue> = {
    [GEN_AI.operationName]: operation,
    [GEN_AI.providerName]: provider,
    [GEN_AI.requestModel]: requestModel,
    [GEN_AI.responseModel]: entry.model,
    ...(failed ? { [GEN_AI.errorType]: String(entry.statusCode) } : {}),
  };
  const optional: Record<string, AttributeValue | null> = {
    [GEN_AI.conversationId]: entry.sessionId,
    [GEN_AI.requestStream]: entry.stream,
    [SPENDGUARD.sessionId]: entry.sessionId,
    [SPENDGUARD.featureId]: entry.featureId,
    [SPENDGUARD.projectId]: entry.projectId,
    [SPENDGUARD.environment]: entry.environment,
  };
  const costUsd = entry.costNanos / 1e9;
  return {
    name: `${operation} ${requestModel}`,
    startMs,
    endMs: startMs + latency,
    metricAttributes,
    attributes: {
      ...metricAttributes,
      [GEN_AI.inputTokens]: entry.inputTokens,
      [GEN_AI.outputTokens]: entry.outputTokens,
      [GEN_AI.cacheReadInputTokens]: entry.cacheReadTokens,
      [GEN_AI.cacheCreationInputTokens]: entry.cacheWrite5mTokens + entry.cacheWrite1hTokens,
      [GEN_AI.reasoningOutputTokens]: entry.reasoningTokens,
      [GEN_AI_COST.amount]: costUsd,
      [GEN_AI_COST.currency]: 'USD',
      [GEN_AI_COST.source]: entry.costSource.toLowerCase(),
      [SPENDGUARD.costNanos]: entry.costNanos,
      [SPENDGUARD.pricedAs]: entry.pricedAs,
      [SPENDGUARD.organizationId]: orgId,
      [SPENDGUARD.apiKeyId]: entry.keyId,
      [SPENDGUARD.estimated]: entry.estimated,
      [SPENDGUARD.eventId]: entry.eventId,
      [SPENDGUARD.eventSource]: entry.source,
      [SPENDGUARD.verified]: entry.verified,
      ...Object.fromEntries(
        Object.entries(optional).filter((kv): kv is [string, AttributeValue] => kv[1] !== null),
      ),
    },
    inputTokens: entry.inputTokens,
    outputTokens: entry.outputTokens,
    durationSeconds: entry.latencyMs === null ? null : entry.latencyMs / 1000,
    costUsd,
  };
}
