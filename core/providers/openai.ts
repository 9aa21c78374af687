import { openaiUsage } from '../usage/openai';
import { defineProvider } from './types';

/** OpenAI: Chat Completions, Responses, Embeddings. `eu.api.openai.com` is the EU data-residency host. */
export const openai = defineProvider({
  id: 'openai',
  displayName: 'OpenAI',
  hosts: ['api.openai.com', 'eu.api.openai.com'],
  pathPrefixes: ['/v1'],
  autoDetect: true,
  upstreamBaseUrl: 'https://api.openai.com',
  requestFlavor: 'openai',
  usage: openaiUsage,
});
