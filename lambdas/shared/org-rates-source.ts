import { compileOrgRates, type CompiledOrgRates } from '../../core/pricing';
import type { PricingRatesStore } from './stores/pricing-rates-store';

/**
 * The compiled pricing rates of an organization, read fresh for each Kinesis record (one consistent
 * GetItem; a rate saved through `PUT /v1/pricing/rates` applies to the next record). Absent or invalid
 * stored rates give null: the event is priced from the registry, never failed.
 */
export async function orgRatesFor(
  store: PricingRatesStore | undefined,
  orgId: string,
): Promise<CompiledOrgRates | null> {
  if (store === undefined) return null;
  const record = await store.get(orgId);
  if (record === undefined || record.rates === null || typeof record.rates !== 'object') return null;
  try {
    return compileOrgRates(record.rates);
  } catch {
    return null;
  }
}
