/**
 * Fake AI providers answering in the real wire formats (OpenAI Chat Completions, Responses and
 * Embeddings; Anthropic Messages; OpenRouter) with deterministic usage. See mock-server.ts.
 */
export { startMockProviders } from './mock-server';
export type { MockProviders, MockProvidersOptions, MockRequest } from './mock-server';
export type { BilledCall } from './billing';
export {
  DEFAULT_COMPLETION_TOKENS,
  MAX_DEFAULT_COMPLETION,
  MOCK_CHARS_PER_TOKEN,
  TOKEN_TEXT,
  mockCompletionTokens,
  mockEmbeddingTokens,
  mockPromptTokens,
} from './tokens';
export { OPENROUTER_MOCK_PRICES } from './formats/openrouter';
export { MOCK_EMBEDDING_DIMENSIONS } from './formats/openai';
export type { MockProviderName } from './types';
export { startMockBedrock } from './bedrock';
export type { BedrockMockRequest, MockBedrock } from './bedrock';
