/**
 * OpenRouter: OpenAI's chat format under /api/v1, with `provider`, `usage.cost` (USD), usage in the last
 * streamed chunk without being asked, and `: OPENROUTER PROCESSING` comments before the first chunk.
 */
import type { MockCall, MockReply } from '../types';
import { chatCompletions, type ChatDialect } from './openai';

/** USD per prompt / completion token in the fake `usage.cost`. */
export const OPENROUTER_MOCK_PRICES = { prompt: 0.000001, completion: 0.000002 } as const;

const DIALECT: ChatDialect = {
  idPrefix: 'gen-',
  defaultModel: 'openai/gpt-4o-mini',
  topExtras: { provider: 'MockProvider' },
  alwaysStreamUsage: true,
  leadingComments: [': OPENROUTER PROCESSING\n\n', ': OPENROUTER PROCESSING\n\n'],
  usageExtras: (prompt, completion) => ({
    cost: Number(
      (prompt * OPENROUTER_MOCK_PRICES.prompt + completion * OPENROUTER_MOCK_PRICES.completion).toFixed(9),
    ),
    is_byok: false,
    cost_details: { upstream_inference_cost: null },
  }),
};

/** POST /api/v1/chat/completions */
export function openrouterChat(call: MockCall): MockReply {
  return chatCompletions(call, DIALECT);
}
