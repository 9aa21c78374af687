/**
 * The provider registry and URL detection. Adding a provider: one file declaring its entry, and one line
 * in {@link PROVIDERS}; nothing else changes.
 */
import { anthropic } from './anthropic';
import { bedrock } from './bedrock';
import { deepseek } from './deepseek';
import { gemini } from './gemini';
import { groq } from './groq';
import { llama } from './llama';
import { mistral } from './mistral';
import { openai } from './openai';
import { openrouter } from './openrouter';
import { together } from './together';
import type { ProviderEntry, RequestFlavor } from './types';
import { xai } from './xai';

/** Every provider entry: the spec's four first, then further OpenAI-compatible and Google hosts. */
export const PROVIDERS = Object.freeze([
  openai,
  anthropic,
  openrouter,
  llama,
  gemini,
  groq,
  together,
  mistral,
  deepseek,
  xai,
  bedrock,
] as const);

/** A known provider identifier (lowercase; also its proxy slug). */
export type ProviderId = (typeof PROVIDERS)[number]['id'];

/** Every provider identifier, in catalog order. */
export const PROVIDER_IDS: readonly ProviderId[] = Object.freeze(PROVIDERS.map((p) => p.id));

const BY_ID = new Map<string, ProviderEntry<ProviderId>>(PROVIDERS.map((p) => [p.id, p]));

/** Auto-detected entries by host, so that detection is one map lookup for unrelated URLs. */
const BY_HOST = new Map<string, ProviderEntry<ProviderId>[]>();
for (const entry of PROVIDERS) {
  if (!entry.autoDetect) continue;
  for (const host of entry.hosts) {
    const list = BY_HOST.get(host) ?? [];
    list.push(entry);
    BY_HOST.set(host, list);
  }
}

/** Entries that recognise URLs of varying host names (a region in the name), asked after the host map. */
const BY_URL = PROVIDERS.filter((p) => p.detectsUrl !== undefined);

/** The entry with this id, or undefined. */
export function getProvider(id: string): ProviderEntry<ProviderId> | undefined {
  return BY_ID.get(id);
}

/**
 * The entry whose proxy slug (the first path segment after the proxy URL) is `slug`, or undefined. A slug
 * is its entry's id (`defineProvider`), so this is the id lookup.
 */
export function providerBySlug(slug: string): ProviderEntry<ProviderId> | undefined {
  return BY_ID.get(slug);
}

/** scheme://[userinfo@]host[:port]path — host and path captured; query and fragment left out. */
const URL_PARTS = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^:/?#]*)(?::\d*)?([^?#]*)/i;

/**
 * The auto-detected provider a request URL goes to, or undefined (other hosts, other paths, relative
 * URLs, and providers that are never auto-detected, such as `llama`). Runs on every fetch in the SDK:
 * one regular expression and one map lookup, no `URL` object for strings.
 *
 * @example
 * detectProvider('https://api.openai.com/v1/chat/completions')?.id; // 'openai'
 * detectProvider('https://openrouter.ai/api/v1/chat/completions')?.id; // 'openrouter'
 * detectProvider('https://api.openai.com/dashboard'); // undefined (not under /v1)
 */
export function detectProvider(url: string | URL): ProviderEntry<ProviderId> | undefined {
  let host: string;
  let path: string;
  if (typeof url === 'string') {
    const match = URL_PARTS.exec(url);
    if (match === null) return undefined;
    host = match[1] ?? '';
    path = match[2] ?? '';
  } else if (url instanceof URL) {
    host = url.hostname;
    path = url.pathname;
  } else {
    return undefined;
  }
  const normalized = normalizeHost(host);
  const candidates = BY_HOST.get(normalized);
  if (candidates === undefined) return BY_URL.find((entry) => entry.detectsUrl?.(normalized, path));
  for (const entry of candidates) {
    if (matchesPath(entry, path)) return entry;
  }
  return undefined;
}

/**
 * The request body shape for a request to `entry` at `url` (the path decides for providers with two
 * dialects: Ollama's native `/api/chat` on `llama`, the `/openai/` endpoint on `gemini`).
 */
export function requestFlavorOf(entry: ProviderEntry, url?: string | URL): RequestFlavor {
  if (entry.flavorForPath === undefined || url === undefined) return entry.requestFlavor;
  const path = typeof url === 'string' ? (URL_PARTS.exec(url)?.[2] ?? url) : url.pathname;
  return entry.flavorForPath(path);
}

function normalizeHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function matchesPath(entry: ProviderEntry, path: string): boolean {
  if (entry.pathPrefixes.length === 0) return true;
  for (const prefix of entry.pathPrefixes) {
    if (path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47)) {
      return true;
    }
  }
  return false;
}
