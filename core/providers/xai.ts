import { openAICompatible } from './openai-compatible';

/** xAI (Grok). Reasoning tokens reported beside `completion_tokens` are added to outputTokens. */
export const xai = openAICompatible({
  id: 'xai',
  displayName: 'xAI',
  hosts: ['api.x.ai'],
  pathPrefixes: ['/v1'],
});
