import { geminiUsage } from '../usage/gemini';
import { defineProvider, type RequestFlavor } from './types';

/**
 * Google Gemini API (AI Studio keys). The model is in the URL path
 * (`/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`), which usage parsers read from
 * their context. `/v1beta/openai/…` is Gemini's OpenAI-compatible endpoint.
 */
export const gemini = defineProvider({
  id: 'gemini',
  displayName: 'Google Gemini',
  hosts: ['generativelanguage.googleapis.com'],
  pathPrefixes: ['/v1beta', '/v1'],
  autoDetect: true,
  upstreamBaseUrl: 'https://generativelanguage.googleapis.com',
  requestFlavor: 'gemini',
  flavorForPath: (path: string): RequestFlavor => (path.includes('/openai/') ? 'openai' : 'gemini'),
  usage: geminiUsage,
});
