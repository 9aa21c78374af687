/**
 * Where a relay request goes: `/<provider slug>/<provider path>[?query]` → the provider's entry and its
 * upstream (the catalog's base URL, or an override per slug), parsed once per provider and kept.
 * Bedrock's host names a region: `/bedrock/<region>/…` and `/bedrock-mantle/<region>/…` (bedrock-route.ts).
 */
import { providerBySlug, type ProviderEntry } from '../../core/providers';
import { bedrockTarget, isBedrockUrl } from './bedrock-route';

/** A provider's upstream base URL, parsed. */
export interface Upstream {
  readonly secure: boolean;
  readonly hostname: string;
  readonly port: number;
  /** Path prefix of the base URL, without a trailing slash ('' for none). */
  readonly prefix: string;
  /** Base URL as text, for the usage context. */
  readonly origin: string;
}

/** One request's destination. */
export interface Route {
  readonly entry: ProviderEntry;
  readonly upstream: Upstream;
  /** Provider path with the query, e.g. `/v1/chat/completions?x=1`. */
  readonly rest: string;
  /** Provider path without the query. */
  readonly endpoint: string;
}

/**
 * @example
 * new UpstreamRoutes({ openai: 'http://127.0.0.1:9000' }).route('/openai/v1/chat/completions?x=1')
 * // { entry: openai, upstream: { hostname: '127.0.0.1', port: 9000, … }, rest: '/v1/chat/completions?x=1', … }
 */
export class UpstreamRoutes {
  private readonly upstreams = new Map<string, Upstream>();

  /** @param overrides upstream base URL per provider slug, overriding the catalog's `upstreamBaseUrl` */
  constructor(private readonly overrides: Readonly<Partial<Record<string, string>>> | undefined) {}

  /**
   * The route of a relay URL, or undefined (no slug, unknown provider, unusable base URL), or why a
   * Bedrock URL is refused (a region that is not one).
   */
  route(url: string): Route | { readonly error: string } | undefined {
    if (url.charCodeAt(0) !== 47 /* / */) return undefined;
    if (isBedrockUrl(url)) return this.bedrockRoute(url);
    let end = 1;
    while (end < url.length) {
      const c = url.charCodeAt(end);
      if (c === 47 || c === 63 /* ? */) break;
      end++;
    }
    const slug = url.slice(1, end);
    const entry = providerBySlug(slug);
    if (entry === undefined) return undefined;
    const upstream = this.upstreamFor(entry);
    if (upstream === undefined) return undefined;
    let rest = url.slice(end);
    if (rest.length === 0 || rest.charCodeAt(0) === 63) rest = '/' + rest;
    const q = rest.indexOf('?');
    return { entry, upstream, rest, endpoint: q === -1 ? rest : rest.slice(0, q) };
  }

  private bedrockRoute(url: string): Route | { readonly error: string } | undefined {
    const entry = providerBySlug('bedrock');
    const target = bedrockTarget(url, this.overrides);
    if (target !== undefined && 'error' in target) return target;
    if (entry === undefined || target === undefined) return undefined;
    const upstream = this.upstreamFor(entry, target.base);
    if (upstream === undefined) return undefined;
    const q = target.rest.indexOf('?');
    return { entry, upstream, rest: target.rest, endpoint: q === -1 ? target.rest : target.rest.slice(0, q) };
  }

  /** @param baseUrl the base URL when the route decides it (Bedrock's region), else the slug's */
  private upstreamFor(entry: ProviderEntry, baseUrl?: string): Upstream | undefined {
    const key = baseUrl ?? entry.slug;
    const cached = this.upstreams.get(key);
    if (cached !== undefined) return cached;
    const base = baseUrl ?? this.overrides?.[entry.slug] ?? entry.upstreamBaseUrl;
    let u: URL;
    try {
      u = new URL(base);
    } catch {
      return undefined;
    }
    const secure = u.protocol === 'https:';
    const upstream: Upstream = {
      secure,
      hostname: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port === '' ? (secure ? 443 : 80) : Number(u.port),
      prefix: u.pathname.replace(/\/+$/, ''),
      origin: `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`,
    };
    // Keyed by base URL for Bedrock: one entry per region used, at most the regions AWS has.
    this.upstreams.set(key, upstream);
    return upstream;
  }
}
