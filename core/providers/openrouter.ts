import { openrouterUsage } from '../usage/openrouter';
import { openAICompatible } from './openai-compatible';

/** OpenRouter, the routing aggregator: OpenAI's format under `/api/v1`; detected on any path of its host. */
export const openrouter = openAICompatible({
  id: 'openrouter',
  displayName: 'OpenRouter',
  hosts: ['openrouter.ai'],
  pathPrefixes: [],
  usage: openrouterUsage,
});
