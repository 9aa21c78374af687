import { groqUsage } from '../usage/groq';
import { openAICompatible } from './openai-compatible';

/** Groq: OpenAI-compatible under `/openai/v1`, with usage also in `x_groq.usage` in streams. */
export const groq = openAICompatible({
  id: 'groq',
  displayName: 'Groq',
  hosts: ['api.groq.com'],
  pathPrefixes: ['/openai/v1'],
  usage: groqUsage,
});
