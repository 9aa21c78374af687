import { openrouterUsage } from '../usage/openrouter';
import { defineProvider } from './types';

/** OpenRouter, the routing aggregator: OpenAI's format under `/api/v1`; detected on any path of its host. */
export const openrouter = defineProvider({
  id: 'openrouter',
  displayName: 'OpenRouter',
  hosts: ['openrouter.ai'],
  pathPrefixes: [],
  autoDetect: true,
  upstreamBaseUrl: 'https://openrouter.ai',
  requestFlavor: 'openai',
  usage: openrouterUsage,
});
