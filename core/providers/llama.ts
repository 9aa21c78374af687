import { ollamaUsage } from '../usage/ollama';
import { defineProvider, type RequestFlavor } from './types';

const OLLAMA_NATIVE = /^\/api\/(?:chat|generate|embed|embeddings)(?:\/|$)/;

/**
 * Open-weight Llama-family models on the customer's own endpoints: OpenAI-compatible servers (vLLM,
 * llama.cpp, TGI, LM Studio, Ollama's `/v1`) and Ollama's native `/api/chat`, `/api/generate`,
 * `/api/embed`. Hosts are custom, so it is never auto-detected: use the SDK's `wrapFetch`, or the proxy
 * with an explicit upstream. The default upstream is a local Ollama.
 */
export const llama = defineProvider({
  id: 'llama',
  displayName: 'Llama (self-hosted)',
  hosts: [],
  pathPrefixes: [],
  autoDetect: false,
  upstreamBaseUrl: 'http://localhost:11434',
  requestFlavor: 'openai',
  flavorForPath: (path: string): RequestFlavor => (OLLAMA_NATIVE.test(path) ? 'ollama' : 'openai'),
  usage: ollamaUsage,
});
