/** The provider catalog: one entry per provider, URL detection, lookup by id and proxy slug. */
export {
  detectProvider,
  getProvider,
  PROVIDER_IDS,
  PROVIDERS,
  providerBySlug,
  requestFlavorOf,
} from './catalog';
export type { ProviderId } from './catalog';
export { openAICompatible } from './openai-compatible';
export type { OpenAICompatibleSpec } from './openai-compatible';
export { defineProvider } from './types';
export type { ProviderEntry, ProviderSpec, RequestFlavor } from './types';
