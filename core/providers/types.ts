import type { UsageParser } from '../usage/types';

/**
 * How a provider's request body is shaped, for modules that read it (the fingerprint, stream estimation):
 * - `openai`: `{ model, messages | input | prompt, tools, … }` (Chat Completions, Responses, Embeddings);
 * - `anthropic`: `{ model, system, messages, tools, … }`;
 * - `gemini`: `{ contents, systemInstruction, tools, … }`, the model is in the URL path;
 * - `ollama`: Ollama's native `/api/chat` (`messages`) and `/api/generate` (`prompt`, `system`).
 */
export type RequestFlavor = 'openai' | 'anthropic' | 'gemini' | 'ollama';

/** What a provider file declares; {@link defineProvider} turns it into a {@link ProviderEntry}. */
export interface ProviderSpec<Id extends string = string> {
  /** Lowercase identifier, recorded as `provider` in telemetry events. Also the proxy slug. */
  readonly id: Id;
  /** Human-readable name for the dashboard and docs. */
  readonly displayName: string;
  /** Lowercase host names that identify the provider (no port). */
  readonly hosts: readonly string[];
  /**
   * Path prefixes under those hosts; a path matches when it equals a prefix or continues it after a `/`.
   * Empty: any path on the host.
   */
  readonly pathPrefixes: readonly string[];
  /** Whether `detectProvider` recognises the provider from a request URL (the SDK's automatic mode). */
  readonly autoDetect: boolean;
  /**
   * For providers whose host names vary (a region in the name): whether a URL's host and path are theirs,
   * asked by `detectProvider` when no listed host matched. Only URLs the SDK sees through `fetch`.
   */
  readonly detectsUrl?: (host: string, path: string) => boolean;
  /** Origin the proxy forwards to by default, without a trailing slash. */
  readonly upstreamBaseUrl: string;
  /** Default request body shape. */
  readonly requestFlavor: RequestFlavor;
  /** Refines {@link requestFlavor} from the request path, for providers that serve two API dialects. */
  readonly flavorForPath?: (path: string) => RequestFlavor;
  /** The model a request path names, for providers that put it there (Bedrock's `/model/<id>/converse`). */
  readonly modelFromPath?: (path: string) => string | null;
  /** Reads token usage from the provider's responses. */
  readonly usage: UsageParser;
}

/** One entry of the provider catalog. */
export interface ProviderEntry<Id extends string = string> extends ProviderSpec<Id> {
  /** Proxy path segment: `{proxy_url}/<slug>/<provider_path>`. Always equal to `id`. */
  readonly slug: Id;
}

/**
 * Declares a provider entry. The slug is the id, so the two can never drift apart.
 *
 * @example
 * export const acme = defineProvider({ id: 'acme', displayName: 'Acme', hosts: ['api.acme.ai'],
 *   pathPrefixes: ['/v1'], autoDetect: true, upstreamBaseUrl: 'https://api.acme.ai',
 *   requestFlavor: 'openai', usage: openaiUsage });
 */
export function defineProvider<const Id extends string>(spec: ProviderSpec<Id>): ProviderEntry<Id> {
  return Object.freeze({ ...spec, slug: spec.id });
}
