/**
 * An organization's pricing on the request path (the relay's admission): its stored rates, compiled, and
 * the registry in force — what the pipeline prices its ledger entries with (lambdas/pricing-consumer), so
 * the budget counter and the ledger are one figure in one unit (issue 18.2).
 *
 * Cached per organization and container: a fresh entry is served from memory; a stale one is served while
 * one refresh runs in the background, so only an organization's first call in a container waits for a read.
 * A rate saved through `PUT /v1/pricing/rates` therefore applies to calls within `ttlMs` plus one read.
 * A failed read keeps the last good rates (list prices before any) and is retried after `retryMs`.
 * Bedrock application profiles are priced through the stored mapping only (no GetInferenceProfile on
 * the request path; the pipeline's lookup covers the ledger). Never rejects.
 */
import { getDefaultPriceRegistry, type CallPricing, type PriceRegistry } from '../../core/pricing';
import { orgRatesFor } from './org-rates-source';
import type { PricingRatesStore } from './stores/pricing-rates-store';

/** Options of {@link createOrgPricingSource}. */
export interface OrgPricingSourceOptions {
  /** Where organizations' rates are stored. */
  readonly rates: PricingRatesStore;
  /** The registry in force (the S3 snapshot source). @default the bundled registry */
  readonly registry?: () => Promise<PriceRegistry>;
  /** How long an organization's pricing is served before it is read again. @default 5,000 ms */
  readonly ttlMs?: number;
  /** After a failed read, how long before the next attempt. @default 1,000 ms */
  readonly retryMs?: number;
  /** Organizations kept per container (least recently read first out). @default 10,000 */
  readonly maxOrgs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

export const DEFAULT_ORG_PRICING_TTL_MS = 5_000;

interface Entry {
  value: CallPricing;
  /** When the entry is read again. */
  refreshAtMs: number;
  loading?: Promise<CallPricing>;
}

/** @returns a function giving an organization's {@link CallPricing}; it never rejects. */
export function createOrgPricingSource(
  opts: OrgPricingSourceOptions,
): (orgId: string) => Promise<CallPricing> {
  const ttlMs = opts.ttlMs ?? DEFAULT_ORG_PRICING_TTL_MS;
  const retryMs = opts.retryMs ?? 1_000;
  const maxOrgs = opts.maxOrgs ?? 10_000;
  const now = opts.now ?? Date.now;
  const registryOf = opts.registry ?? (() => Promise.resolve(getDefaultPriceRegistry()));
  const entries = new Map<string, Entry>();

  const load = (orgId: string, previous: Entry | undefined): Promise<CallPricing> => {
    const run = (async (): Promise<CallPricing> => {
      let value: CallPricing;
      let refreshAtMs: number;
      try {
        const [registry, orgRates] = await Promise.all([registryOf(), orgRatesFor(opts.rates, orgId)]);
        value = { registry, orgRates };
        refreshAtMs = now() + ttlMs;
      } catch {
        value = previous?.value ?? { registry: getDefaultPriceRegistry(), orgRates: null };
        refreshAtMs = now() + retryMs;
      }
      entries.delete(orgId); // re-inserted last: the Map's order is the eviction order
      entries.set(orgId, { value, refreshAtMs });
      while (entries.size > maxOrgs) entries.delete(entries.keys().next().value as string);
      return value;
    })();
    if (previous !== undefined) previous.loading = run;
    else
      entries.set(orgId, {
        value: { registry: getDefaultPriceRegistry(), orgRates: null },
        refreshAtMs: 0,
        loading: run,
      });
    return run;
  };

  return (orgId) => {
    const e = entries.get(orgId);
    if (e === undefined) return load(orgId, undefined);
    // First read still in flight: wait for it (the placeholder value is never served).
    if (e.refreshAtMs === 0) return e.loading ?? load(orgId, undefined);
    if (now() >= e.refreshAtMs && e.loading === undefined) void load(orgId, e);
    return Promise.resolve(e.value);
  };
}
