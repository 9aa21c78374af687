import type { PriceRegistry } from '../../core/pricing';
import { priceBedrockDayUsage, type ProviderReport } from '../../core/reconciliation';
import type { BedrockProfileLookup } from '../shared/bedrock-profile-lookup';
import { orgRatesFor, withBedrockProfiles } from '../shared/org-rates-source';
import type { PricingRatesStore } from '../shared/stores/pricing-rates-store';
import type { BedrockMetricsReader } from './bedrock-metrics-reader';

/** What the Bedrock report of one organization needs. */
export interface BedrockReportRequest {
  readonly orgId: string;
  readonly reader: BedrockMetricsReader;
  /** The regions read (one pass each, in parallel). */
  readonly regions: readonly string[];
  /** The UTC days compared, oldest first; the last is today. */
  readonly days: readonly string[];
  readonly registry?: PriceRegistry;
  /** The organization's rates (negotiated rates, application-profile mapping). */
  readonly pricingRates?: PricingRatesStore;
  /** Application profiles the organization has not mapped, resolved as the pricing consumer does. */
  readonly profiles?: BedrockProfileLookup;
}

/**
 * Bedrock's figure for the window: the token metrics of every region, priced at the organization's
 * rates where it has them, the list rates otherwise (`source: token_metrics_at_rates`, not an invoice).
 * Today is compared too: the metrics lag minutes, not a day.
 */
export async function bedrockReport(r: BedrockReportRequest): Promise<ProviderReport> {
  const usage = (await Promise.all(r.regions.map((region) => r.reader.read(region, r.days)))).flat();
  const orgRates = await withBedrockProfiles(
    await orgRatesFor(r.pricingRates, r.orgId),
    usage.map((u) => u.modelId),
    r.profiles,
  );
  return {
    provider: 'bedrock',
    source: 'token_metrics_at_rates',
    rows: priceBedrockDayUsage(usage, { registry: r.registry, orgRates }),
    coveredDays: r.days,
  };
}
