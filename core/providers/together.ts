import { openAICompatible } from './openai-compatible';

/** Together AI (both API hosts). */
export const together = openAICompatible({
  id: 'together',
  displayName: 'Together AI',
  hosts: ['api.together.xyz', 'api.together.ai'],
  pathPrefixes: ['/v1'],
});
