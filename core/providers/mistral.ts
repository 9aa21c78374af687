import { openAICompatible } from './openai-compatible';

/** Mistral AI (La Plateforme and the Codestral endpoint). */
export const mistral = openAICompatible({
  id: 'mistral',
  displayName: 'Mistral AI',
  hosts: ['api.mistral.ai', 'codestral.mistral.ai'],
  pathPrefixes: ['/v1'],
});
