/**
 * What an organization's calls are priced with: the price registry in force and the organization's
 * compiled negotiated rates. The ledger prices every event with exactly these (core/ledger/event-cost), so
 * a hard cap that reserves and settles with them compares one figure, in one unit, with the cap
 * (issue 18.2: the relay settled at list prices while the pipeline applied the organization's rates).
 */
import type { CompiledOrgRates } from './org-rates';
import { getDefaultPriceRegistry, type PriceRegistry } from './registry';

export interface CallPricing {
  readonly registry: PriceRegistry;
  /** Null: list prices (the organization has no rates, or they could not be read). */
  readonly orgRates: CompiledOrgRates | null;
}

/** List prices from the bundled registry: what a call is priced with when nothing else is known. */
export function listPricing(): CallPricing {
  return { registry: getDefaultPriceRegistry(), orgRates: null };
}
