import { openaiUsage } from '../usage/openai';
import type { UsageParser } from '../usage/types';
import { defineProvider, type ProviderEntry } from './types';

/** What differs between OpenAI-compatible hosts. */
export interface OpenAICompatibleSpec<Id extends string> {
  readonly id: Id;
  readonly displayName: string;
  /** Lowercase hosts; the first one is the default upstream. */
  readonly hosts: readonly [string, ...string[]];
  /** Path prefixes that carry the API; empty for any path. */
  readonly pathPrefixes: readonly string[];
  /** Usage parser when the host deviates from OpenAI's format. @default openaiUsage */
  readonly usage?: UsageParser;
  /** @default true */
  readonly autoDetect?: boolean;
}

/**
 * A catalog entry for a host that speaks OpenAI's Chat Completions format.
 *
 * @example
 * export const mistral = openAICompatible({ id: 'mistral', displayName: 'Mistral AI',
 *   hosts: ['api.mistral.ai'], pathPrefixes: ['/v1'] });
 */
export function openAICompatible<const Id extends string>(spec: OpenAICompatibleSpec<Id>): ProviderEntry<Id> {
  return defineProvider({
    id: spec.id,
    displayName: spec.displayName,
    hosts: spec.hosts,
    pathPrefixes: spec.pathPrefixes,
    autoDetect: spec.autoDetect ?? true,
    upstreamBaseUrl: `https://${spec.hosts[0]}`,
    requestFlavor: 'openai',
    usage: spec.usage ?? openaiUsage,
  });
}
