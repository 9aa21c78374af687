import { openAICompatible } from './openai-compatible';

/**
 * DeepSeek: its base URL works with and without `/v1` (and `/beta` for prefix completion), so any path
 * of the host is detected. Its `prompt_cache_hit_tokens` is read as cacheReadTokens.
 */
export const deepseek = openAICompatible({
  id: 'deepseek',
  displayName: 'DeepSeek',
  hosts: ['api.deepseek.com'],
  pathPrefixes: [],
});
