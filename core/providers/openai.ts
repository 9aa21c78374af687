import { openAICompatible } from './openai-compatible';

/** OpenAI: Chat Completions, Responses, Embeddings. `eu.api.openai.com` is the EU data-residency host. */
export const openai = openAICompatible({
  id: 'openai',
  displayName: 'OpenAI',
  hosts: ['api.openai.com', 'eu.api.openai.com'],
  pathPrefixes: ['/v1'],
});
