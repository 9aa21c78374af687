import { anthropicUsage } from '../usage/anthropic';
import { defineProvider } from './types';

/** Anthropic: the Messages API. */
export const anthropic = defineProvider({
  id: 'anthropic',
  displayName: 'Anthropic',
  hosts: ['api.anthropic.com'],
  pathPrefixes: ['/v1'],
  autoDetect: true,
  upstreamBaseUrl: 'https://api.anthropic.com',
  requestFlavor: 'anthropic',
  usage: anthropicUsage,
});
