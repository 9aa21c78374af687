/**
 * What the fake providers bill: every successful call they served, whoever sent it (through the proxy,
 * through the SDK, or straight to them), priced at the published prices (core/pricing) the way the
 * provider would, or, for OpenRouter, at the `usage.cost` the mock reported. Their admin usage and cost
 * reports (formats/admin-reports.ts) are computed from this list.
 */
import { calculateCost } from '../../core/pricing';
import { OPENROUTER_MOCK_PRICES } from './formats/openrouter';
import { mockCompletionTokens, mockEmbeddingTokens, mockPromptTokens } from './tokens';
import { modelOf, type MockCall, type MockProviderName } from './types';

/** One call a fake provider billed. */
export interface BilledCall {
  readonly at: number;
  readonly provider: MockProviderName;
  readonly model: string;
  /** Which usage report counts it (OpenAI reports embeddings apart from completions). */
  readonly kind: 'completions' | 'embeddings';
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input side (everything but output) and output side, nano-USD; their sum is the call's cost. */
  readonly inputNanos: number;
  readonly outputNanos: number;
}

/** The default model each endpoint answers with when the request names none (as formats/*.ts do). */
const BILLED_ENDPOINTS: Readonly<
  Record<string, { provider: MockProviderName; kind: BilledCall['kind']; defaultModel: string }>
> = {
  '/openai/v1/chat/completions': { provider: 'openai', kind: 'completions', defaultModel: 'gpt-4o-mini' },
  '/openai/v1/responses': { provider: 'openai', kind: 'completions', defaultModel: 'gpt-4o-mini' },
  '/openai/v1/embeddings': {
    provider: 'openai',
    kind: 'embeddings',
    defaultModel: 'text-embedding-3-small',
  },
  '/anthropic/v1/messages': { provider: 'anthropic', kind: 'completions', defaultModel: 'claude-haiku-4-5' },
  '/openrouter/api/v1/chat/completions': {
    provider: 'openrouter',
    kind: 'completions',
    defaultModel: 'openai/gpt-4o-mini',
  },
};

/** The bill of one served call, or undefined for an endpoint that bills nothing (models list). */
export function billCall(path: string, call: MockCall, at: number): BilledCall | undefined {
  const endpoint = BILLED_ENDPOINTS[path];
  if (!endpoint) return undefined;
  const model = modelOf(call, endpoint.defaultModel);
  const embeddings = endpoint.kind === 'embeddings';
  const inputTokens = embeddings ? mockEmbeddingTokens(call.body) : mockPromptTokens(call.body);
  const outputTokens = embeddings ? 0 : mockCompletionTokens(call.body, call.chunks);
  let inputNanos: number;
  let outputNanos: number;
  if (endpoint.provider === 'openrouter') {
    // OpenRouter bills what its `usage.cost` said (formats/openrouter.ts), in whole nanos.
    inputNanos = Math.round(inputTokens * OPENROUTER_MOCK_PRICES.prompt * 1e9);
    outputNanos = Math.round(outputTokens * OPENROUTER_MOCK_PRICES.completion * 1e9);
  } else {
    const cost = calculateCost({
      provider: endpoint.provider,
      at,
      usage: {
        model,
        inputTokens,
        cacheReadTokens: 0,
        cacheWrite5mTokens: 0,
        cacheWrite1hTokens: 0,
        outputTokens,
        reasoningTokens: 0,
      },
    });
    outputNanos = cost.breakdown.outputNanos;
    inputNanos = cost.costNanos - outputNanos;
  }
  return {
    at,
    provider: endpoint.provider,
    model,
    kind: endpoint.kind,
    inputTokens,
    outputTokens,
    inputNanos,
    outputNanos,
  };
}
